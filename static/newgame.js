// The new-game form (issue 31), for the page's own look only: the server reads the form
// the same with or without this script.
// - "Who plays first" names each seat as its row is filled in: the typed name, else the
//   row's legend ("You", "Player 2"), with the computer level for a computer seat.
// - The button says "Start the game" when every other seat is a computer (nobody is
//   invited), and "Send the invitations" otherwise (its text without the script).
// - Only the chosen clock kind's fields show (without the script each kind's fieldset shows
//   its own, under its radio).
const form = document.querySelector("form.new-game");

function seatLabel(fieldset) {
  const legend = fieldset.querySelector("legend").textContent.trim();
  const kind = fieldset.querySelector("select.seat-kind");
  if (kind && kind.value) {
    return `${legend} (${kind.selectedOptions[0].textContent.trim()})`;
  }
  const name = fieldset.querySelector("input[name^='name_']").value.trim();
  return name || legend;
}

function update() {
  const seats = new Map();
  let computers = 0;
  let invited = 0;
  for (const fieldset of form.querySelectorAll("fieldset.player")) {
    seats.set(fieldset.dataset.seat, seatLabel(fieldset));
    const kind = fieldset.querySelector("select.seat-kind");
    if (!kind) continue; // the creator's own row
    const typed = [...fieldset.querySelectorAll(".person input")].some((i) => i.value.trim());
    if (kind.value) computers += 1;
    else if (typed) invited += 1;
  }
  for (const option of form.querySelectorAll("select.seat-names option[data-seat]")) {
    const label = seats.get(option.dataset.seat);
    if (label && option.textContent !== label) option.textContent = label;
  }
  for (const kind of form.querySelectorAll("fieldset.clock-kind")) {
    const chosen = kind.querySelector("legend input[type=radio]").checked;
    for (const fields of kind.querySelectorAll(".kind-fields")) fields.hidden = !chosen;
  }
  const start = computers > 0 && invited === 0;
  form.querySelector("button[type=submit] .invite").hidden = start;
  form.querySelector("button[type=submit] .start").hidden = !start;
}

if (form) {
  form.addEventListener("input", update);
  form.addEventListener("change", update);
  update();
}
