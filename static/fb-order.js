/* Fantasy Business, order of sale: arrows (and dragging) to reorder the row.
   Without this script the page works as it is: each card has a numbered place to choose.
   With it, the list itself is reordered and the places follow. No inline script: CSP-safe. */
(function () {
  "use strict";

  function setUp(list) {
    if (list.getAttribute("data-ordered")) { return; } // set up already
    list.setAttribute("data-ordered", "1");
    var up = list.getAttribute("data-up") || "\u2191";
    var down = list.getAttribute("data-down") || "\u2193";

    function items() { return Array.prototype.slice.call(list.children); }

    function renumber() {
      items().forEach(function (item, index) {
        var select = item.querySelector("select");
        if (select) { select.value = String(index + 1); }
      });
  }

  function button(label, text, step) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "secondary arrow";
    b.textContent = text;
    b.setAttribute("aria-label", label);
    b.addEventListener("click", function () {
      var item = b.closest("li");
      var all = items();
      var to = all.indexOf(item) + step;
      if (to < 0 || to >= all.length) { return; }
      if (step < 0) { list.insertBefore(item, all[to]); }
      else { list.insertBefore(all[to], item); }
      renumber();
      b.focus();
    });
    return b;
  }

  // Sort the list by the places chosen so far, then let the list order drive the places.
  items().sort(function (a, b) {
    return Number(a.querySelector("select").value) - Number(b.querySelector("select").value);
  }).forEach(function (item) { list.appendChild(item); });

  var dragged = null;
  items().forEach(function (item) {
    var label = item.querySelector("label");
    if (label) { label.hidden = true; }
    item.insertBefore(button(down, "\u2193", 1), item.firstChild);
    item.insertBefore(button(up, "\u2191", -1), item.firstChild);
    item.draggable = true;
    item.addEventListener("dragstart", function () { dragged = item; });
    item.addEventListener("dragover", function (event) { event.preventDefault(); });
    item.addEventListener("drop", function (event) {
      event.preventDefault();
      if (!dragged || dragged === item) { return; }
      var all = items();
      if (all.indexOf(dragged) < all.indexOf(item)) { list.insertBefore(dragged, item.nextSibling); }
      else { list.insertBefore(dragged, item); }
      renumber();
    });
  });
  renumber();
  }

  function start() {
    var list = document.querySelector("[data-order-list]");
    if (list) { setUp(list); }
  }

  start();
  // The live page (static/live.js) may put a new order form in place: it gets its arrows.
  document.addEventListener("pbem:page", start);
})();
