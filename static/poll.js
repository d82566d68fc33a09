// Reload the page when the game has moved on: a computer player's reply arrives by itself.
// The page marks the element to watch with data-poll-url (a cheap JSON endpoint) and
// data-poll-ply (the ply the page shows); without JavaScript the page's reload link remains.
(function () {
  "use strict";
  var marker = document.querySelector("[data-poll-url]");
  if (!marker || !window.fetch) {
    return;
  }
  var url = marker.getAttribute("data-poll-url");
  var shown = marker.getAttribute("data-poll-ply");
  var wait = 2000;
  function check() {
    fetch(url, { credentials: "same-origin", cache: "no-store" })
      .then(function (reply) { return reply.ok ? reply.json() : null; })
      .then(function (data) {
        if (data && String(data.ply) !== shown) {
          window.location.reload();
          return;
        }
        wait = Math.min(wait * 1.25, 15000);
        window.setTimeout(check, wait);
      })
      .catch(function () { window.setTimeout(check, 15000); });
  }
  window.setTimeout(check, wait);
})();
