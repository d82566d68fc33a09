// Plan ahead: picking their move shows your answers to it at once (one tap fewer); the
// page works the same without this, through the form's button.
(function () {
  var pick = document.getElementById("plan-if");
  if (!pick) return;
  pick.addEventListener("change", function () { pick.form.submit(); });
})();
