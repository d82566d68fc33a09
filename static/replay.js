// Replay: the arrow keys, Home and End follow the step links (which work without JavaScript).
"use strict";
document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  const target = event.target;
  if (target && ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName)) return;
  const link = document.querySelector(`.replay a[data-key="${event.key}"]`);
  if (link) {
    event.preventDefault();
    window.location.assign(link.href);
  }
});
