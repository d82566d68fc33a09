// Offer the browser's time zone; the page works the same without this.
(function () {
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone, select = document.getElementById("tz");
  if (!zone || select.value === zone || !select.querySelector('option[value="' + zone + '"]')) return;
  var hint = document.getElementById("tz-hint"), use = document.getElementById("tz-use");
  use.textContent = zone; hint.hidden = false;
  use.addEventListener("click", function () { select.value = zone; hint.hidden = true; });
})();
