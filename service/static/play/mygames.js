// "My games" in the lobby: the player's games (GET /v1/me/games), those where it is their turn
// first, each with a mark (your turn, waiting for players, in play, over) and a link that opens its
// table; PAGE games a page, "More games" reads the next one (next_cursor). The player's stream keeps
// the marks current: on a notice the pages shown are read again, from the start, as the service
// orders them at one moment.
import * as api from "./api.js";
import { h } from "./dom.js";
import { fill } from "./i18n.js";

/** @typedef {import("./api.js").MyGame} MyGame */
/** @typedef {import("./i18n.js").Words} Words */

export const PAGE = 10;
/** The most pages read again: every game a player's list may hold (ATOUT_PLAYER_MAX_GAMES, 300). */
const MAX_PAGES = 30;

export class MyGames {
  constructor() {
    /** @type {MyGame[]} */
    this.games = [];
    /** @type {string | null} the next page's cursor; null after the last page */
    this.cursor = null;
    /** pages read; 0 before the first */
    this.pages = 0;
    /** each read's number: an answer to an older read than the last is dropped */
    this.reads = 0;
  }

  /**
   * Read the pages shown (at least one) again from the start. False when a newer read began meanwhile.
   * @param {string} token
   * @returns {Promise<boolean>}
   */
  async load(token) {
    const read = ++this.reads;
    const wanted = Math.min(Math.max(this.pages, 1), MAX_PAGES);
    /** @type {MyGame[]} */
    const games = [];
    /** @type {string | null} */
    let cursor = null;
    let pages = 0;
    do {
      const page = await api.myGames(token, PAGE, cursor);
      games.push(...page.games);
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor && pages < wanted);
    if (read !== this.reads) return false;
    this.games = unique(games);
    this.cursor = cursor;
    this.pages = pages;
    return true;
  }

  /**
   * Read the next page and add its games. False when there is none or a newer read began meanwhile.
   * @param {string} token
   * @returns {Promise<boolean>}
   */
  async more(token) {
    if (!this.cursor) return false;
    const read = ++this.reads;
    const page = await api.myGames(token, PAGE, this.cursor);
    if (read !== this.reads) return false;
    this.games = unique([...this.games, ...page.games]);
    this.cursor = page.next_cursor;
    this.pages += 1;
    return true;
  }
}

/**
 * Each game once: a game whose turn changed between two pages may come on both.
 * @param {MyGame[]} games
 * @returns {MyGame[]}
 */
function unique(games) {
  const seen = new Set();
  return games.filter((game) => !seen.has(game.game_id) && seen.add(game.game_id));
}

/**
 * The list as a section of the lobby.
 * @param {MyGames} mine
 * @param {Words} w
 * @param {string} lang
 * @param {() => void} onMore
 * @returns {HTMLElement}
 */
export function myGamesSection(mine, w, lang, onMore) {
  const title = h("h2", { id: "my-games-title" }, w.myGames);
  const section = h("section", { id: "my-games", class: "panel", "aria-labelledby": "my-games-title" }, title);
  if (!mine.games.length) {
    section.append(h("p", { class: "none" }, mine.pages ? w.noGames : w.loadingGames));
    return section;
  }
  const when = new Intl.DateTimeFormat(lang, { dateStyle: "short", timeStyle: "short" });
  section.append(h("ul", { class: "my-games" }, ...mine.games.map((game) => {
    const [mark, kind] = game.your_turn
      ? [w.markYourTurn, "your-turn"]
      : game.status === "waiting" ? [w.markWaiting, "waiting"] : game.status === "finished" ? [w.markOver, "over"] : [w.markActive, "active"];
    const name = /** @type {Record<string, string>} */ (w.games)[game.kind] ?? game.kind;
    return h("li", { class: `my-game ${kind}`, "data-game": game.game_id, "data-status": game.status, "data-your-turn": String(game.your_turn) },
      h("a", { href: `/play?game=${encodeURIComponent(game.game_id)}` }, name),
      h("strong", { class: `mark ${kind}` }, mark),
      h("span", { class: "about" }, fill(w.myGameAbout, { seat: game.seat + 1, when: when.format(new Date(game.updated_at)) })));
  })));
  if (mine.cursor) section.append(h("button", { type: "button", id: "more-games", onclick: onMore }, w.moreGames));
  return section;
}
