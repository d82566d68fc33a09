// The live page (issue 47): a seat's, a spectator's or a league's page shows what happens
// as it happens. `pbem live` tells the page "changed" over a stream (Server-Sent Events)
// that carries no game content, only the new version; the page then fetches itself from
// the web app, which decides what this reader may see, and puts in place the parts of it
// that changed: board, log, status, the step's form, talk. Parts the player is working in
// stay as they are: a part holding a form they have changed (and not sent) is never
// replaced; when a change would replace one, a bar offers to show the new moves instead.
// Tap to play (static/table.js) is told by the "pbem:page" event, as after its own Send.
// With the stream down (or PBEM_LIVE_URL off), the page polls how far the game has gone,
// with the version it shows as If-None-Match: the answer is 304 until it changes.
// Hidden, the page closes its stream and stops polling, and a seat's page tells the server
// (its turn mail is then not held); visible again, it opens the stream, which says at once
// where the game is. The .live element names the stream (data-stream), the poll
// (data-poll), the page (data-page) and the version and ply it shows; without JavaScript
// the page stays as it is, and its reload link remains.
(function () {
  "use strict";
  if (!document.querySelector(".live[data-page]") || !window.fetch || !window.DOMParser) {
    return;
  }
  var POLL = 2500; // ms between polls while the stream is down
  var SLOWEST = 30000; // after failed polls, poll less often, up to this
  var STREAM_AGAIN = 60000; // ms before a refused stream is tried again
  var main = document.querySelector("main");
  var key = "pbem-live:" + window.location.pathname;
  var live, stream, pollUrl, pageUrl, shown, ply, pageHeld, bar, news, away;
  var source = null; // the EventSource while open or opening
  var open = false; // the stream is up: no polling
  var timer = null; // the next poll
  var retry = null; // the next try of a refused stream
  var wait = POLL;
  var fetching = false;
  var again = false; // a change came while the page was being fetched
  var over = false; // the game (or league) is over: nothing more will come
  var stale = false; // the bar is shown: nothing more is put in place
  var leaving = false; // the page reloads itself: not "away"
  var applying = false; // our own "pbem:page"
  var pages = 0; // pages tap to play put in place: a fetch begun before one is dropped
  var changedForms = []; // forms the player changed and has not sent
  var regions = []; // main's parts: {key, node, html}, html as the server wrote it
  var scripts = {}; // scripts the document has run, by address

  // --- the page's parts ------------------------------------------------------------

  // A part's name: its id, else its tag and classes, counted among its like.
  function keysOf(children) {
    var seen = {};
    return children.map(function (node) {
      var name = node.id ? "#" + node.id : node.tagName + "." + String(node.className).trim();
      seen[name] = (seen[name] || 0) + 1;
      return name + "@" + seen[name];
    });
  }

  // A part's HTML as the server wrote it, less what differs on every answer (form tokens).
  function htmlOf(node) {
    var copy = node.cloneNode(true);
    var tokens = copy.querySelectorAll('input[name="csrf"]');
    for (var i = 0; i < tokens.length; i++) {
      tokens[i].removeAttribute("value");
    }
    return copy.outerHTML;
  }

  function partsOf(root) {
    var children = Array.prototype.slice.call(root.children);
    var keys = keysOf(children);
    return children.map(function (node, i) {
      return { key: keys[i], node: node, html: htmlOf(node) };
    });
  }

  // Read as the page comes, before other scripts change it (this script runs first).
  function remember() {
    main = document.querySelector("main");
    regions = main ? partsOf(main) : [];
    var all = document.querySelectorAll("script[src]");
    for (var i = 0; i < all.length; i++) {
      scripts[all[i].src] = true;
    }
  }

  function holdsChoice(node) {
    if (pageHeld) {
      return true; // a review, or the answer to a form: never replaced under the player
    }
    for (var i = 0; i < changedForms.length; i++) {
      if (node === changedForms[i] || node.contains(changedForms[i])) {
        return true;
      }
    }
    return false;
  }

  // A script in a part put in place runs, as it would in a page loaded anew: a plain
  // script again (it sets up the part it came with), a module only once per document (tap
  // to play hears "pbem:page" instead). A script parsed by DOMParser never runs: a new
  // element with its attributes does.
  function runnable(old) {
    if (old.type === "module" && scripts[old.src]) {
      return old;
    }
    var fresh = document.createElement("script");
    for (var j = 0; j < old.attributes.length; j++) {
      fresh.setAttribute(old.attributes[j].name, old.attributes[j].value);
    }
    scripts[old.src] = true;
    return fresh;
  }

  function withScripts(node) {
    if (node.matches("script[src]")) {
      return runnable(node);
    }
    var found = node.querySelectorAll("script[src]");
    for (var i = 0; i < found.length; i++) {
      var run = runnable(found[i]);
      if (run !== found[i]) {
        found[i].replaceWith(run);
      }
    }
    return node;
  }

  // Boxes the reader opened or closed keep that state in the part that replaces theirs.
  function keepOpen(from, to) {
    var before = from.querySelectorAll("details");
    var after = to.querySelectorAll("details");
    if (before.length !== after.length) {
      return;
    }
    for (var i = 0; i < after.length; i++) {
      after[i].open = before[i].open;
    }
  }

  // Put the fetched page's changed parts in place; false when one of them would replace
  // a part holding the player's choice (nothing is changed then).
  function putInPlace(doc) {
    var fresh = doc.querySelector("main");
    if (!fresh || !main) {
      return false;
    }
    var old = {};
    regions.forEach(function (part) {
      old[part.key] = part;
    });
    var next = partsOf(fresh).map(function (part) {
      var was = old[part.key];
      if (was && was.html === part.html && was.node.parentNode === main) {
        return { key: part.key, html: part.html, node: was.node, kept: true, was: was };
      }
      return { key: part.key, html: part.html, node: part.node, kept: false, was: was };
    });
    var kept = next.filter(function (p) { return p.kept; }).map(function (p) { return p.node; });
    var gone = regions.filter(function (part) { return kept.indexOf(part.node) < 0; });
    if (gone.some(function (part) { return holdsChoice(part.node); })) {
      return false;
    }
    var focused = document.activeElement;
    var focusId = focused && focused.id && !kept.some(function (n) { return n.contains(focused); })
      ? focused.id : "";
    gone.forEach(function (part) {
      if (part.node.parentNode === main) {
        part.node.remove();
      }
    });
    var before = null; // the part placed last
    next.forEach(function (part) {
      if (part.kept) {
        before = part.node;
        return;
      }
      var node = withScripts(document.importNode(part.node, true));
      if (part.was) {
        keepOpen(part.was.node, node);
      }
      main.insertBefore(node, before ? before.nextSibling : main.firstChild);
      part.node = node;
      before = node;
    });
    regions = next.map(function (part) {
      return { key: part.key, node: part.node, html: part.html };
    });
    changedForms = changedForms.filter(function (form) { return form.isConnected; });
    document.title = doc.title || document.title;
    if (focusId && document.getElementById(focusId)) {
      document.getElementById(focusId).focus({ preventScroll: true });
    }
    return true;
  }

  // The moves that came since `since` marked, and said for screen readers.
  function mark(since) {
    var lines = [];
    var items = document.querySelectorAll("ol.log > li[value]");
    for (var i = 0; i < items.length; i++) {
      // An entry's value is its ply + 1: a move made at the ply shown before, or later.
      if (Number(items[i].getAttribute("value")) > Number(since)) {
        items[i].classList.add("arrived");
        lines.push(items[i].textContent.replace(/\s+/g, " ").trim());
      }
    }
    if (lines.length && news) {
      // Said a moment after the change, so that screen readers hear the region change.
      var region = news;
      window.setTimeout(function () {
        region.textContent = region.getAttribute("data-label") + " " + lines.join(" ");
      }, 300);
    }
  }

  // --- the .live element ------------------------------------------------------------

  function bind() {
    live = document.querySelector(".live[data-page]");
    if (!live) {
      finish(); // over: nothing more will come
      return;
    }
    stream = live.getAttribute("data-stream");
    pollUrl = live.getAttribute("data-poll");
    pageUrl = live.getAttribute("data-page");
    shown = live.getAttribute("data-version");
    ply = live.getAttribute("data-ply");
    pageHeld = live.getAttribute("data-hold") === "1";
    bar = live.querySelector(".moved-on");
    news = live.querySelector(".live-news");
    away = live.querySelector("form.away");
    // What the page says happens, now that it happens: the live words in place of the
    // reload link's and the mail's.
    var texts = document.querySelectorAll("[data-live-text]");
    for (var i = 0; i < texts.length; i++) {
      texts[i].hidden = false;
    }
    var plain = document.querySelectorAll("[data-static-text]");
    for (var j = 0; j < plain.length; j++) {
      plain[j].hidden = true;
    }
    // The bar's link shows the new moves by a reload: marked as they are here.
    bar.querySelector("a").addEventListener("click", function () {
      try {
        window.sessionStorage.setItem(key, ply);
      } catch (e) {
        // the link works without it
      }
      leaving = true;
    });
  }

  function finish() {
    over = true;
    window.clearTimeout(timer);
    window.clearTimeout(retry);
    if (source) {
      source.close();
      source = null;
    }
    open = false;
  }

  function movedOn() {
    if (bar) {
      bar.hidden = false;
    }
    stale = true; // nothing more is put in place: the player chooses when (the stream
    window.clearTimeout(timer); // stays open: they are looking)
  }

  // --- fetching the page anew -------------------------------------------------------

  function address() {
    // The page as the reader has it: the whole log if they asked for it.
    var whole = /[?&]log=all\b/.test(window.location.search);
    return pageUrl + (whole ? (pageUrl.indexOf("?") < 0 ? "?" : "&") + "log=all" : "");
  }

  function refresh() {
    if (over || stale) {
      return;
    }
    if (fetching) {
      again = true;
      return;
    }
    fetching = true;
    again = false;
    var since = ply;
    var turn = pages;
    fetch(address(), { credentials: "same-origin", cache: "no-store" })
      .then(function (reply) {
        return reply.ok ? reply.text() : null;
      })
      .then(function (html) {
        fetching = false;
        if (html === null) {
          return; // a passing failure: the next change, or poll, fetches again
        }
        // Tap to play put its own answer in place while this fetch was under way (the
        // stream tells of the player's own move before its Send is answered): what came is
        // dropped, lest it take "Your move is in" with it, and the page is asked for again
        // as it now stands (which does nothing once the game is over).
        if (turn !== pages) {
          refresh();
          return;
        }
        var doc = new DOMParser().parseFromString(html, "text/html");
        // A page no newer than the one shown changes nothing.
        var fetched = doc.querySelector(".live[data-page]");
        if (fetched && shown !== null &&
            Number(fetched.getAttribute("data-version")) <= Number(shown)) {
          if (again) {
            refresh();
          }
          return;
        }
        if (!putInPlace(doc)) {
          movedOn();
          return;
        }
        applying = true;
        try {
          bind();
          document.dispatchEvent(new CustomEvent("pbem:page", { detail: { live: true } }));
        } finally {
          applying = false;
        }
        mark(since);
        if (again) {
          refresh();
        }
      })
      .catch(function () {
        fetching = false;
      });
  }

  function heard(facts) {
    if (over || stale || !facts || String(facts.version) === shown) {
      return;
    }
    refresh();
  }

  // --- the stream, and the poll while it is down --------------------------------------

  function connect() {
    if (!stream || source || over || document.hidden || !window.EventSource) {
      return;
    }
    source = new window.EventSource(stream);
    source.addEventListener("changed", function (event) {
      up();
      try {
        heard(JSON.parse(event.data));
      } catch (e) {
        // not ours: ignored
      }
    });
    source.addEventListener("open", up);
    source.addEventListener("error", function () {
      open = false;
      if (source && source.readyState === window.EventSource.CLOSED) {
        // Refused (or gone for good): poll, and try the stream again later.
        source = null;
        window.clearTimeout(retry);
        retry = window.setTimeout(connect, STREAM_AGAIN);
      }
      later(0);
    });
  }

  function up() {
    open = true;
    wait = POLL;
    window.clearTimeout(timer);
  }

  function later(ms) {
    window.clearTimeout(timer);
    if (!over && !stale && !open && !document.hidden && pollUrl) {
      timer = window.setTimeout(look, ms);
    }
  }

  function look() {
    if (over || stale || open || document.hidden) {
      return;
    }
    var headers = shown !== null ? { "If-None-Match": '"' + shown + '"' } : {};
    fetch(pollUrl, { credentials: "same-origin", cache: "no-store", headers: headers })
      .then(function (reply) {
        if (reply.status === 304) {
          return { version: shown };
        }
        return reply.ok ? reply.json() : null;
      })
      .then(function (facts) {
        wait = facts ? POLL : Math.min(wait * 2, SLOWEST);
        heard(facts);
        later(wait);
      })
      .catch(function () {
        wait = Math.min(wait * 2, SLOWEST);
        later(wait);
      });
  }

  // --- the player at work, and away -------------------------------------------------

  // A choice under way: any input or change in a form of the page (tap to play checks
  // real inputs and dispatches "change" on its form too).
  function changed(event) {
    var target = event.target;
    var form = target && (target.form || (target.closest && target.closest("form")));
    if (form && changedForms.indexOf(form) < 0) {
      changedForms.push(form);
    }
  }
  document.addEventListener("input", changed, true);
  document.addEventListener("change", changed, true);

  // Tap to play put a new page's main part in place after its Send: read it as it came.
  document.addEventListener("pbem:page", function () {
    if (applying) {
      return;
    }
    pages += 1;
    remember();
    changedForms = [];
    over = stale = false;
    bind();
    if (!over) {
      connect();
      later(0);
    }
  });

  // Hidden or left: the player no longer looks. (Not when the page reloads itself.)
  function gone() {
    if (!away || leaving || !navigator.sendBeacon) {
      return;
    }
    navigator.sendBeacon(away.getAttribute("action"), new FormData(away));
  }

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) {
      window.clearTimeout(timer);
      if (source) {
        source.close();
        source = null;
      }
      open = false;
      gone();
    } else if (!over) {
      wait = POLL;
      connect(); // its first event says where the game is now (or that the bar stands)
      later(0);
    }
  });
  window.addEventListener("pagehide", gone);

  // --- start ------------------------------------------------------------------------

  remember();
  bind();

  // Back after the bar's reload: mark the moves that came since the page before.
  var before = null;
  try {
    before = window.sessionStorage.getItem(key);
    window.sessionStorage.removeItem(key);
  } catch (e) {
    before = null;
  }
  if (before !== null && before !== ply) {
    mark(before);
  }

  if (!over) {
    connect();
    // The first poll at once without a stream: it tells the server the player is looking.
    later(stream && window.EventSource ? POLL : 0);
  }
})();
