// Plan ahead on the table (two-player Colour Bazaar): their move is one tap, a market of the
// card you expect them to play; the table as it would be after it comes in place (the page a
// player without JavaScript gets by the same link), and your answer is tapped as a move is
// (static/table.js), the line going into your plan with the chip. Their moves come once the
// plan is opened (a.open-plan, the same link without JavaScript).

// The plan part of a page fetched in the background put in place of this one's.
export async function showPlan(response) {
  const doc = new DOMParser().parseFromString(await response.text(), "text/html");
  const fresh = doc.getElementById("plan");
  const old = document.getElementById("plan");
  if (!fresh || !old) {
    window.location.assign(response.url);
    return;
  }
  document.querySelectorAll(".tapbar[data-plan]").forEach((bar) => bar.remove());
  document.body.classList.remove("with-bar");
  old.replaceWith(fresh);
  history.replaceState(null, "", `${response.url.split("#")[0]}#plan`);
  // In view: the answer's table, else their moves after a line, else the plan's list.
  (fresh.querySelector("#plan-form, .plan-under") || fresh).scrollIntoView({ block: "start" });
  document.dispatchEvent(new CustomEvent("pbem:plan"));
}

async function follow(link) {
  try {
    const response = await fetch(link.href, { credentials: "same-origin" });
    if (!response.ok) throw new Error(`${response.status}`);
    await showPlan(response);
  } catch (error) {
    window.location.assign(link.href); // the plain link does the same, page by page
  }
}

document.addEventListener("click", (event) => {
  const link = event.target.closest(
    "#plan a.their, #plan a.next-link, #plan a.another, #plan a.open-plan",
  );
  if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  follow(link);
});
