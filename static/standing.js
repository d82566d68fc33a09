/* Standing orders (Fantasy Business), kept in place: the forms post as they would without
   this script, the page that answers is read, and its standing-orders part (the orders as
   kept, "Kept: ...") replaces this one, the answer said in the same status line. When the
   orders played a move at once (the log grew, or the step's form changed), the answering
   page is shown whole instead. Without this script each form posts and the page after
   says the same. The live page (static/live.js) may put a new part in place: the forms
   are heard from the document, whichever part holds them now, and once however often
   the script runs. */
(function () {
  "use strict";
  if (window.pbemStanding || !window.fetch || !window.DOMParser) { return; }
  window.pbemStanding = true;
  var part = null;

  // What a move changes: the step's turn token, and the number of the log's last move.
  function movedOf(doc) {
    var field = doc.querySelector("#turn input[name=turn]");
    var last = doc.querySelector("#log ol.log > li:last-child");
    return (field ? field.value : "") + "|" + (last ? last.getAttribute("value") : "");
  }

  function swap(fresh) {
    var answer = part.querySelector(".standing-answer");
    var said = fresh.querySelector(".standing-answer");
    part.querySelector("summary").innerHTML = fresh.querySelector("summary").innerHTML;
    part.querySelector(".standing-forms").innerHTML = fresh.querySelector(".standing-forms").innerHTML;
    part.open = true;
    // The status line stays the same element, so that a screen reader hears its new words.
    answer.textContent = "";
    window.setTimeout(function () { answer.textContent = said ? said.textContent : ""; }, 50);
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement)) { return; }
    part = form.closest("#standing");
    if (!part) { return; }
    event.preventDefault();
    var buttons = form.querySelectorAll("button");
    Array.prototype.forEach.call(buttons, function (b) { b.disabled = true; });
    fetch(form.action, { method: "POST", body: new FormData(form), credentials: "same-origin" })
      .then(function (response) {
        return response.text().then(function (html) { return { response: response, html: html }; });
      })
      .then(function (got) {
        var doc = new DOMParser().parseFromString(got.html, "text/html");
        var fresh = doc.getElementById("standing");
        if (!got.response.ok || !fresh || movedOf(doc) !== movedOf(document)) {
          window.location.assign(got.response.url);
          return;
        }
        swap(fresh);
      })
      .catch(function () { form.submit(); });
  });
})();
