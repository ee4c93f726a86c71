/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
/** `ActionInput`, a `@oneOf` input: exactly one field, named after the action's type — an object with the action's fields (`bid: {points: 80}`, `play: {card: "AS"}`), or `true` for an action without any (`pass: true`, `orderUp: true`). */
export type ActionInput =
  {   bid: BidInput; callPartner?: never; discard?: never; exchange?: never; goAlone?: never; keep?: never; nameTrump?: never; orderUp?: never; pass?: never; play?: never; }
  |  { bid?: never;   callPartner: CallPartnerInput; discard?: never; exchange?: never; goAlone?: never; keep?: never; nameTrump?: never; orderUp?: never; pass?: never; play?: never; }
  |  { bid?: never; callPartner?: never;   discard: DiscardInput; exchange?: never; goAlone?: never; keep?: never; nameTrump?: never; orderUp?: never; pass?: never; play?: never; }
  |  { bid?: never; callPartner?: never; discard?: never;   exchange: ExchangeInput; goAlone?: never; keep?: never; nameTrump?: never; orderUp?: never; pass?: never; play?: never; }
  |  { bid?: never; callPartner?: never; discard?: never; exchange?: never;   goAlone: boolean; keep?: never; nameTrump?: never; orderUp?: never; pass?: never; play?: never; }
  |  { bid?: never; callPartner?: never; discard?: never; exchange?: never; goAlone?: never;   keep: boolean; nameTrump?: never; orderUp?: never; pass?: never; play?: never; }
  |  { bid?: never; callPartner?: never; discard?: never; exchange?: never; goAlone?: never; keep?: never;   nameTrump: NameTrumpInput; orderUp?: never; pass?: never; play?: never; }
  |  { bid?: never; callPartner?: never; discard?: never; exchange?: never; goAlone?: never; keep?: never; nameTrump?: never;   orderUp: boolean; pass?: never; play?: never; }
  |  { bid?: never; callPartner?: never; discard?: never; exchange?: never; goAlone?: never; keep?: never; nameTrump?: never; orderUp?: never;   pass: boolean; play?: never; }
  |  { bid?: never; callPartner?: never; discard?: never; exchange?: never; goAlone?: never; keep?: never; nameTrump?: never; orderUp?: never; pass?: never;   play: PlayInput; };

/** Le 500: `tricks` and `suit`; Le Rough: `points`. A bid with neither is refused (422): said here in words, not as a schema (an `anyOf` in the discriminated Action makes openapi-generator warn). */
export type BidInput = {
  points?: number | null | undefined;
  suit?: string | null | undefined;
  tricks?: number | null | undefined;
};

/** call_partner */
export type CallPartnerInput = {
  card: string;
};

/** discard */
export type DiscardInput = {
  cards: Array<string>;
};

/** exchange */
export type ExchangeInput = {
  discard: string;
};

/** name_trump */
export type NameTrumpInput = {
  suit: string;
};

/** play */
export type PlayInput = {
  card: string;
  /** Le Rough: the taker's first lead only. */
  noTrump?: boolean | null | undefined;
};

type Legal_BidAction_Fragment = { __typename: 'BidAction', tricks: number | null, suit: string | null, points: number | null, type: string };

type Legal_CallPartnerAction_Fragment = { __typename: 'CallPartnerAction', card: string, type: string };

type Legal_DiscardTemplate_Fragment = { __typename: 'DiscardTemplate', count: number, from: Array<string>, type: string };

type Legal_ExchangeAction_Fragment = { __typename: 'ExchangeAction', discard: string, type: string };

type Legal_GoAloneAction_Fragment = { __typename: 'GoAloneAction', type: string };

type Legal_KeepAction_Fragment = { __typename: 'KeepAction', type: string };

type Legal_NameTrumpAction_Fragment = { __typename: 'NameTrumpAction', suit: string | null, type: string };

type Legal_OrderUpAction_Fragment = { __typename: 'OrderUpAction', type: string };

type Legal_PassAction_Fragment = { __typename: 'PassAction', type: string };

type Legal_PlayAction_Fragment = { __typename: 'PlayAction', card: string, noTrump: boolean | null, type: string };

export type LegalFragment =
  | Legal_BidAction_Fragment
  | Legal_CallPartnerAction_Fragment
  | Legal_DiscardTemplate_Fragment
  | Legal_ExchangeAction_Fragment
  | Legal_GoAloneAction_Fragment
  | Legal_KeepAction_Fragment
  | Legal_NameTrumpAction_Fragment
  | Legal_OrderUpAction_Fragment
  | Legal_PassAction_Fragment
  | Legal_PlayAction_Fragment
;

export type SeatQueryVariables = Exact<{
  gameId: string | number;
}>;


export type SeatQuery = { view: { version: number, seat: number | null, view:
      | { __typename: 'EuchreView', upcard: string | null, phase: string, toAct: number | null, hand: Array<string>, scores: Array<number>, trump: string | null, contract: { maker: number, calledCard: string | null, alone: boolean, partner: number | null } | null, currentTrick: Array<{ seat: number, card: string }>, bids: Array<
          | { __typename: 'SeatedBid', tricks: number | null, suit: string | null, points: number | null, type: string, seat: number }
          | { __typename: 'SeatedCallPartner', type: string, seat: number }
          | { __typename: 'SeatedGoAlone', type: string, seat: number }
          | { __typename: 'SeatedKeep', type: string, seat: number }
          | { __typename: 'SeatedNameTrump', type: string, seat: number }
          | { __typename: 'SeatedOrderUp', type: string, seat: number }
          | { __typename: 'SeatedPass', type: string, seat: number }
        > }
      | { __typename: 'FiveHundredView', kittyTaken: Array<string> | null, phase: string, toAct: number | null, hand: Array<string>, scores: Array<number>, trump: string | null, contract: { taker: number, tricks: number, suit: string, value: number } | null, currentTrick: Array<{ seat: number, card: string }>, bids: Array<
          | { __typename: 'SeatedBid', tricks: number | null, suit: string | null, points: number | null, type: string, seat: number }
          | { __typename: 'SeatedCallPartner', type: string, seat: number }
          | { __typename: 'SeatedGoAlone', type: string, seat: number }
          | { __typename: 'SeatedKeep', type: string, seat: number }
          | { __typename: 'SeatedNameTrump', type: string, seat: number }
          | { __typename: 'SeatedOrderUp', type: string, seat: number }
          | { __typename: 'SeatedPass', type: string, seat: number }
        > }
      | { __typename: 'RoughView', trickPoints: Array<number> | null, phase: string, toAct: number | null, hand: Array<string>, scores: Array<number>, trump: string | null, contract: { taker: number, points: number } | null, currentTrick: Array<{ seat: number, card: string }>, bids: Array<
          | { __typename: 'SeatedBid', tricks: number | null, suit: string | null, points: number | null, type: string, seat: number }
          | { __typename: 'SeatedCallPartner', type: string, seat: number }
          | { __typename: 'SeatedGoAlone', type: string, seat: number }
          | { __typename: 'SeatedKeep', type: string, seat: number }
          | { __typename: 'SeatedNameTrump', type: string, seat: number }
          | { __typename: 'SeatedOrderUp', type: string, seat: number }
          | { __typename: 'SeatedPass', type: string, seat: number }
        > }
    , legalActions: Array<
      | { __typename: 'BidAction', tricks: number | null, suit: string | null, points: number | null, type: string }
      | { __typename: 'CallPartnerAction', card: string, type: string }
      | { __typename: 'DiscardTemplate', count: number, from: Array<string>, type: string }
      | { __typename: 'ExchangeAction', discard: string, type: string }
      | { __typename: 'GoAloneAction', type: string }
      | { __typename: 'KeepAction', type: string }
      | { __typename: 'NameTrumpAction', suit: string | null, type: string }
      | { __typename: 'OrderUpAction', type: string }
      | { __typename: 'PassAction', type: string }
      | { __typename: 'PlayAction', card: string, noTrump: boolean | null, type: string }
    > | null } };

export type ActMutationVariables = Exact<{
  gameId: string | number;
  action: ActionInput;
  expectedVersion?: number | null | undefined;
}>;


export type ActMutation = { submitAction: { version: number, toAct: number | null, status: string, events: Array<
      | { __typename: 'BidMade', type: string }
      | { __typename: 'CardPlayed', seat: number | null, card: string, type: string }
      | { __typename: 'ContractFixed', type: string }
      | { __typename: 'Dealt', type: string }
      | { __typename: 'DiscardDue', type: string }
      | { __typename: 'Discarded', type: string }
      | { __typename: 'ExchangeDeclined', type: string }
      | { __typename: 'Exchanged', type: string }
      | { __typename: 'GameCreated', type: string }
      | { __typename: 'GameStarted', type: string }
      | { __typename: 'HandCommitment', type: string }
      | { __typename: 'HandScored', type: string }
      | { __typename: 'HandSeed', type: string }
      | { __typename: 'HandStarted', type: string }
      | { __typename: 'HandVoid', type: string }
      | { __typename: 'KittyTaken', type: string }
      | { __typename: 'MatchKey', type: string }
      | { __typename: 'MatchOver', type: string }
      | { __typename: 'OrderedUp', type: string }
      | { __typename: 'PartnerCalled', type: string }
      | { __typename: 'PartnerRevealed', type: string }
      | { __typename: 'SeatForfeited', type: string }
      | { __typename: 'SeatJoined', type: string }
      | { __typename: 'SeatLeft', type: string }
      | { __typename: 'TrickTaken', winner: number, type: string }
      | { __typename: 'TrumpAnnounced', type: string }
      | { __typename: 'TrumpNamed', type: string }
      | { __typename: 'Turn', type: string }
      | { __typename: 'TurnTimedOut', type: string }
      | { __typename: 'Upcard', type: string }
      | { __typename: 'UpcardTurnedDown', type: string }
      | { __typename: 'WentAlone', type: string }
      | { __typename: 'YouArePartner', type: string }
    >, nextTurn: { version: number, legalActions: Array<
        | { __typename: 'BidAction', tricks: number | null, suit: string | null, points: number | null, type: string }
        | { __typename: 'CallPartnerAction', card: string, type: string }
        | { __typename: 'DiscardTemplate', count: number, from: Array<string>, type: string }
        | { __typename: 'ExchangeAction', discard: string, type: string }
        | { __typename: 'GoAloneAction', type: string }
        | { __typename: 'KeepAction', type: string }
        | { __typename: 'NameTrumpAction', suit: string | null, type: string }
        | { __typename: 'OrderUpAction', type: string }
        | { __typename: 'PassAction', type: string }
        | { __typename: 'PlayAction', card: string, noTrump: boolean | null, type: string }
      > } | null } };

export type EventsSubscriptionVariables = Exact<{
  gameId: string | number;
  after?: string | null | undefined;
}>;


export type EventsSubscription = { gameEvents:
    | { __typename: 'BidMadeEvent', id: string, version: number, type: string }
    | { __typename: 'CardPlayedEvent', seat: number | null, card: string, id: string, version: number, type: string }
    | { __typename: 'ContractFixedEvent', id: string, version: number, type: string }
    | { __typename: 'DealtEvent', cards: Array<string>, id: string, version: number, type: string }
    | { __typename: 'DiscardDueEvent', id: string, version: number, type: string }
    | { __typename: 'DiscardedEvent', id: string, version: number, type: string }
    | { __typename: 'ExchangeDeclinedEvent', id: string, version: number, type: string }
    | { __typename: 'ExchangedEvent', id: string, version: number, type: string }
    | { __typename: 'GameCreatedEvent', id: string, version: number, type: string }
    | { __typename: 'GameStartedEvent', id: string, version: number, type: string }
    | { __typename: 'HandCommitmentEvent', id: string, version: number, type: string }
    | { __typename: 'HandScoredEvent', scores: Array<number>, points: Array<number> | null, id: string, version: number, type: string }
    | { __typename: 'HandSeedEvent', id: string, version: number, type: string }
    | { __typename: 'HandStartedEvent', id: string, version: number, type: string }
    | { __typename: 'HandVoidEvent', id: string, version: number, type: string }
    | { __typename: 'KittyTakenEvent', id: string, version: number, type: string }
    | { __typename: 'MatchKeyEvent', id: string, version: number, type: string }
    | { __typename: 'MatchOverEvent', id: string, version: number, type: string }
    | { __typename: 'OrderedUpEvent', id: string, version: number, type: string }
    | { __typename: 'PartnerCalledEvent', id: string, version: number, type: string }
    | { __typename: 'PartnerRevealedEvent', id: string, version: number, type: string }
    | { __typename: 'SeatForfeitedEvent', id: string, version: number, type: string }
    | { __typename: 'SeatJoinedEvent', id: string, version: number, type: string }
    | { __typename: 'SeatLeftEvent', id: string, version: number, type: string }
    | { __typename: 'TrickTakenEvent', id: string, version: number, type: string }
    | { __typename: 'TrumpAnnouncedEvent', id: string, version: number, type: string }
    | { __typename: 'TrumpNamedEvent', id: string, version: number, type: string }
    | { __typename: 'TurnEvent', toAct: number | null, status: string, id: string, version: number, type: string }
    | { __typename: 'TurnTimedOutEvent', id: string, version: number, type: string }
    | { __typename: 'UpcardEvent', id: string, version: number, type: string }
    | { __typename: 'UpcardTurnedDownEvent', id: string, version: number, type: string }
    | { __typename: 'WentAloneEvent', id: string, version: number, type: string }
    | { __typename: 'YouArePartnerEvent', id: string, version: number, type: string }
    | { __typename: 'YourTurnEvent', id: string, version: number, type: string, actions: Array<
        | { __typename: 'BidAction', tricks: number | null, suit: string | null, points: number | null, type: string }
        | { __typename: 'CallPartnerAction', card: string, type: string }
        | { __typename: 'DiscardTemplate', count: number, from: Array<string>, type: string }
        | { __typename: 'ExchangeAction', discard: string, type: string }
        | { __typename: 'GoAloneAction', type: string }
        | { __typename: 'KeepAction', type: string }
        | { __typename: 'NameTrumpAction', suit: string | null, type: string }
        | { __typename: 'OrderUpAction', type: string }
        | { __typename: 'PassAction', type: string }
        | { __typename: 'PlayAction', card: string, noTrump: boolean | null, type: string }
      > }
   };

export type CreatePlayerMutationVariables = Exact<{
  name: string;
  locale: string;
}>;


export type CreatePlayerMutation = { createPlayer: { playerId: string, name: string, token: string } };

export type MyGamesQueryVariables = Exact<{
  cursor?: string | null | undefined;
}>;


export type MyGamesQuery = { myGames: { nextCursor: string | null, games: Array<{ gameId: string, game: string, status: string, seat: number, toAct: number | null, yourTurn: boolean, updatedAt: number }> } };

export type MyEventsSubscriptionVariables = Exact<{
  after?: string | null | undefined;
}>;


export type MyEventsSubscription = { myEvents: { id: string, type: string, gameId: string, version: number | null, seat: number | null, winners: Array<number> | null, invitationId: string | null, fromName: string | null, rematchId: string | null, deadline: number | null, legalActions: Array<
      | { __typename: 'BidAction', tricks: number | null, suit: string | null, points: number | null, type: string }
      | { __typename: 'CallPartnerAction', card: string, type: string }
      | { __typename: 'DiscardTemplate', count: number, from: Array<string>, type: string }
      | { __typename: 'ExchangeAction', discard: string, type: string }
      | { __typename: 'GoAloneAction', type: string }
      | { __typename: 'KeepAction', type: string }
      | { __typename: 'NameTrumpAction', suit: string | null, type: string }
      | { __typename: 'OrderUpAction', type: string }
      | { __typename: 'PassAction', type: string }
      | { __typename: 'PlayAction', card: string, noTrump: boolean | null, type: string }
    > | null } };
