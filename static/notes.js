/* Private notes: with this script, "Save my notes" (or leaving the box) keeps them without
   reloading the page. Without it the form posts and the page comes back. CSP-safe.
   "My notes" at the top of the page opens them where they are (and what holds them: a
   closed part of the page) and puts the cursor in them; without the script it loads the
   whole page with them open. */
(function () {
  "use strict";
  var form = document.querySelector("form.notes-form");
  if (!form) { return; }
  var link = document.querySelector("a.to-notes");
  if (link) {
    link.addEventListener("click", function (event) {
      event.preventDefault();
      for (var part = form.closest("details"); part; part = part.parentElement.closest("details")) {
        part.open = true;
      }
      form.closest("section").scrollIntoView({ block: "start" });
      form.querySelector("textarea").focus({ preventScroll: true });
    });
  }
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
