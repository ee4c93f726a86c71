// The player this browser plays as: a guest the page makes when it first takes a seat (POST
// /v1/players), whose token lives in localStorage, one per origin, so every tab, and the page after
// a reload, holds the same seats with the same token. And the player's notices (/v1/me/events): one
// stream for all the origin's tabs, as a browser holds few connections to one host (six over
// HTTP/1.1): the tab holding the lock "atout:player-stream" follows it and passes each notice to
// the other tabs on a BroadcastChannel; when that tab closes, another takes the lock and follows
// on from the last notice seen.
import * as api from "./api.js";

/** @typedef {import("./api.js").PlayerNotice} PlayerNotice */
/** @typedef {{ id: string, token: string, name: string }} Player */
/**
 * What the tabs tell each other: a notice of the player's stream; a gap in it (notices lost: read
 * again); a move this player made in a tab (the others' lists of games read again).
 * @typedef {{ kind: "notice", notice: PlayerNotice } | { kind: "gap" } | { kind: "moved", gameId: string }} Message
 */

const PLAYER = "atout:player";
const LAST = "atout:player:last";
/** Reconnection delays after a refusal (the browser retries a dropped connection by itself). */
const FIRST_WAIT_MS = 1_000;
const LAST_WAIT_MS = 60_000;

/** @returns {Player | null} */
export function storedPlayer() {
  try {
    const held = JSON.parse(localStorage.getItem(PLAYER) ?? "null");
    if (held && typeof held.token === "string" && held.token.startsWith("atp_") && typeof held.id === "string") {
      return { id: held.id, token: held.token, name: typeof held.name === "string" ? held.name : "" };
    }
  } catch {
    // not JSON: forgotten below
  }
  localStorage.removeItem(PLAYER);
  return null;
}

/** @param {Player} player */
function keep(player) {
  localStorage.setItem(PLAYER, JSON.stringify(player));
}

/**
 * The stored player if the service still knows it (its name as the service has it), else null: a
 * deleted or expired player's token is forgotten, and a new guest is made at the next seat taken.
 * A service out of reach keeps it.
 * @returns {Promise<Player | null>}
 */
export async function checkedPlayer() {
  const held = storedPlayer();
  if (!held) return null;
  try {
    const me = await api.me(held.token);
    const player = { ...held, name: me.name };
    keep(player);
    return player;
  } catch (error) {
    if (error instanceof api.ApiError && error.status === 401) {
      localStorage.removeItem(PLAYER);
      localStorage.removeItem(LAST);
      return null;
    }
    return held;
  }
}

/**
 * ``work`` alone among the origin's tabs (a Web Lock), where the browser has locks.
 * @template T
 * @param {string} name
 * @param {() => Promise<T>} work
 * @returns {Promise<T>}
 */
function alone(name, work) {
  // a lock's promise settles as the callback's does (the DOM types say Promise<Promise<T>>)
  return navigator.locks ? /** @type {Promise<T>} */ (/** @type {unknown} */ (navigator.locks.request(name, work))) : work();
}

/**
 * The player to take a seat as: the stored one (renamed if ``name`` is another non-empty name),
 * or a new guest named ``name`` (the service's default name when empty). Made under a lock, so two
 * tabs taking seats at once make one guest.
 * @param {string} name
 * @returns {Promise<Player>}
 */
export function ensurePlayer(name) {
  return alone("atout:player-create", async () => {
    const held = storedPlayer();
    if (held) {
      if (name && name !== held.name) {
        const me = await api.rename(held.token, name);
        held.name = me.name;
        keep(held);
      }
      return held;
    }
    const created = await api.createPlayer(name);
    const player = { id: created.player_id, token: created.token, name: created.name };
    localStorage.removeItem(LAST); // another player's stream position
    keep(player);
    return player;
  });
}

const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel("atout:player") : null;
/** @type {string | null} the token whose notices this tab listens to */
let listening = null;

/**
 * Call ``hear`` with every message of the player's stream and of the other tabs, from now on (once
 * a tab; a second call does nothing).
 * @param {Player} player
 * @param {(message: Message) => void} hear
 */
export function listen(player, hear) {
  if (listening) return;
  listening = player.token;
  channel?.addEventListener("message", (event) => hear(/** @type {Message} */ (event.data)));
  /** @param {Message} message */
  const spread = (message) => {
    channel?.postMessage(message);
    hear(message);
  };
  if (channel && navigator.locks) {
    // held until this tab closes or navigates: the callback's promise never settles
    void navigator.locks.request("atout:player-stream", () => new Promise(() => follow(player.token, spread)));
  } else {
    follow(player.token, hear); // no locks (an insecure context): each tab follows its own stream
  }
}

/**
 * Tell the other tabs (a move made here, so their lists read again).
 * @param {Message} message
 */
export function tell(message) {
  channel?.postMessage(message);
}

/**
 * Follow the player's stream from the last notice the origin saw, for good: after a refusal (the
 * EventSource gives up) open it again, waiting longer each time (at most a minute); after a gap
 * (``resync``) go on from where the service says, and say so.
 * @param {string} token
 * @param {(message: Message) => void} spread
 */
function follow(token, spread) {
  let wait = FIRST_WAIT_MS;
  const open = () => {
    const source = api.followPlayer(
      token,
      localStorage.getItem(LAST),
      (notice) => {
        localStorage.setItem(LAST, notice.id);
        wait = FIRST_WAIT_MS;
        spread({ kind: "notice", notice });
      },
      (end) => {
        if (end.type !== "resync") return; // lagged, server_closing: the browser resumes by itself
        source.close();
        if (end.last_event_id) localStorage.setItem(LAST, end.last_event_id);
        else localStorage.removeItem(LAST);
        spread({ kind: "gap" });
        open();
      },
    );
    source.addEventListener("error", () => {
      if (source.readyState !== EventSource.CLOSED) return;
      setTimeout(open, wait);
      wait = Math.min(wait * 2, LAST_WAIT_MS);
    });
  };
  open();
}
