// A tournament's standings at /play/tournament?id=…: read once (GET /v1/tournaments/{id}), then again
// on each event of its stream (GET /v1/tournaments/{id}/events) until it ends. Standings with their
// 95% intervals, the head-to-head table and a link to every game's replay; the commitment from the
// start and the key once it is over (docs/fairness.md: every game's key follows from it).

import { h } from "./dom.js";

/** @typedef {import("../../../examples/client/atout-api").components["schemas"]} Schemas */
/** @typedef {Schemas["Tournament"]} Tournament */

const app = /** @type {HTMLElement} */ (document.getElementById("app"));
const id = new URLSearchParams(location.search).get("id") ?? "";

/** @param {number | null | undefined} x */
function signed(x) {
  return x === null || x === undefined ? "n/a" : (x >= 0 ? "+" : "") + x.toFixed(2);
}

/** @param {Tournament} t */
function render(t) {
  const names = t.entrants.map((e) => e.name);
  const name = (/** @type {number} */ i) => names[i] ?? String(i);
  const standings = h(
    "table",
    { class: "standings", "aria-label": "Standings" },
    h("thead", {}, h("tr", {}, ...["Rank", "Entrant", "Points/deal", "95% interval", "Wins", "Games", "Flagged"].map((c) => h("th", {}, c)))),
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
    { class: "head-to-head", "aria-label": "Head to head" },
    h("thead", {}, h("tr", {}, h("th", {}, "Entrant"), h("th", {}, "Opponent"), h("th", {}, "Wins"), h("th", {}, "Points/deal"))),
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
        `Round ${g.round}, table ${g.table}, deal ${g.deal}${g.seating ? " (swapped)" : ""}: ${name(g.a)} ${g.a_score ?? "–"} – ${g.b_score ?? "–"} ${name(g.b)} `,
        h("a", { class: "replay", href: g.replay }, "replay"),
      ),
    ),
  );
  app.replaceChildren(
    h("h1", {}, t.name || `Tournament ${t.id}`),
    h("p", { class: "status", "data-status": t.status }, `${t.game}, ${t.format.replace("_", " ")}: round ${t.round} of ${t.rounds} — ${t.status}`),
    h("p", { class: "commitment" }, `Commitment: ${t.commitment}`),
    ...(t.key ? [h("p", { class: "key" }, `Key: ${t.key}`)] : []),
    standings,
    h("h2", {}, "Head to head"),
    headToHead,
    h("h2", {}, "Games"),
    games,
  );
}

async function load() {
  const response = await fetch(`/v1/tournaments/${encodeURIComponent(id)}`);
  if (!response.ok) {
    app.replaceChildren(h("p", { class: "error" }, `No tournament ${id} (${response.status}).`));
    return null;
  }
  const t = /** @type {Tournament} */ (await response.json());
  render(t);
  return t;
}

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
