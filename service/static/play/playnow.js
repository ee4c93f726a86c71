// "Play now" in the lobby: a ticket for a game (casual, a party of one: POST /v1/matchmaking/tickets),
// read every second until the matcher seats it at a table (its game and our seat), it is cancelled
// (DELETE) or it expires; the player's stream (match_found) ends the wait sooner. The reads are
// bounded: past the ticket's expires_at (and a little grace for the matcher's pass that marks it
// expired) the wait ends whatever the ticket says.
import * as api from "./api.js";

/** @typedef {import("./api.js").Ticket} Ticket */
/** @typedef {Ticket["kind"]} Kind */
/**
 * How a wait ends: seated at a game (the seat is the player's: their token plays it), or not (the
 * ticket cancelled, expired, or its read refused).
 * @typedef {{ kind: "matched", gameId: string, seat: number } | { kind: "ended", status: "cancelled" | "expired" | "refused" }} Outcome
 */

const POLL_MS = 1_000;
/** Past expires_at: the matcher's next pass marks the ticket expired; then the wait ends regardless. */
const GRACE_MS = 5_000;

/**
 * A new waiting ticket for ``kind``, or the one the player holds for it already (409 ``ticket_held``,
 * from another tab or before a reload): the wait goes on with it.
 * @param {string} token the player's
 * @param {Kind} kind
 * @returns {Promise<Ticket>}
 */
export async function queue(token, kind) {
  try {
    return await api.createTicket(token, { kind, rated: false });
  } catch (error) {
    // the held ticket is named in the problem's ticket_id (docs/errors.md, ticket_held)
    const held = error instanceof api.ApiError && error.problem.code === "ticket_held"
      ? /** @type {Record<string, unknown>} */ (error.problem).ticket_id
      : null;
    if (typeof held !== "string") throw error;
    return api.ticket(token, held);
  }
}

export class Search {
  /**
   * @param {string} token the player's
   * @param {Ticket} ticket
   * @param {(outcome: Outcome) => void} onEnd called once, when the wait ends
   * @param {(error: unknown) => void} onError a read or a cancel refused (the wait goes on)
   */
  constructor(token, ticket, onEnd, onError) {
    this.token = token;
    this.ticket = ticket;
    this.onEnd = onEnd;
    this.onError = onError;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.timer = null;
    this.over = false;
    /** after this (ms since the epoch) the ticket is read once more, then the wait ends */
    this.deadline = Date.parse(ticket.expires_at) + GRACE_MS;
  }

  get ticketId() {
    return this.ticket.ticket_id;
  }

  get kind() {
    return this.ticket.kind;
  }

  /** Read the ticket every second from now (it may be matched already: a ticket held before). */
  start() {
    if (this.settle(this.ticket)) return;
    this.schedule();
  }

  schedule() {
    if (this.over) return;
    this.timer = setTimeout(() => void this.poll(), POLL_MS);
  }

  async poll() {
    this.timer = null;
    if (this.over) return;
    const last = Date.now() > this.deadline;
    try {
      if (this.settle(await api.ticket(this.token, this.ticketId))) return;
    } catch (error) {
      // a refusal (the ticket is gone, the token no longer valid) ends the wait; a network fault or
      // an unavailable service is read again at the next tick
      if (error instanceof api.ApiError && error.status < 500 && error.status !== 429) {
        this.end({ kind: "ended", status: "refused" });
        this.onError(error);
        return;
      }
    }
    if (last) this.end({ kind: "ended", status: "expired" }); // no matcher marked it: bounded anyway
    else this.schedule();
  }

  /**
   * What the ticket says, read or answered: true when the wait is over.
   * @param {Ticket} ticket
   * @returns {boolean}
   */
  settle(ticket) {
    if (this.over) return true;
    this.ticket = ticket;
    if (ticket.status === "matched" && ticket.game_id && ticket.seat != null) {
      this.end({ kind: "matched", gameId: ticket.game_id, seat: ticket.seat });
    } else if (ticket.status === "cancelled" || ticket.status === "expired") {
      this.end({ kind: "ended", status: ticket.status });
    }
    return this.over;
  }

  /**
   * The player's stream told a match (``match_found``): ours when it names our ticket.
   * @param {{ ticket_id: string, game_id: string, seat: number }} notice
   */
  found(notice) {
    if (this.over || notice.ticket_id !== this.ticketId) return;
    this.end({ kind: "matched", gameId: notice.game_id, seat: notice.seat });
  }

  /** Cancel the ticket; a ticket matched meanwhile (409 ticket_not_waiting) ends the wait at its game. */
  async cancel() {
    if (this.over) return;
    try {
      this.settle(await api.cancelTicket(this.token, this.ticketId));
    } catch (error) {
      if (!(error instanceof api.ApiError && error.problem.code === "ticket_not_waiting")) {
        this.onError(error);
        return;
      }
      try {
        this.settle(await api.ticket(this.token, this.ticketId));
      } catch (again) {
        this.onError(again);
      }
    }
  }

  /** Stop reading, silently (the page moved on). */
  stop() {
    this.over = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** @param {Outcome} outcome */
  end(outcome) {
    if (this.over) return;
    this.stop();
    this.onEnd(outcome);
  }
}
