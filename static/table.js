// Tap to play (Colour Bazaar): tap a card of your hand, tap a lit market, tap a chip, and a
// bar at the bottom of the screen says how the move will read in the log, with Send and
// Change. It drives the page's own form: the radios it checks are the ones a player without
// JavaScript checks, the review comes from the server ("Review the move", as that player
// gets it), and Send posts the review's own form. The server stays the one judge of what is
// legal; this script only shows the choices the page already holds.
//
// A plan's answer (templates/game/_plan.html) is tapped the same way on the table as it
// would be after their move, the plan form's own board: the chip adds the line to the plan.

import { showPlan } from "./plan.js";

const fill = (text, values) => text.replace(/\{(\w+)\}/g, (_, key) => values[key] ?? "");

async function fetchPage(url, body) {
  const reply = await fetch(url, { method: "POST", body, credentials: "same-origin" });
  const html = await reply.text();
  return { reply, doc: new DOMParser().parseFromString(html, "text/html") };
}

function setUp(form) {
  if (form.dataset.tapping) return;
  form.dataset.tapping = "1";
  const say = (key) => form.dataset[`say${key}`] || "";
  const section = form.closest("section");
  const planning = form.classList.contains("plan-form");
  const board = form.querySelector(".board") || document.querySelector("section.board");
  const markets = board ? [...board.querySelectorAll(".market")] : [];
  const holders = [...form.querySelectorAll(".at-card[data-card]")];
  const chips = [...form.querySelectorAll('input[name="chip"]')];
  const discarding = !!form.querySelector(".discarding");
  section.classList.add("tapping");
  document.body.classList.add("with-bar");

  // The bar: what to do next, then the move in words with Send and Change.
  const bar = document.createElement("div");
  bar.className = "tapbar";
  bar.setAttribute("role", "region");
  bar.setAttribute("aria-label", say("Label"));
  if (planning) bar.dataset.plan = "1";
  bar.tapForm = form; // the bar goes when its form leaves the page (refresh)
  const line = document.createElement("p");
  line.className = "say";
  line.setAttribute("aria-live", "polite");
  const suits = document.createElement("div");
  suits.className = "suit-pick";
  const acts = document.createElement("div");
  acts.className = "acts";
  const send = document.createElement("button");
  send.type = "button";
  send.className = "send";
  send.textContent = say("Send");
  const change = document.createElement("button");
  change.type = "button";
  change.className = "secondary change";
  change.textContent = say("Change");
  acts.append(send, change);
  bar.append(line, suits, acts);
  document.body.append(bar);

  let picked = null; // the .at-card chosen
  let reviewed = null; // the review page's send form, once the server has checked the move
  let asked = 0; // so that a late answer to an older choice is dropped

  const playRadios = (holder) => [...holder.querySelectorAll('input[name="play"]')];
  const chosenPlay = () => form.querySelector('input[name="play"]:checked');
  const chosenChip = () => chips.find((c) => c.checked);

  // Each card of the hand becomes a button; the card face moves into it.
  const buttons = holders.map((holder) => {
    const face = holder.querySelector(".card");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "pick";
    button.setAttribute("aria-pressed", "false");
    if (!playRadios(holder).length) {
      button.disabled = true;
    }
    holder.prepend(button);
    button.append(face);
    button.addEventListener("click", () => pick(holder));
    return button;
  });

  // Each market gets a button over it, shown only when the picked card may go there.
  const targets = markets.map((market) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "here";
    button.hidden = true;
    market.append(button);
    button.addEventListener("click", () => place(market.dataset.market));
    return button;
  });

  function show(text) {
    line.textContent = text;
  }

  function clearBoard() {
    board?.classList.remove("choosing");
    markets.forEach((m) => m.classList.remove("legal"));
    targets.forEach((t) => { t.hidden = true; });
  }

  function pick(holder) {
    picked = holder;
    reviewed = null;
    buttons.forEach((b, i) => b.setAttribute("aria-pressed", String(holders[i] === holder)));
    form.querySelectorAll('input[name="play"]:checked').forEach((r) => { r.checked = false; });
    suits.replaceChildren();
    clearBoard();
    if (discarding) {
      playRadios(holder)[0].checked = true;
      changed();
      return;
    }
    const name = holder.dataset.name;
    board?.classList.add("choosing");
    const where = new Set(playRadios(holder).map((r) => r.dataset.market));
    markets.forEach((market, i) => {
      if (where.has(market.dataset.market)) {
        market.classList.add("legal");
        targets[i].hidden = false;
        targets[i].setAttribute("aria-label", fill(say("Here"), { card: name, market: market.dataset.market }));
      }
    });
    show(fill(say("Market"), { card: name }));
    const first = targets.find((t) => !t.hidden);
    if (first && board) first.focus({ preventScroll: true });
  }

  function place(marketNumber) {
    if (!picked) return;
    const radios = playRadios(picked).filter((r) => r.dataset.market === marketNumber);
    markets.forEach((m) => m.classList.toggle("chosen", m.dataset.market === marketNumber));
    clearBoard();
    suits.replaceChildren();
    if (radios.length === 1) {
      radios[0].checked = true;
      changed();
      return;
    }
    // A Court names one of its suits in a royal edict: one button per suit.
    show(say("Suit"));
    radios.forEach((radio) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "secondary";
      button.textContent = radio.dataset.suitName;
      button.addEventListener("click", () => {
        radio.checked = true;
        suits.replaceChildren();
        changed();
      });
      suits.append(button);
    });
  }

  function reset() {
    picked = null;
    reviewed = null;
    form.reset();
    buttons.forEach((b) => b.setAttribute("aria-pressed", "false"));
    markets.forEach((m) => m.classList.remove("chosen"));
    suits.replaceChildren();
    clearBoard();
    ready();
  }

  // Whenever a choice changes: say what is missing, or ask the server for the review.
  function changed() {
    form.dispatchEvent(new Event("change", { bubbles: true }));
    reviewed = null;
    ready();
    if (chosenPlay() && chosenChip()) (planning ? addLine : review)();
  }

  // A plan's line is kept as soon as it is whole: it is listed with a Remove button.
  async function addLine() {
    const mine = ++asked;
    show(say("Wait"));
    try {
      const reply = await fetch(form.action, {
        method: "POST", body: new FormData(form), credentials: "same-origin",
      });
      if (mine !== asked) return;
      if (!reply.ok) throw new Error(`${reply.status}`);
      await showPlan(reply);
    } catch (error) {
      form.submit();
    }
  }

  function ready() {
    send.hidden = true;
    change.hidden = !(picked || chosenChip());
    if (!chosenPlay()) show(discarding ? say("Discard") : picked ? line.textContent : say("Card"));
    else if (!chosenChip()) show(say("Chip"));
  }

  async function review() {
    const mine = ++asked;
    show(say("Wait"));
    try {
      const { reply, doc } = await fetchPage(form.action, new FormData(form));
      if (mine !== asked) return;
      const confirm = doc.querySelector("#confirm");
      if (reply.ok && confirm) {
        reviewed = confirm.querySelector("form.send");
        show([...confirm.querySelectorAll(".review li")].map((li) => li.textContent.trim()).join(" "));
        send.hidden = false;
        change.hidden = false;
        send.focus({ preventScroll: true });
        return;
      }
      const problem = doc.querySelector(".error, .move-error");
      show(problem ? problem.textContent.trim() : `${reply.status}`);
    } catch (error) {
      form.submit(); // no answer by fetch: the ordinary form does the same, page by page
    }
  }

  send.addEventListener("click", async () => {
    if (!reviewed) return;
    send.disabled = true;
    try {
      const { reply, doc } = await fetchPage(reviewed.action, new FormData(reviewed));
      const main = doc.querySelector("main");
      if (!main) throw new Error("no page");
      // The page after the move, without a reload: its main part, title and address.
      document.querySelector("main").replaceWith(main);
      document.title = doc.title;
      history.replaceState(null, "", reply.url);
      bar.remove();
      document.body.classList.remove("with-bar");
      window.scrollTo(0, 0);
      document.dispatchEvent(new CustomEvent("pbem:page"));
      start();
    } catch (error) {
      document.body.append(reviewed);
      reviewed.submit();
    } finally {
      send.disabled = false;
    }
  });
  change.addEventListener("click", reset);
  chips.forEach((chip) => chip.addEventListener("change", () => { if (chip.checked) changed(); }));
  ready();
}

function start() {
  document.querySelectorAll("form.move-form, form.plan-form").forEach(setUp);
}

// A newer part of the page was put in place (the plan's, "pbem:plan"; the live page's,
// static/live.js, or the page after Send, "pbem:page"): a bar whose form left the page goes with it, and a
// new form gets its taps (setUp passes over a form it has set up already).
function refresh() {
  document.querySelectorAll(".tapbar").forEach((bar) => {
    if (!bar.tapForm?.isConnected) bar.remove();
  });
  if (!document.querySelector(".tapbar")) document.body.classList.remove("with-bar");
  start();
}

document.addEventListener("pbem:plan", refresh);
document.addEventListener("pbem:page", refresh);
start();
