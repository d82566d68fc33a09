// The live game page (issue 31): while the page is visible, look every few seconds at how
// far the game has gone (a cheap JSON endpoint: two columns), so that a move, a computer's
// reply above all, shows within seconds. When the game has moved on, reload to show it, and
// mark and announce the moves that came; but never throw away a choice the player is making:
// once a form on the page was changed (or the page answers a form, as the review does), a bar
// offers to show the new moves instead. Hidden, the page stops looking and tells the server
// (the seat's "your move" mail is then not held); visible again, it looks at once.
// The page marks its .live element with data-poll-url and data-poll-ply (the ply it shows);
// without JavaScript the page's reload link remains.
(function () {
  "use strict";
  if (!document.querySelector(".live[data-poll-url]") || !window.fetch) {
    return;
  }
  var EVERY = 2500; // ms between looks while visible: a reply shows within 5 s
  var SLOWEST = 30000; // after errors, look less often, up to this
  var live, url, shown, held, bar, news, away;
  var key = "pbem-live:" + window.location.pathname;
  var wait = EVERY;
  var timer = null;
  var asking = false;
  var done = false; // moved on (bar shown, or reloading), or the game is over
  var reloading = false;

  // The page's .live element and what it says: read at the start, and again when the
  // page's main part is replaced without a reload (tap to play sends the move by fetch
  // and puts in the page after it, then says "pbem:page"): its ply is the new one.
  function bind() {
    live = document.querySelector(".live[data-poll-url]");
    if (!live) {
      done = true; // the game is over: nothing more to look at
      return;
    }
    url = live.getAttribute("data-poll-url");
    shown = live.getAttribute("data-poll-ply");
    held = live.getAttribute("data-hold") === "1";
    bar = live.querySelector(".moved-on");
    news = live.querySelector(".live-news");
    away = live.querySelector("form.away");
    done = false;
    wait = EVERY;
    // The bar's link shows the new moves: mark them as a reload does.
    bar.querySelector("a").addEventListener("click", function () {
      try {
        window.sessionStorage.setItem(key, shown);
      } catch (e) {
        // the link works without it
      }
      reloading = true;
    });
  }
  bind();
  document.addEventListener("pbem:page", function () {
    bind();
    later(EVERY);
  });

  // A choice under way: any input or change in a form of the page (tap-to-play sets real
  // inputs and dispatches "change" too).
  function changed(event) {
    var target = event.target;
    if (target && (target.form || (target.closest && target.closest("form")))) {
      held = true;
    }
  }
  document.addEventListener("input", changed, true);
  document.addEventListener("change", changed, true);

  function later(ms) {
    window.clearTimeout(timer);
    timer = window.setTimeout(look, ms);
  }

  function movedOn() {
    done = true;
    window.clearTimeout(timer);
    if (held) {
      bar.hidden = false;
      return;
    }
    try {
      window.sessionStorage.setItem(key, shown);
    } catch (e) {
      // no storage: the page still reloads, its new moves marked as new since your move
    }
    reloading = true;
    window.location.reload();
  }

  function look() {
    timer = null;
    if (done || asking || document.hidden) {
      return;
    }
    asking = true;
    fetch(url, { credentials: "same-origin", cache: "no-store" })
      .then(function (reply) { return reply.ok ? reply.json() : null; })
      .then(function (data) {
        asking = false;
        if (data && String(data.ply) !== shown) {
          movedOn();
          return;
        }
        if (data && data.status !== "active") {
          done = true; // nothing more will come
          return;
        }
        wait = data ? EVERY : Math.min(wait * 2, SLOWEST);
        later(wait);
      })
      .catch(function () {
        asking = false;
        wait = Math.min(wait * 2, SLOWEST);
        later(wait);
      });
  }

  // Hidden or left: the player no longer looks. (Not when the page reloads itself.)
  function gone() {
    if (!away || reloading || !navigator.sendBeacon) {
      return;
    }
    navigator.sendBeacon(away.getAttribute("action"), new FormData(away));
  }

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) {
      window.clearTimeout(timer);
      gone();
    } else {
      wait = EVERY;
      look(); // at once: what came while the page was hidden
    }
  });
  window.addEventListener("pagehide", gone);

  // Back after a reload: mark the moves that came since the page before, and say them.
  var before = null;
  try {
    before = window.sessionStorage.getItem(key);
    window.sessionStorage.removeItem(key);
  } catch (e) {
    before = null;
  }
  if (before !== null && before !== shown) {
    var lines = [];
    var items = document.querySelectorAll("ol.log > li[value]");
    for (var i = 0; i < items.length; i++) {
      // An entry's value is its ply + 1: a move made at the ply shown before, or later.
      if (Number(items[i].getAttribute("value")) > Number(before)) {
        items[i].classList.add("arrived");
        lines.push(items[i].textContent.replace(/\s+/g, " ").trim());
      }
    }
    if (lines.length && news) {
      // Said a moment after the load, so that screen readers hear the region change.
      window.setTimeout(function () {
        news.textContent = news.getAttribute("data-label") + " " + lines.join(" ");
      }, 300);
    }
  }

  // A first look at once: it tells the server the player is looking (the page's load
  // alone does not: a page without this script shows no move as it comes).
  look();
})();
