/* A checkable deal: an empty share field gets a random value made here, in the browser
   (crypto.getRandomValues), which the player may replace with a phrase. Without this
   script the field stays as typed, or empty. CSP-safe: no inline script. */
(function () {
  "use strict";
  var fields = document.querySelectorAll("input[data-deal-share]");
  fields.forEach(function (field) {
    if (field.value) { return; }
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    field.value = Array.prototype.map.call(bytes, function (b) {
      return ("0" + b.toString(16)).slice(-2);
    }).join("");
  });
}());
