// The reference web table: a lobby (my games, Play now, a new table), a table for each of the three games,
// live by EventSource. It uses only the public API (REST and the event streams), as any front end
// would. The page plays as a guest player (player.js): its token, kept in localStorage, holds every
// seat the page took, so a table opened in a second tab or after a reload (/play?game=<id>) goes on.
// No build step: plain ES modules, checked by `tsc --checkJs` against the types generated from
// openapi/openapi.json.
import * as api from "./api.js";
import { back, face } from "./cards.js";
import { h } from "./dom.js";
import { verifyHand, verifyKey } from "./fair.js";
import { WORDS, cardName, fill } from "./i18n.js";
import { MyGames, myGamesSection } from "./mygames.js";
import { checkedPlayer, ensurePlayer, listen, tell } from "./player.js";
import { Search, queue } from "./playnow.js";

/** @typedef {import("./api.js").View} View */
/** @typedef {import("./api.js").LegalAction} LegalAction */
/** @typedef {import("./api.js").Action} Action */
/** @typedef {import("./api.js").GameEvent} GameEvent */
/** @typedef {import("./api.js").GameSummary} GameSummary */
/** @typedef {import("./api.js").Schemas["GameRules"]} GameRules */
/** @typedef {import("./i18n.js").Lang} Lang */
/** @typedef {import("./fair.js").HandProof} HandProof */
/** @typedef {import("./player.js").Player} Player */
/** @typedef {import("./player.js").Message} Message */
/** @typedef {import("./playnow.js").Kind} Kind */
/** @typedef {import("./playnow.js").Outcome} Outcome */

/**
 * The seat this page plays: ``token`` is the player's, which holds it.
 * @typedef {object} Seated
 * @property {string} gameId
 * @property {string} token
 * @property {number} seat
 */

const root = /** @type {HTMLElement} */ (document.getElementById("app"));
const params = new URLSearchParams(window.location.search);

const state = {
  /** @type {Lang} */
  lang: localStorage.getItem("atout:lang") === "fr" ? "fr" : "en",
  /** @type {Record<string, GameRules>} */
  rules: {},
  /** the guest this browser plays as; none until the first seat taken @type {Player | null} */
  player: null,
  /** the lobby's list of the player's games */
  mine: new MyGames(),
  /** a Play-now ticket waiting for its table, shown instead of the lobby @type {Search | null} */
  search: null,
  /** @type {Seated | null} */
  seated: null,
  /** @type {import("./api.js").ViewResponse | null} */
  view: null,
  /** @type {import("./api.js").Turn | null} */
  legal: null,
  /** @type {GameSummary | null} */
  summary: null,
  /** @type {Set<string>} */
  selected: new Set(),
  noTrump: false,
  /** the events told in "What happened", in words of the language shown @type {GameEvent[]} */
  log: [],
  /** @type {string | null} */
  error: null,
  /** @type {EventSource | null} */
  source: null,
  busy: false,
  /** moves this page has sent: a read begun before the last one is stale, never drawn */
  sent: 0,
  /** what the stream revealed for the deal checks */
  proofs: {
    /** @type {string[] | null} */
    clientSeeds: null,
    /** @type {Map<number, Partial<HandProof>>} */
    hands: new Map(),
    /** @type {Map<number, boolean>} */
    verified: new Map(),
    keyVerified: /** @type {boolean | null} */ (null),
  },
};

function words() {
  return WORDS[state.lang];
}

/**
 * A card as a button, named by its face (its spoken name, or ``label``).
 * @param {string} card
 * @param {Record<string, unknown>} attributes
 * @param {string} [label]
 * @returns {HTMLElement}
 */
function cardButton(card, attributes, label) {
  const button = h("button", { type: "button", class: "card", "data-card": card, ...attributes });
  button.append(face(card, label ?? cardName(words(), card)));
  return button;
}

/** @param {string} card @returns {HTMLElement} */
function cardImage(card) {
  const figure = h("span", { class: "card shown", role: "img", "aria-label": cardName(words(), card), "data-card": card });
  figure.append(face(card));
  return figure;
}

/** @param {number} seat @returns {string} */
function seatName(seat) {
  const info = state.summary?.seats[seat];
  const you = state.seated?.seat === seat ? ` (${words().you})` : "";
  if (!info) return `${words().seat} ${seat + 1}${you}`;
  if (info.seat_kind === "bot") return `${words().seat} ${seat + 1}: ${words().bot}${you}`;
  return `${info.name || `${words().seat} ${seat + 1}`}${you}`;
}

/** @param {string} suit @returns {string} */
function suitWord(suit) {
  return /** @type {Record<string, string>} */ (words().suits)[suit] ?? suit;
}

/** A legal (or sent) action in words. @param {LegalAction | Action} action @returns {string} */
function describe(action) {
  const w = words();
  switch (action.type) {
    case "pass":
      return w.pass;
    case "bid":
      return action.points != null
        ? fill(w.bidPoints, { points: action.points })
        : fill(w.bidTricks, { tricks: action.tricks ?? "?", suit: suitWord(action.suit ?? "") });
    case "keep":
      return w.keep;
    case "order_up":
      return w.orderUp;
    case "name_trump":
      return fill(w.nameTrump, { suit: suitWord(action.suit) });
    case "go_alone":
      return w.goAlone;
    case "play":
      return fill(w.play, { card: cardName(w, action.card) });
    case "exchange":
      return fill(w.exchange, { card: cardName(w, action.discard) });
    case "call_partner":
      return fill(w.callPartner, { card: cardName(w, action.card) });
    case "discard":
      return "cards" in action ? fill(w.discardConfirm, { count: action.cards.length }) : fill(w.discardTitle, { count: action.count });
  }
}

function clientSeed() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// --- the lobby ---------------------------------------------------------------------------------

function renderLobby() {
  const w = words();
  const games = Object.values(state.rules);
  const gameSelect = h("select", { id: "game", name: "game" }, ...games.map((g) => h("option", { value: g.kind }, w.games[g.kind])));
  const options = h("fieldset", { id: "options" });
  const showOptions = () => {
    const rules = state.rules[/** @type {HTMLSelectElement} */ (gameSelect).value];
    options.replaceChildren(h("legend", {}, w.options));
    for (const [name, option] of Object.entries(rules?.options ?? {})) {
      const select = h("select", { id: `option-${name}`, name }, ...option.allowed.map((value) =>
        h("option", { value: String(value), selected: value === option.default_value }, typeof value === "boolean" ? (value ? w.yes : w.no) : String(value))));
      options.append(h("label", { for: `option-${name}` }, `${option.doc} (${option.rule})`), select);
    }
  };
  gameSelect.addEventListener("change", showOptions);
  showOptions();
  const level = h("select", { id: "level" }, ...Object.entries(w.levels).map(([value, label]) => h("option", { value, selected: value === "heuristic" }, label)));
  const name = h("input", { id: "name", name: "name", autocomplete: "nickname", maxlength: "40", value: state.player?.name ?? "" });
  const bots = h("input", { type: "radio", name: "mode", id: "mode-bots", value: "bots", checked: true });
  const friends = h("input", { type: "radio", name: "mode", id: "mode-friends", value: "friends" });
  const form = h("form", { id: "lobby", class: "panel" },
    h("h1", {}, w.newGame),
    h("label", { for: "game" }, w.game), gameSelect,
    options,
    h("fieldset", {}, h("legend", {}, w.mode),
      h("div", {}, bots, h("label", { for: "mode-bots" }, w.againstBots)),
      h("div", {}, friends, h("label", { for: "mode-friends" }, w.withFriends))),
    h("label", { for: "level" }, w.botLevel), level,
    h("label", { for: "name" }, w.yourName), name,
    state.player ? h("p", { class: "playing-as" }, fill(w.playingAs, { name: state.player.name })) : null,
    h("button", { type: "submit", id: "create" }, w.create));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const game = /** @type {"five_hundred" | "rough" | "euchre5"} */ (/** @type {HTMLSelectElement} */ (gameSelect).value);
    /** @type {Record<string, number | boolean>} */
    const chosen = {};
    for (const select of options.querySelectorAll("select")) {
      const value = select.value;
      chosen[select.name] = value === "true" ? true : value === "false" ? false : Number(value);
    }
    const players = state.rules[game]?.players ?? 4;
    const withBots = /** @type {HTMLInputElement} */ (bots).checked;
    const botSeat = `bot:${/** @type {HTMLSelectElement} */ (level).value}`;
    const seats = Array.from({ length: players }, (_, seat) => (seat === 0 || !withBots ? "open" : botSeat));
    const player = /** @type {HTMLInputElement} */ (name).value.trim();
    void guarded(async () => {
      const created = await api.createGame({ kind: game, options: chosen, seats, listed: withBots });
      await takeSeat(created.game.game_id, player, created.invite_code ?? null, 0);
    });
  });
  const playNowGames = playNowPanel(/** @type {HTMLInputElement} */ (name));
  root.replaceChildren(...(state.player ? [myGamesPanel()] : []), playNowGames, form, errorLine());
  if (state.player) void readMyGames();
}

/**
 * "Play now": a button a game, each queueing the player (made now if none, named as the lobby's
 * "Your name" says) for the first table of that game with other players, or computer players after a
 * short wait.
 * @param {HTMLInputElement} name the lobby's "Your name"
 * @returns {HTMLElement}
 */
function playNowPanel(name) {
  const w = words();
  const games = /** @type {Kind[]} */ (Object.keys(state.rules));
  const buttons = games.map((kind) => h("button", {
    type: "button", id: `play-now-${kind}`, class: "play-now", "data-kind": kind,
    // named "Play now Le Rough": the button's own words, then its game's
    "aria-labelledby": `play-now-${kind} play-now-game-${kind}`,
  }, w.playNow));
  for (const button of buttons) {
    button.addEventListener("click", () => {
      for (const other of buttons) /** @type {HTMLButtonElement} */ (other).disabled = true;
      const kind = /** @type {Kind} */ (button.dataset.kind);
      void guarded(() => playNow(kind, name.value.trim())).finally(() => {
        for (const other of buttons) /** @type {HTMLButtonElement} */ (other).disabled = false;
      });
    });
  }
  return h("section", { id: "play-now", class: "panel", "aria-labelledby": "play-now-title" },
    h("h2", { id: "play-now-title" }, w.playNow),
    h("p", { class: "about" }, w.playNowAbout),
    h("ul", { class: "play-now-games" }, ...games.map((kind, index) =>
      h("li", {}, h("span", { id: `play-now-game-${kind}` }, w.games[kind]), buttons[index]))));
}

/**
 * Queue for a table of ``kind`` (a new ticket, or the one this player holds for it already) and wait.
 * @param {Kind} kind
 * @param {string} name
 */
async function playNow(kind, name) {
  if (state.search) return;
  const player = await playerFor(name);
  const ticket = await queue(player.token, kind);
  if (state.search) return; // another click's ticket came first
  state.search = new Search(player.token, ticket, (outcome) => void guarded(() => searchEnded(outcome)), showError);
  renderSearch(true);
  state.search.start();
}

/**
 * The wait for a table: the game, what happens, and a way out (focused when first shown).
 * @param {boolean} [focus]
 */
function renderSearch(focus = false) {
  const search = state.search;
  if (!search) return;
  const w = words();
  const estimate = search.ticket.estimate_seconds;
  const cancel = h("button", { type: "button", id: "cancel-search", onclick: () => void guarded(() => search.cancel()) }, w.cancelSearch);
  const panel = h("section", { id: "searching", class: "panel", "aria-labelledby": "searching-title", "data-ticket": search.ticketId },
    h("h1", { id: "searching-title" }, `${w.playNow} — ${w.games[search.kind]}`),
    h("p", { role: "status", class: "looking" }, w.lookingForPlayers),
    estimate > 0 ? h("p", { class: "about" }, fill(w.searchEstimate, { seconds: estimate })) : null,
    cancel);
  root.replaceChildren(panel, errorLine());
  if (focus) cancel.focus();
}

/**
 * The wait is over: at the table found (its seat the player's, played with the player's token, as a
 * game of My games), or back in the lobby.
 * @param {Outcome} outcome
 */
async function searchEnded(outcome) {
  const player = state.player;
  state.search = null;
  if (outcome.kind === "matched" && player) {
    state.seated = { gameId: outcome.gameId, token: player.token, seat: outcome.seat };
    const url = new URL(window.location.href);
    url.search = "";
    url.searchParams.set("game", outcome.gameId);
    window.history.replaceState(null, "", url);
    await openTable();
    return;
  }
  renderLobby();
  if (outcome.kind === "ended" && outcome.status === "expired") showError(words().searchExpired);
}

/** The lobby's "My games", drawn from what was read last. @returns {HTMLElement} */
function myGamesPanel() {
  return myGamesSection(state.mine, words(), state.lang, () => void guarded(async () => {
    if (state.player && (await state.mine.more(state.player.token))) drawMyGames();
  }));
}

function drawMyGames() {
  const shown = document.getElementById("my-games");
  if (!shown) return;
  const focused = document.activeElement?.id === "more-games";
  const fresh = myGamesPanel();
  shown.replaceWith(fresh);
  // "More games" read the next page: the focus goes on to the button (or the last game's link)
  if (focused) /** @type {HTMLElement | null} */ (fresh.querySelector("#more-games") ?? fresh.querySelector("li:last-child a"))?.focus();
}

let reading = /** @type {ReturnType<typeof setTimeout> | null} */ (null);

/** Read the player's games again (soon: notices come in bursts) and draw them, on the lobby. */
function readMyGames() {
  if (reading !== null) return;
  reading = setTimeout(() => {
    reading = null;
    const player = state.player;
    if (!player || !document.getElementById("my-games")) return;
    void state.mine.load(player.token).then((current) => current && drawMyGames(), showError);
  }, 200);
}

/**
 * What the player's stream (or another tab) says: a turn of the game on the table is drawn at once
 * (its view and legal actions came with it); any news draws the lobby's marks again.
 * @param {Message} message
 */
function hear(message) {
  if (message.kind === "notice") {
    const notice = message.notice;
    if (notice.type === "your_turn") {
      adopt(notice.game_id, { seat: notice.seat, version: notice.version, view: notice.view, legal_actions: notice.legal_actions });
    }
    if (notice.type === "match_found") state.search?.found(notice); // sooner than the next read of the ticket
  }
  readMyGames();
}

/** The player to take a seat as (made now on the first seat), its notices followed from then on. @param {string} name */
async function playerFor(name) {
  const player = await ensurePlayer(name);
  state.player = player;
  listen(player, hear);
  return player;
}

/**
 * @param {string} gameId
 * @param {string} name
 * @param {string | null} invite
 * @param {number | undefined} seat
 */
async function takeSeat(gameId, name, invite, seat) {
  const player = await playerFor(name);
  try {
    const joined = await api.join(gameId, player.token, {
      name,
      client_seed: clientSeed(),
      ...(invite ? { invite_code: invite } : {}),
      ...(seat !== undefined ? { seat } : {}),
    });
    state.seated = { gameId, token: player.token, seat: joined.seat };
  } catch (error) {
    // this player sat here already (another tab took the seat): play it
    if (!(error instanceof api.ApiError && error.problem.code === "already_seated" && (await seatOf(gameId)))) throw error;
  }
  const url = new URL(window.location.href);
  url.search = "";
  url.searchParams.set("game", gameId);
  if (invite) url.searchParams.set("invite", invite);
  window.history.replaceState(null, "", url);
  await openTable();
}

/** @param {string} gameId */
async function renderJoin(gameId) {
  const w = words();
  state.summary = await api.summary(gameId);
  const name = h("input", { id: "name", autocomplete: "nickname", maxlength: "40", value: state.player?.name ?? "" });
  const form = h("form", { id: "join", class: "panel" },
    h("h1", {}, `${w.joinTitle}: ${w.games[/** @type {"rough"} */ (state.summary.kind)]}`),
    seatList(),
    h("label", { for: "name" }, w.yourName), name,
    h("button", { type: "submit", id: "join-button" }, w.join));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void guarded(() => takeSeat(gameId, /** @type {HTMLInputElement} */ (name).value.trim(), params.get("invite"), undefined));
  });
  root.replaceChildren(form, errorLine());
}

// --- the table ---------------------------------------------------------------------------------

/**
 * Whether the player holds a seat of ``gameId`` (then ``state.seated`` is it): the view read with
 * the player's token says which seat, or none (a spectator's view).
 * @param {string} gameId
 * @returns {Promise<boolean>}
 */
async function seatOf(gameId) {
  const player = state.player;
  if (!player) return false;
  const read = await api.view(gameId, player.token);
  if (read.seat === null) return false;
  state.seated = { gameId, token: player.token, seat: read.seat };
  return true;
}

async function openTable() {
  const seated = /** @type {Seated} */ (state.seated);
  await refresh();
  state.source?.close();
  state.source = api.follow(seated.gameId, seated.token, sessionStorage.getItem(`atout:last:${seated.gameId}`), onEvent, onStreamEnd);
}

let refreshing = /** @type {Promise<void> | null} */ (null);
let again = false;

/** Read the view (with our legal actions when it is our turn) again, then draw the table. */
async function refresh() {
  if (refreshing) {
    again = true;
    return refreshing;
  }
  refreshing = (async () => {
    do {
      again = false;
      const sent = state.sent;
      const seated = /** @type {Seated} */ (state.seated);
      const [view, summary] = await Promise.all([api.view(seated.gameId, seated.token), api.summary(seated.gameId)]);
      state.summary = summary;
      // a turn drawn meanwhile from the player's stream or a move's answer may be newer than this read
      if (!(state.view?.game_id === view.game_id && view.version < state.view.version)) {
        state.view = view;
        // on our turn the view holds our legal actions: one read, no GET …/actions
        state.legal = view.legal_actions ? { version: view.version, actions: view.legal_actions } : null;
      }
      // our move was answered while we read: what we read may be from before it (its buttons
      // would be offered again for a moment), so read again
      if (state.sent !== sent) again = true;
    } while (again);
    renderTable();
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/**
 * Draw our turn as a move's answer (``next_turn``) or the player's stream (``your_turn``) gave it,
 * with no read: when it is of the game on the table, our seat, and newer than what is drawn (never
 * while a move of ours is on its way, whose answer decides).
 * @param {string} gameId
 * @param {{ seat: number, version: number, view: View, legal_actions: LegalAction[] }} turn
 */
function adopt(gameId, turn) {
  const seated = state.seated;
  if (!seated || seated.gameId !== gameId || seated.seat !== turn.seat || state.busy) return;
  if (state.view?.game_id === gameId && turn.version <= state.view.version) return;
  state.view = { game_id: gameId, version: turn.version, seat: turn.seat, status: "active", view: turn.view, legal_actions: turn.legal_actions };
  state.legal = { version: turn.version, actions: turn.legal_actions };
  renderTable();
}

/** @param {import("./api.js").EventEnvelope} frame */
function onEvent(frame) {
  const seated = state.seated;
  if (!seated) return;
  sessionStorage.setItem(`atout:last:${seated.gameId}`, frame.id);
  const event = frame.event;
  collectProof(event);
  if (eventLine(event)) state.log = [...state.log.slice(-11), event];
  if (event.type === "turn" || event.type === "seat_joined" || event.type === "game_started") void refresh().catch(showError);
  if (event.type === "turn" && event.status === "finished") state.source?.close();
}

/** @param {import("./api.js").StreamEnd} end */
function onStreamEnd(end) {
  const seated = state.seated;
  if (!seated) return;
  if (end.type === "resync") {
    state.source?.close();
    if (end.last_event_id) sessionStorage.setItem(`atout:last:${seated.gameId}`, end.last_event_id);
    void openTable().catch(showError);
  }
  // lagged, server_closing: the EventSource reconnects by itself with Last-Event-ID.
}

/** @param {GameEvent} event @returns {string | null} */
function eventLine(event) {
  const ev = words().ev;
  switch (event.type) {
    case "card_played":
      return fill(ev.card_played, { seat: seatName(event.seat), card: cardName(words(), event.card) });
    case "trick_won":
      return fill(ev.trick_won, { seat: seatName(event.winner) });
    case "bid_made":
      return fill(ev.bid, { seat: seatName(event.seat), what: describe(event.action) });
    case "contract_fixed":
      return fill(ev.contract, { seat: seatName(event.taker) });
    case "dealt":
      return ev.dealt;
    case "hand_void":
      return ev.hand_void;
    case "five_hundred_hand_scored":
    case "rough_hand_scored":
    case "euchre5_hand_scored":
      return ev.hand_scored;
    case "game_finished":
      return ev.game_finished;
    case "seat_joined":
      return fill(ev.seat_joined, { seat: seatName(event.seat) });
    case "partner_revealed":
      return fill(ev.partner_revealed, { seat: seatName(event.seat) });
    case "trump_named":
      return fill(ev.trump_named, { seat: seatName(event.seat) });
    case "ordered_up":
      return fill(ev.ordered_up, { seat: seatName(event.seat) });
    default:
      return null;
  }
}

/** Gather what the stream reveals about each hand's deal, and check it once complete. @param {GameEvent} event */
function collectProof(event) {
  const proofs = state.proofs;
  /** @param {number} hand */
  const proofOf = (hand) => {
    const found = proofs.hands.get(hand) ?? { hand };
    proofs.hands.set(hand, found);
    return found;
  };
  if (event.type === "game_started") proofs.clientSeeds = event.client_seeds;
  if (event.type === "hand_commitment") proofOf(event.hand_number).commitment = event.commitment;
  if (event.type === "hand_seed") Object.assign(proofOf(event.hand_number), { seed: event.seed, serverPart: event.server_part });
  if (event.type === "five_hundred_hand_scored" || event.type === "rough_hand_scored" || event.type === "euchre5_hand_scored") {
    Object.assign(proofOf(event.hand_number), { dealer: event.deal.dealer, hands: event.deal.hands, kitty: event.deal.kitty });
  }
  if (event.type === "match_key") {
    const parts = new Map([...proofs.hands].flatMap(([hand, proof]) => (proof.serverPart ? [[hand, proof.serverPart]] : [])));
    void verifyKey(event.key, parts).then((ok) => {
      proofs.keyVerified = ok;
      renderTable();
    });
  }
  for (const [hand, proof] of proofs.hands) {
    if (proofs.verified.has(hand) || !proofs.clientSeeds || !proof.commitment || !proof.seed || !proof.serverPart || !proof.hands || !proof.kitty || proof.dealer === undefined) continue;
    const game = state.summary?.kind ?? state.view?.view.kind ?? "";
    const deck = state.rules[game]?.deck ?? [];
    proofs.verified.set(hand, false);
    void verifyHand(game, deck, /** @type {HandProof} */ ({ ...proof, clientSeeds: proofs.clientSeeds })).then((ok) => {
      proofs.verified.set(hand, ok);
      renderTable();
    });
  }
}

/** @returns {HTMLElement} */
function seatList() {
  const w = words();
  const summary = state.summary;
  const view = state.view?.view;
  return h("ul", { class: "seats", "aria-label": w.seat },
    ...(summary?.seats ?? []).map((info) => {
      const notes = [];
      if (!info.filled) notes.push(w.open);
      if (view && view.dealer === info.seat) notes.push(w.dealer);
      if (view && view.to_act === info.seat) notes.push(w.toAct);
      if (view) notes.push(`${view.hand_sizes[info.seat] ?? 0} ${w.cards}`, `${view.tricks_won[info.seat] ?? 0} ${w.tricksWon}`);
      return h("li", { class: view?.to_act === info.seat ? "seat acting" : "seat", "data-seat": info.seat },
        h("strong", {}, seatName(info.seat)), ` — ${notes.join(", ")}`);
    }));
}

/** @param {View} view @returns {HTMLElement} */
function scoreLine(view) {
  const w = words();
  const teams = view.kind !== "euchre5";
  const cells = view.scores.map((score, index) =>
    h("li", {}, teams ? `${w.team} ${index + 1} (${seatName(index)}, ${seatName(index + 2)}): ${score}` : `${seatName(index)}: ${score}`));
  return h("section", { class: "scores", "aria-label": w.scores }, h("h2", {}, w.scores), h("ul", {}, ...cells));
}

/** @param {View} view @returns {string} */
function contractLine(view) {
  const w = words();
  const contract = view.contract;
  if (!contract) return "";
  if ("maker" in contract) {
    const partner = contract.partner != null ? `, ${seatName(contract.partner)}` : "";
    const called = contract.called_card ? ` — ${cardName(w, contract.called_card)}` : "";
    return `${w.contract}: ${seatName(contract.maker)}${contract.alone ? ` (${w.goAlone})` : ""}${called}${partner}`;
  }
  if ("points" in contract) return `${w.contract}: ${seatName(contract.taker)} — ${contract.points}`;
  return `${w.contract}: ${seatName(contract.taker)} — ${contract.tricks} ${suitWord(contract.suit)}`;
}

/** @param {View} view @returns {HTMLElement | null} */
function lastHand(view) {
  const w = words();
  const last = view.last_hand;
  const checked = [...state.proofs.verified.values()];
  const all = checked.filter(Boolean).length === checked.length;
  const deals = checked.length
    ? h("p", { class: all ? "fair" : "unfair", "data-fair": String(all) }, fill(w.verifiedDeals, { ok: checked.filter(Boolean).length, all: checked.length }))
    : null;
  if (!last) return deals ? h("section", { class: "last-hand" }, deals) : null;
  const made = "made" in last && last.made != null ? `${last.made ? w.made : w.set} — ` : "";
  const taker = "taker" in last && last.taker != null ? `${seatName(last.taker)}: ` : "maker" in last && last.maker != null ? `${seatName(last.maker)}: ` : "";
  // F5-9, RG-8: a hand nobody took was not played: no taker, no points
  const result = last.points ? `${taker}${made}${w.points}: ${last.points.join(" / ")}` : w.voidHand;
  return h("section", { class: "last-hand", "aria-label": w.lastHand },
    h("h2", {}, w.lastHand),
    h("p", {}, result),
    deals);
}

/**
 * The controls for the seat's legal actions: buttons for those that are no card, and the hand's
 * cards enabled only where a card action is legal.
 * @param {LegalAction[]} actions
 * @returns {{ panel: HTMLElement, cardAction: Map<string, () => void> }}
 */
function actionControls(actions) {
  const w = words();
  /** @type {Map<string, () => void>} */
  const cardAction = new Map();
  const buttons = h("div", { class: "actions", role: "group", "aria-label": w.yourTurn });
  const panel = h("section", { class: "turn", "aria-label": w.yourTurn }, h("h2", {}, w.yourTurn), buttons);
  const noTrumpLeads = actions.some((a) => a.type === "play" && a.no_trump);
  if (noTrumpLeads) {
    const box = h("input", { type: "checkbox", id: "no-trump", checked: state.noTrump, onchange: (/** @type {Event} */ e) => {
      state.noTrump = /** @type {HTMLInputElement} */ (e.target).checked;
    } });
    panel.append(h("div", { class: "no-trump" }, box, h("label", { for: "no-trump" }, w.leadNoTrump)));
  }
  const calls = h("div", { class: "calls", role: "group", "aria-label": w.callTitle });
  for (const action of actions) {
    if (action.type === "play") {
      if (!action.no_trump) {
        const card = action.card;
        cardAction.set(card, () => void send({ type: "play", card, ...(state.noTrump && noTrumpLeads ? { no_trump: true } : {}) }));
      }
    } else if (action.type === "exchange") {
      const card = action.discard;
      cardAction.set(card, () => void send({ type: "exchange", discard: card }));
    } else if (action.type === "call_partner") {
      const card = action.card;
      calls.append(cardButton(card, { onclick: () => void send({ type: "call_partner", card }) }, describe(action)));
    } else if (action.type === "discard") {
      panel.append(discardPicker(action));
    } else {
      // E5-5: the dealer's pass at the exchange leaves the upcard where it is; say so
      const label = action.type === "pass" && state.view?.view.phase === "exchange" ? w.leaveUpcard : describe(action);
      buttons.append(h("button", { type: "button", class: "action", "data-action": JSON.stringify(action), onclick: () => void send(action) }, label));
    }
  }
  if (calls.childElementCount) panel.append(h("h3", {}, w.callTitle), calls);
  return { panel, cardAction };
}

/** @param {import("./api.js").Schemas["DiscardTemplate"]} template @returns {HTMLElement} */
function discardPicker(template) {
  const w = words();
  const group = h("div", { class: "discard", role: "group", "aria-label": fill(w.discardTitle, { count: template.count }) });
  const confirm = h("button", { type: "button", id: "discard-confirm", disabled: state.selected.size !== template.count,
    onclick: () => void send({ type: "discard", cards: [...state.selected] }) }, fill(w.discardConfirm, { count: template.count }));
  for (const card of template.choices) {
    const chosen = state.selected.has(card);
    group.append(cardButton(card, { "aria-pressed": String(chosen), class: chosen ? "card selected" : "card",
      onclick: () => {
        if (state.selected.has(card)) state.selected.delete(card);
        else state.selected.add(card);
        renderTable();
      } }));
  }
  return h("div", {}, h("h3", {}, fill(w.discardTitle, { count: template.count })), group, confirm);
}

/** @param {Action} action */
async function send(action) {
  const seated = state.seated;
  const legal = state.legal;
  if (!seated || !legal || state.busy) return;
  state.busy = true;
  let next = null;
  try {
    const answer = await api.act(seated.gameId, seated.token, action, legal.version);
    state.sent += 1;
    state.selected.clear();
    state.noTrump = false;
    state.legal = null;
    tell({ kind: "moved", gameId: seated.gameId }); // the other tabs' lists of games read again
    next = answer.next_turn ?? null;
    if (!next) {
      renderTable();
      await refresh();
    }
  } catch (error) {
    showError(error);
    await refresh().catch(showError);
  } finally {
    state.busy = false;
  }
  // our turn again at once (the same seat acts twice): the answer holds it, no read
  if (next) adopt(seated.gameId, next);
}

function renderTable() {
  const w = words();
  const response = state.view;
  const seated = state.seated;
  if (!response || !seated) return;
  const view = response.view;
  const focused = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.card ?? document.activeElement.id : null;
  const header = h("header", { class: "table-head" },
    h("h1", {}, `${w.games[view.kind]} — ${/** @type {Record<string, string>} */ (w.phase)[view.phase] ?? view.phase}`),
    h("p", {}, [fill(w.handNumber, { n: view.hand_number }), view.trump ? `${w.trump}: ${suitWord(view.trump)}` : "", contractLine(view)].filter(Boolean).join(" · ")));
  const trick = h("section", { class: "trick", "aria-label": w.trick }, h("h2", {}, w.trick),
    h("div", { class: "cards" }, ...view.current_trick.map((played) =>
      h("figure", { class: "played" }, cardImage(played.card), h("figcaption", {}, seatName(played.seat))))));
  if (view.kind === "euchre5" && view.upcard) trick.append(h("p", {}, `${w.upcard}: `, cardImage(view.upcard)));
  const myTurn = state.legal !== null && view.to_act === seated.seat;
  const controls = myTurn ? actionControls(/** @type {import("./api.js").Turn} */ (state.legal).actions) : null;
  const discarding = myTurn && state.legal?.actions.some((a) => a.type === "discard");
  const hand = h("section", { class: "hand", "aria-label": w.hand }, h("h2", {}, w.hand),
    h("div", { class: "cards" }, ...(discarding ? [] : view.hand.map((card) => {
      const play = controls?.cardAction.get(card);
      return cardButton(card, { disabled: !play, class: play ? "card playable" : "card", onclick: play });
    }))));
  const waitingFor = view.to_act !== null && view.to_act !== seated.seat ? h("p", { class: "waiting" }, fill(w.theirTurn, { name: seatName(view.to_act) })) : null;
  const over = view.winners
    ? h("section", { class: "over" }, h("h2", {}, fill(w.winners, { seats: view.winners.map(seatName).join(", ") })),
      h("button", { type: "button", id: "rematch", onclick: () => void guarded(rematch) }, w.rematch),
      state.proofs.keyVerified === null ? null : h("p", { class: state.proofs.keyVerified ? "fair" : "unfair", "data-key-fair": String(state.proofs.keyVerified) },
        state.proofs.keyVerified ? w.keyFair : w.keyUnfair))
    : null;
  const invite = state.summary?.status === "waiting"
    ? h("section", { class: "invite" }, h("h2", {}, w.waiting), h("label", { for: "invite-link" }, w.invite),
      h("input", { id: "invite-link", readonly: true, value: inviteLink(seated.gameId) }))
    : null;
  const opponents = h("div", { class: "opponents" }, ...view.hand_sizes.map((size, seat) => seat === seated.seat ? null :
    h("div", { class: "backs", "aria-hidden": "true" }, ...Array.from({ length: Math.min(size, 3) }, () => back()))));
  const log = h("section", { class: "log", "aria-label": w.events }, h("h2", {}, w.events),
    h("ol", { "aria-live": "polite" }, ...state.log.map((event) => h("li", {}, eventLine(event) ?? ""))));
  root.replaceChildren(header, errorLine(), invite ?? "", seatList(), opponents, scoreLine(view), trick,
    waitingFor ?? "", controls?.panel ?? "", hand, over ?? "", lastHand(view) ?? "", log);
  if (focused) {
    const again = root.querySelector(`[data-card="${focused}"]:not([disabled])`) ?? document.getElementById(focused);
    if (again instanceof HTMLElement) again.focus();
  }
}

/** @param {string} gameId @returns {string} */
function inviteLink(gameId) {
  const url = new URL("/play", window.location.href);
  url.searchParams.set("game", gameId);
  const invite = new URLSearchParams(window.location.search).get("invite");
  if (invite) url.searchParams.set("invite", invite);
  return url.toString();
}

async function rematch() {
  const seated = /** @type {Seated} */ (state.seated);
  const offered = await api.rematch(seated.gameId, seated.token, clientSeed());
  // the player's token holds the rematch's seat too: the answer's seat token is not needed
  state.seated = { gameId: offered.game.game_id, token: seated.token, seat: offered.seat };
  state.view = null;
  state.legal = null;
  state.proofs = { clientSeeds: null, hands: new Map(), verified: new Map(), keyVerified: null };
  state.log = [];
  const url = new URL(window.location.href);
  url.searchParams.set("game", offered.game.game_id);
  window.history.replaceState(null, "", url);
  await openTable();
}

// --- errors, language, start ------------------------------------------------------------------

/** @returns {HTMLElement} */
function errorLine() {
  return h("p", { id: "error", role: "alert", class: state.error ? "error" : "error empty" }, state.error ?? "");
}

/** @param {unknown} error */
function showError(error) {
  state.error = error instanceof api.ApiError ? fill(words().error, { detail: error.problem.detail }) : String(error);
  const line = document.getElementById("error");
  if (line) {
    line.textContent = state.error;
    line.className = "error";
  }
}

/** @param {() => Promise<void>} work */
async function guarded(work) {
  state.error = null;
  try {
    await work();
  } catch (error) {
    showError(error);
  }
}

function renderChrome() {
  const w = words();
  document.documentElement.lang = state.lang;
  api.speak(state.lang); // the service's error messages in the table's language
  document.title = w.title;
  const toggle = /** @type {HTMLButtonElement} */ (document.getElementById("lang"));
  toggle.textContent = w.other;
  toggle.setAttribute("aria-label", w.otherLabel);
  const home = /** @type {HTMLAnchorElement} */ (document.getElementById("home"));
  home.textContent = w.lobby;
}

async function start() {
  renderChrome();
  /** @type {HTMLButtonElement} */ (document.getElementById("lang")).addEventListener("click", () => {
    state.lang = state.lang === "en" ? "fr" : "en";
    localStorage.setItem("atout:lang", state.lang);
    renderChrome();
    if (state.seated && state.view) renderTable();
    else if (state.search) renderSearch();
    else void route();
  });
  const [rules, player] = await Promise.all([api.rules(), checkedPlayer()]);
  state.rules = rules.games;
  state.player = player;
  if (player) listen(player, hear);
  // back on a tab: its lobby reads the marks again (a move made on another device sends no notice)
  document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && readMyGames());
  await route();
}

async function route() {
  const gameId = params.get("game");
  if (!gameId) return renderLobby();
  if (state.seated?.gameId === gameId) return openTable();
  // the player's seat, from this tab, another tab, or before a reload; a table not ours offers its seats
  const seated = await seatOf(gameId).catch((error) => error instanceof api.ApiError && error.status !== 404 ? false : Promise.reject(error));
  if (seated) return openTable();
  return renderJoin(gameId);
}

void guarded(start);
