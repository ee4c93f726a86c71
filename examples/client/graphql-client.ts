// A small Atout client over GraphQL, typed by the committed schema: its operations (the /* GraphQL */
// strings below) and schema/schema.graphql are what GraphQL Code Generator turns into
// atout-graphql.ts (`make openapi`, codegen.yml); `make test` checks this file with `tsc --noEmit`
// (tests/test_contract_tools.py).
import type {
  ActMutationVariables,
  ActionInput,
  ActMutation,
  CreatePlayerMutation,
  CreatePlayerMutationVariables,
  EventsSubscription,
  MyEventsSubscription,
  MyGamesQuery,
  MyGamesQueryVariables,
  SeatQuery,
  SeatQueryVariables,
} from "./atout-graphql";

const LEGAL = /* GraphQL */ `
  fragment Legal on LegalAction {
    __typename
    type
    ... on BidAction { tricks suit points }
    ... on PlayAction { card noTrump }
    ... on DiscardTemplate { count choices }
    ... on ExchangeAction { discard }
    ... on NameTrumpAction { suit }
    ... on CallPartnerAction { card }
  }
`;

export const SEAT = /* GraphQL */ `
  query Seat($gameId: ID!) {
    view(gameId: $gameId) {
      version
      seat
      view {
        __typename
        phase
        toAct
        hand
        scores
        trump
        currentTrick { seat card }
        bids { __typename type seat ... on SeatedBid { tricks suit points } }
        ... on FiveHundredView { contract { taker tricks suit value } kittyTaken }
        ... on RoughView { contract { taker points } trickPoints }
        ... on EuchreView { upcard contract { maker calledCard alone partner } }
      }
      legalActions { ...Legal }
    }
  }
  ${LEGAL}
`;

export const ACT = /* GraphQL */ `
  mutation Act($gameId: ID!, $action: ActionInput!, $expectedVersion: Int) {
    submitAction(input: { gameId: $gameId, action: $action, expectedVersion: $expectedVersion }) {
      version
      toAct
      status
      events { __typename ... on CardPlayed { seat card } ... on TrickWon { winner } }
      nextTurn { version legalActions { ...Legal } }
    }
  }
  ${LEGAL}
`;

export const EVENTS = /* GraphQL */ `
  subscription Events($gameId: ID!, $after: String) {
    gameEvents(gameId: $gameId, after: $after) {
      id
      version
      event {
        __typename
        ... on Event { type }
        ... on CardPlayed { seat card }
        ... on Dealt { cards }
        ... on Turn { toAct status }
        ... on FiveHundredHandScored { scores points }
        ... on RoughHandScored { scores points }
        ... on Euchre5HandScored { scores points }
        ... on YourTurn { legalActions { ...Legal } }
      }
    }
  }
  ${LEGAL}
`;

// A player (issue 23): a guest made once, its token kept on the device; every table it joins with that
// token as bearer is its own, and one subscription brings its turns in all of them.
export const CREATE_PLAYER = /* GraphQL */ `
  mutation CreatePlayer($name: String!, $locale: String!) {
    createPlayer(input: { name: $name, locale: $locale }) { playerId name token }
  }
`;

export const MY_GAMES = /* GraphQL */ `
  query MyGames($after: String) {
    myGames(first: 20, after: $after) {
      nodes { gameId kind status seat toAct yourTurn updatedAt }
      pageInfo { hasNextPage endCursor }
    }
  }
`;

export const MY_EVENTS = /* GraphQL */ `
  subscription MyEvents($after: String) {
    myEvents(after: $after) {
      __typename
      id
      type
      gameId
      ... on YourTurnNotice { version seat legalActions { ...Legal } }
      ... on GameFinishedNotice { version winners }
      ... on InvitationNotice { invitationId fromName kind }
      ... on RematchOfferedNotice { rematchId }
      ... on ReminderNotice { version seat deadlineAt }
    }
  }
  ${LEGAL}
`;

// A root lookup is nullable (null with its error in `errors`): `request` throws on an error first.
export type SeatAnswer = NonNullable<SeatQuery["view"]>;
export type View = SeatAnswer["view"];
export type LegalAction = NonNullable<SeatAnswer["legalActions"]>[number];
export type EventEnvelope = EventsSubscription["gameEvents"];
export type StreamEvent = EventEnvelope["event"];
export type PlayerNotice = MyEventsSubscription["myEvents"];
export type MyGame = NonNullable<MyGamesQuery["myGames"]>["nodes"][number];

interface GraphQLAnswer<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

export class AtoutGraphQLError extends Error {
  constructor(readonly code: string, message: string) {
    super(`${code}: ${message}`);
  }
}

export async function request<T, V>(base: string, token: string | null, query: string, variables: V): Promise<T> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${base}/graphql`, {
    method: "POST",
    headers,
    body: JSON.stringify({ query, variables }),
  });
  const answer = (await response.json()) as GraphQLAnswer<T>;
  const error = answer.errors?.[0];
  if (error || !answer.data) throw new AtoutGraphQLError(error?.extensions?.code ?? "unknown", error?.message ?? "");
  return answer.data;
}

/** A guest player: keep `token` (shown once) and send it as the bearer of every request. */
export async function createPlayer(base: string, name: string, locale: string): Promise<CreatePlayerMutation["createPlayer"]> {
  const made = await request<CreatePlayerMutation, CreatePlayerMutationVariables>(base, null, CREATE_PLAYER, { name, locale });
  return made.createPlayer;
}

/** Every game of the player, your turn first, a page at a time (a Relay connection: `after` the
 * page's `pageInfo.endCursor` while `hasNextPage`). */
export async function myGames(base: string, token: string): Promise<MyGame[]> {
  const games: MyGame[] = [];
  let after: string | null = null;
  for (;;) {
    const page: MyGamesQuery = await request<MyGamesQuery, MyGamesQueryVariables>(base, token, MY_GAMES, { after });
    const connection = page.myGames;
    if (!connection) break;
    games.push(...connection.nodes);
    if (!connection.pageInfo.hasNextPage) break;
    after = connection.pageInfo.endCursor;
  }
  return games;
}

export function seat(base: string, token: string, gameId: string): Promise<SeatQuery> {
  return request<SeatQuery, SeatQueryVariables>(base, token, SEAT, { gameId });
}

export function act(base: string, token: string, variables: ActMutationVariables): Promise<ActMutation> {
  return request<ActMutation, ActMutationVariables>(base, token, ACT, variables);
}

/** A legal action as the @oneOf ActionInput that plays it (a discard takes the first `count` cards). */
export function chosen(action: LegalAction): ActionInput {
  switch (action.__typename) {
    case "PassAction":
      return { pass: true };
    case "BidAction":
      return { bid: { tricks: action.tricks, suit: action.suit, points: action.points } };
    case "KeepAction":
      return { keep: true };
    case "DiscardTemplate":
      return { discard: { cards: action.choices.slice(0, action.count) } };
    case "PlayAction":
      return { play: { card: action.card } };
    case "OrderUpAction":
      return { orderUp: true };
    case "ExchangeAction":
      return { exchange: { discard: action.discard } };
    case "NameTrumpAction":
      return { nameTrump: { suit: action.suit ?? "S" } };
    case "CallPartnerAction":
      return { callPartner: { card: action.card } };
    case "GoAloneAction":
      return { goAlone: true };
    default: {
      const never: never = action;
      return never;
    }
  }
}

/** The view narrows by its game: each game's own fields are typed. */
export function describe(view: View): string {
  const hand = view.hand.join(" ");
  switch (view.__typename) {
    case "FiveHundredView":
      return `Le 500, ${view.phase}: ${hand}; contract ${view.contract ? view.contract.tricks + (view.contract.suit ?? "") : "none"}`;
    case "RoughView":
      return `Le Rough, ${view.phase}: ${hand}; card points ${view.trickPoints?.join("-") ?? "0-0"}`;
    case "EuchreView":
      return `Euchre, ${view.phase}: ${hand}; upcard ${view.upcard ?? "none"}, partner ${view.contract?.partner ?? "unknown"}`;
  }
}

/** Our turn: the version to name and what we may do (a view's `legalActions`, a move's `nextTurn`, a
 * `YourTurn` event of the subscription: all three carry them). */
export interface Turn {
  version: number;
  legal: LegalAction[];
}

/** A `YourTurn` event as our turn, at the version of its envelope (the stream's frame). */
export function turnOfEvent(envelope: EventEnvelope): Turn | null {
  const event = envelope.event;
  return event.__typename === "YourTurn" ? { version: envelope.version, legal: event.legalActions } : null;
}

/** Our turns, one request a move: the first from `turn` (a `YourTurn` event, `turnOfEvent`) or one
 * read of the view, the next ones from each move's `nextTurn` while we act again at once. Returns
 * when another seat is to act: our next turn comes on the subscription. */
export async function playOurTurns(base: string, token: string, gameId: string, turn?: Turn | null): Promise<number> {
  if (turn === undefined) {
    const { view } = await seat(base, token, gameId);
    turn = view?.legalActions ? { version: view.version, legal: view.legalActions } : null;
  }
  let moves = 0;
  while (turn) {
    const first = turn.legal[0];
    if (first === undefined) break;
    const { submitAction } = await act(base, token, { gameId, action: chosen(first), expectedVersion: turn.version });
    moves += 1;
    const next = submitAction.nextTurn;
    turn = next ? { version: next.version, legal: next.legalActions } : null;
  }
  return moves;
}

/** A player's turn, from a `your_turn` notice of `myEvents` (in any of its games: `gameId`). */
export function turnOfNotice(notice: PlayerNotice): Turn | null {
  if (notice.__typename !== "YourTurnNotice") return null;
  return { version: notice.version, legal: notice.legalActions };
}

/** A notice narrows by `__typename`, one type per notice `type`; a type added later falls to `default`. */
export function onNotice(notice: PlayerNotice): string {
  switch (notice.__typename) {
    case "YourTurnNotice":
      return `our turn in ${notice.gameId}: ${notice.legalActions.length} legal actions`;
    case "InvitationNotice":
      return `${notice.fromName || "someone"} invites us to ${notice.gameId} (invitation ${notice.invitationId})`;
    case "GameFinishedNotice":
      return `${notice.gameId} is finished: seats ${notice.winners.join(", ")} won`;
    case "RematchOfferedNotice":
      return `a rematch of ${notice.gameId}: ${notice.rematchId}`;
    case "ReminderNotice":
      return `our turn in ${notice.gameId} runs out at ${notice.deadlineAt}`;
    default:
      return notice.type;
  }
}

/** An event narrows by `__typename`, its type's name (`CardPlayed` for CARD_PLAYED); a type added
 * later falls to `default`. */
export function onEvent(event: StreamEvent): string {
  switch (event.__typename) {
    case "CardPlayed":
      return `seat ${event.seat} plays ${event.card}`;
    case "Turn":
      return event.toAct === null ? "the game is finished" : `seat ${event.toAct} to act`;
    case "YourTurn":
      return `our turn: ${event.legalActions.length} legal actions`;
    default:
      return event.__typename;
  }
}
