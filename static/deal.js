/* A checkable deal: an empty share field gets a random value made here, in the browser
   (crypto.getRandomValues), which the player may replace with a phrase. Without this
   script the field stays as typed, or empty. CSP-safe: no inline script.
   A live page (static/live.js) may put a fresh copy of a form in place of the one filled
   here: "pbem:page" says so, and the fresh field is filled too. A field filled once and
   then emptied by the player stays empty: that is their choice. */
(function () {
  "use strict";
  function fill() {
    var fields = document.querySelectorAll("input[data-deal-share]");
    fields.forEach(function (field) {
      if (field.value || field.pbemDealFilled) { return; }
      var bytes = new Uint8Array(16);
      window.crypto.getRandomValues(bytes);
      field.value = Array.prototype.map.call(bytes, function (b) {
        return ("0" + b.toString(16)).slice(-2);
      }).join("");
      field.pbemDealFilled = true;
    });
  }
  fill();
  // Run again by a part put in place (it carries this script): listen once per document.
  if (!window.pbemDealListens) {
    window.pbemDealListens = true;
    document.addEventListener("pbem:page", fill);
  }
}());
