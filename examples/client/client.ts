// A small Atout client typed by the committed OpenAPI document: atout-api.d.ts is what
// `npx openapi-typescript openapi/openapi.json -o examples/client/atout-api.d.ts` generates from it,
// and `make test` checks this file with `tsc --noEmit` (tests/test_contract_tools.py).
import type { components } from "./atout-api";

type Schemas = components["schemas"];
export type View = Schemas["ViewResponse"]["view"];
export type LegalAction = Schemas["LegalActionsResponse"]["legal_actions"][number];
export type Action = Schemas["ActionRequest"]["action"];
export type GameEvent = Schemas["GameEvent"];
export type Problem = Schemas["Problem"];

export class AtoutError extends Error {
  constructor(readonly problem: Problem) {
    super(`${problem.code}: ${problem.detail}`);
  }
}

export class AtoutClient {
  constructor(
    private readonly base: string,
    private token?: string,
  ) {}

  private async call<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    const init: RequestInit = { method, headers };
    if (body !== undefined) init.body = JSON.stringify(body);
    const response = await fetch(this.base + path, init);
    if (!response.ok) throw new AtoutError((await response.json()) as Problem);
    return (await response.json()) as T;
  }

  createGame(body: Schemas["CreateGameRequest"]): Promise<Schemas["CreateGameResponse"]> {
    return this.call("POST", "/v1/games", body);
  }

  async join(gameId: string, body: Schemas["JoinRequest"] = {}): Promise<Schemas["JoinResponse"]> {
    const joined = await this.call<Schemas["JoinResponse"]>("POST", `/v1/games/${gameId}/join`, body);
    this.token = joined.token;
    return joined;
  }

  view(gameId: string): Promise<Schemas["ViewResponse"]> {
    return this.call("GET", `/v1/games/${gameId}/view`);
  }

  legalActions(gameId: string): Promise<Schemas["LegalActionsResponse"]> {
    return this.call("GET", `/v1/games/${gameId}/actions`);
  }

  act(gameId: string, request: Schemas["ActionRequest"]): Promise<Schemas["ActionResponse"]> {
    return this.call("POST", `/v1/games/${gameId}/actions`, request);
  }
}

/** The view narrows by its game: each game's own fields are typed. */
export function describe(view: View): string {
  const hand = view.hand.join(" ");
  switch (view.kind) {
    case "five_hundred":
      return view.contract
        ? `${view.contract.tricks}${view.contract.suit} by seat ${view.contract.taker}; hand ${hand}`
        : `bidding (${view.bids.length} bids); hand ${hand}`;
    case "rough":
      return `card points ${(view.trick_points ?? [0, 0]).join("-")}; hand ${hand}`;
    case "euchre5":
      return `upcard ${view.upcard ?? "gone"}; maker ${view.contract?.maker ?? "none"}; hand ${hand}`;
  }
}

/** A move from one of the legal actions: a discard comes as a template to fill. */
export function answer(legal: LegalAction, choose: (from: string[], count: number) => string[]): Action {
  if (legal.type === "discard") return { type: "discard", cards: choose(legal.choices, legal.count) };
  return legal;
}

/** Events narrow by type (a move's `events`, a stream envelope's `event`); a type added later falls
 * to `default`. */
export function narrate(event: GameEvent): string {
  switch (event.type) {
    case "card_played":
      return `seat ${event.seat} plays ${event.card}`;
    case "trick_won":
      return `seat ${event.winner} wins ${event.cards.join(" ")}`;
    case "five_hundred_hand_scored":
    case "rough_hand_scored":
    case "euchre5_hand_scored":
      return `hand ${event.hand_number}: scores ${event.scores.join(" / ")}`;
    case "turn":
      return event.to_act === null ? "the game is finished" : `seat ${event.to_act} to act`;
    case "your_turn":
      return `our turn: ${event.legal_actions.length} legal actions at version ${event.version}`;
    default:
      return event.type;
  }
}

// The walkthrough's first move: only the action is required.
export const firstMove: Schemas["ActionRequest"] = { action: { type: "pass" } };

/** Our turn: the version to name and what we may do, from a view, a move's `next_turn` or a
 * `your_turn` event of our stream (all three carry them). */
export interface Turn {
  version: number;
  legal: LegalAction[];
}

export function turnOfEvent(event: GameEvent): Turn | null {
  return event.type === "your_turn" ? { version: event.version, legal: event.legal_actions } : null;
}

/** One request a move: the view starts the client (it holds `legal_actions` on our turn), each move's
 * answer holds our next turn in `next_turn` when we act again at once; otherwise our next turn comes
 * on our stream as a `your_turn` event (`turnOfEvent`). No `GET …/actions`. */
export async function playOurTurns(client: AtoutClient, gameId: string, turn?: Turn | null): Promise<string> {
  if (turn === undefined) {
    const start = await client.view(gameId);
    turn = start.legal_actions ? { version: start.version, legal: start.legal_actions } : null;
  }
  const played: string[] = [];
  while (turn) {
    const first = turn.legal[0];
    if (first === undefined) break;
    const moved = await client.act(gameId, {
      action: answer(first, (from, count) => from.slice(0, count)),
      expected_version: turn.version,
    });
    played.push(...moved.events.map((e) => e.type));
    const next = moved.next_turn;
    turn = next ? { version: next.version, legal: next.legal_actions } : null;
  }
  return played.length ? played.join(", ") : "not our turn";
}
