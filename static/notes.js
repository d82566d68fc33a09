/* Private notes: with this script, "Save my notes" (or leaving the box) keeps them without
   reloading the page. Without it the form posts and the page comes back. CSP-safe. */
(function () {
  "use strict";
  var form = document.querySelector("form.notes-form");
  if (!form) { return; }
  var box = form.querySelector("textarea");
  var status = form.querySelector("[role=status]");
  var kept = box.value;
  function save(event) {
    if (event) { event.preventDefault(); }
    if (box.value === kept && !event) { return; }
    var sent = box.value;
    fetch(form.action, {
      method: "POST",
      body: new FormData(form),
      headers: { "X-Requested-With": "fetch" },
      credentials: "same-origin"
    }).then(function (answer) {
      if (!answer.ok) { throw new Error(String(answer.status)); }
      kept = sent;
      status.textContent = form.dataset.saved;
    }).catch(function () {
      status.textContent = form.dataset.failed;
    });
  }
  form.addEventListener("submit", save);
  box.addEventListener("blur", function () { save(null); });
}());
