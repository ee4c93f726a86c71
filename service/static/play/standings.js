// A tournament's standings at /play/tournament?id=…: read once (GET /v1/tournaments/{id}), then again
// on each event of its stream (GET /v1/tournaments/{id}/events) until it ends. Standings with their
// 95% intervals, the head-to-head table and a link to every game's replay; the commitment from the
// start and the key once it is over (docs/fairness.md: every game's key follows from it). In English
// or French, the language the table chose (the same toggle, kept in localStorage).

import { h } from "./dom.js";
import { WORDS, fill } from "./i18n.js";

/** @typedef {import("../../../examples/client/atout-api").components["schemas"]} Schemas */
/** @typedef {Schemas["Tournament"]} Tournament */
/** @typedef {import("./i18n.js").Lang} Lang */

const app = /** @type {HTMLElement} */ (document.getElementById("app"));
const id = new URLSearchParams(location.search).get("id") ?? "";
/** @type {Lang} */
let lang = localStorage.getItem("atout:lang") === "fr" ? "fr" : "en";
/** @type {Tournament | null} */
let shown = null;
/** @type {number | null} */
let missing = null;

/** @param {number | null | undefined} x */
function signed(x) {
  return x === null || x === undefined ? WORDS[lang].tournament.none : (x >= 0 ? "+" : "") + x.toFixed(2);
}

/** @param {Tournament} t */
function render(t) {
  const all = WORDS[lang];
  const w = all.tournament;
  const names = t.entrants.map((e) => e.name);
  const name = (/** @type {number} */ i) => names[i] ?? String(i);
  const standings = h(
    "table",
    { class: "standings", "aria-label": w.standings },
    h("thead", {}, h("tr", {}, ...w.columns.map((c) => h("th", {}, c)))),
    h(
      "tbody",
      {},
      ...t.standings.map((s) =>
        h(
          "tr",
          { "data-entrant": String(s.entrant) },
          h("td", {}, String(s.rank)),
          h("td", {}, name(s.entrant)),
          h("td", {}, signed(s.points_per_deal)),
          h("td", {}, `${signed(s.ci95_low)} .. ${signed(s.ci95_high)}`),
          h("td", {}, String(s.wins)),
          h("td", {}, String(s.games)),
          h("td", {}, String(s.flagged_games)),
        ),
      ),
    ),
  );
  const headToHead = h(
    "table",
    { class: "head-to-head", "aria-label": w.headToHead },
    h("thead", {}, h("tr", {}, ...w.pairColumns.map((c) => h("th", {}, c)))),
    h(
      "tbody",
      {},
      ...t.head_to_head.map((r) =>
        h("tr", {}, h("td", {}, name(r.entrant)), h("td", {}, name(r.opponent)), h("td", {}, `${r.wins} / ${r.games}`), h("td", {}, signed(r.points_per_deal))),
      ),
    ),
  );
  const games = h(
    "ul",
    { class: "games" },
    ...t.games.map((g) =>
      h(
        "li",
        {},
        fill(w.game, {
          round: g.round, table: g.table, deal: g.deal, swapped: g.seating ? w.swapped : "",
          a: name(g.a), aScore: g.a_score ?? "–", bScore: g.b_score ?? "–", b: name(g.b),
        }),
        h("a", { class: "replay", href: g.replay }, w.replay),
      ),
    ),
  );
  const game = /** @type {Record<string, string>} */ (all.games)[t.kind] ?? t.kind;
  const format = /** @type {Record<string, string>} */ (w.formats)[t.format] ?? t.format;
  const status = w.statuses[t.status];
  app.replaceChildren(
    h("h1", {}, t.name || fill(w.named, { id: t.tournament_id })),
    h("p", { class: "status", "data-status": t.status }, fill(w.status, { game, format, round: t.round, rounds: t.rounds, status })),
    h("p", { class: "commitment" }, fill(w.commitment, { value: t.commitment })),
    ...(t.key ? [h("p", { class: "key" }, fill(w.key, { value: t.key }))] : []),
    standings,
    h("h2", {}, w.headToHead),
    headToHead,
    h("h2", {}, w.games),
    games,
  );
}

function renderAll() {
  const all = WORDS[lang];
  document.documentElement.lang = lang;
  document.title = all.tournament.title;
  const toggle = /** @type {HTMLButtonElement} */ (document.getElementById("lang"));
  toggle.textContent = all.other;
  toggle.setAttribute("aria-label", all.otherLabel);
  /** @type {HTMLAnchorElement} */ (document.getElementById("home")).textContent = all.lobby;
  if (shown) render(shown);
  else if (missing !== null) {
    app.replaceChildren(h("p", { class: "error" }, fill(all.tournament.missing, { id, status: missing })));
  }
}

async function load() {
  const response = await fetch(`/v1/tournaments/${encodeURIComponent(id)}`);
  if (!response.ok) {
    missing = response.status;
    renderAll();
    return null;
  }
  shown = /** @type {Tournament} */ (await response.json());
  render(shown);
  return shown;
}

renderAll();
/** @type {HTMLButtonElement} */ (document.getElementById("lang")).addEventListener("click", () => {
  lang = lang === "en" ? "fr" : "en";
  localStorage.setItem("atout:lang", lang);
  renderAll();
});
const first = await load();
if (first && first.status === "running") {
  const events = new EventSource(`/v1/tournaments/${encodeURIComponent(id)}/events`);
  let pending = false;
  let again = false;
  const refresh = async () => {
    if (pending) {
      again = true; // one read at a time, and one more after it: the last event is never missed
      return;
    }
    pending = true;
    let t = await load();
    while (again) {
      again = false;
      t = await load();
    }
    pending = false;
    if (!t || t.status !== "running") events.close();
  };
  // Each event comes under its own SSE name (its type).
  for (const type of ["tournament_created", "round_started", "game_finished", "round_finished", "tournament_finished"]) {
    events.addEventListener(type, refresh);
  }
}
