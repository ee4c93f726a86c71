/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
/** `ActionInput`, a `@oneOf` input: exactly one field, named after the action's type — an object with the action's fields (`bid: {points: 80}`, `play: {card: "AS"}`), or `true` for an action without any (`pass: true`, `orderUp: true`). */
export type ActionInput =
  {   /** `bid`: its BidInput */
  bid: BidInput; callPartner?: never; discard?: never; exchange?: never; goAlone?: never; keep?: never; nameTrump?: never; orderUp?: never; pass?: never; play?: never; }
  |  { bid?: never;   /** `callPartner`: its CallPartnerInput */
  callPartner: CallPartnerInput; discard?: never; exchange?: never; goAlone?: never; keep?: never; nameTrump?: never; orderUp?: never; pass?: never; play?: never; }
  |  { bid?: never; callPartner?: never;   /** `discard`: its DiscardInput */
  discard: DiscardInput; exchange?: never; goAlone?: never; keep?: never; nameTrump?: never; orderUp?: never; pass?: never; play?: never; }
  |  { bid?: never; callPartner?: never; discard?: never;   /** `exchange`: its ExchangeInput */
  exchange: ExchangeInput; goAlone?: never; keep?: never; nameTrump?: never; orderUp?: never; pass?: never; play?: never; }
  |  { bid?: never; callPartner?: never; discard?: never; exchange?: never;   /** `goAlone`: true */
  goAlone: boolean; keep?: never; nameTrump?: never; orderUp?: never; pass?: never; play?: never; }
  |  { bid?: never; callPartner?: never; discard?: never; exchange?: never; goAlone?: never;   /** `keep`: true */
  keep: boolean; nameTrump?: never; orderUp?: never; pass?: never; play?: never; }
  |  { bid?: never; callPartner?: never; discard?: never; exchange?: never; goAlone?: never; keep?: never;   /** `nameTrump`: its NameTrumpInput */
  nameTrump: NameTrumpInput; orderUp?: never; pass?: never; play?: never; }
  |  { bid?: never; callPartner?: never; discard?: never; exchange?: never; goAlone?: never; keep?: never; nameTrump?: never;   /** `orderUp`: true */
  orderUp: boolean; pass?: never; play?: never; }
  |  { bid?: never; callPartner?: never; discard?: never; exchange?: never; goAlone?: never; keep?: never; nameTrump?: never; orderUp?: never;   /** `pass`: true */
  pass: boolean; play?: never; }
  |  { bid?: never; callPartner?: never; discard?: never; exchange?: never; goAlone?: never; keep?: never; nameTrump?: never; orderUp?: never; pass?: never;   /** `play`: its PlayInput */
  play: PlayInput; };

/** An action's `type`: what the seat does (docs/rules.md). */
export type ActionType =
  | 'BID'
  | 'CALL_PARTNER'
  | 'DISCARD'
  | 'EXCHANGE'
  | 'GO_ALONE'
  | 'KEEP'
  | 'NAME_TRUMP'
  | 'ORDER_UP'
  | 'PASS'
  | 'PLAY';

/** Le 500: `tricks` and `suit`; Le Rough: `points`. A bid with neither is refused (422): said here in words, not as a schema (an `anyOf` in the discriminated Action makes openapi-generator warn). */
export type BidInput = {
  /** Points scored. */
  points?: number | null | undefined;
  /** A suit (S, C, D, H), or NT: no trump. */
  suit?: Suit | null | undefined;
  /** Tricks: a count of them, or this hand's finished tricks. */
  tricks?: number | null | undefined;
};

/** The action `call_partner` (docs/rules.md says when it is legal). */
export type CallPartnerInput = {
  /** A card (see the Card scalar). */
  card: string;
};

/** The action `discard` (docs/rules.md says when it is legal). */
export type DiscardInput = {
  /** Cards (see the Card scalar). */
  cards: Array<string>;
};

/** An event's `type`, its type's name in UPPER_CASE (`CardPlayed`: CARD_PLAYED): open to additions, a client skips an event whose type it does not know. */
export type EventType =
  | 'BID_MADE'
  | 'CARD_PLAYED'
  | 'CONTRACT_FIXED'
  | 'DEALT'
  | 'DISCARDED'
  | 'DISCARD_DUE'
  | 'EUCHRE5_HAND_SCORED'
  | 'EXCHANGED'
  | 'EXCHANGE_DECLINED'
  | 'FIVE_HUNDRED_HAND_SCORED'
  | 'GAME_CREATED'
  | 'GAME_FINISHED'
  | 'GAME_STARTED'
  | 'HAND_COMMITMENT'
  | 'HAND_SEED'
  | 'HAND_STARTED'
  | 'HAND_VOID'
  | 'KITTY_TAKEN'
  | 'MATCH_KEY'
  | 'ORDERED_UP'
  | 'PARTNER_CALLED'
  | 'PARTNER_REVEALED'
  | 'ROUGH_HAND_SCORED'
  | 'SEAT_FORFEITED'
  | 'SEAT_JOINED'
  | 'SEAT_LEFT'
  | 'TRICK_WON'
  | 'TRUMP_ANNOUNCED'
  | 'TRUMP_NAMED'
  | 'TURN'
  | 'TURN_TIMED_OUT'
  | 'UPCARD'
  | 'UPCARD_TURNED_DOWN'
  | 'WENT_ALONE'
  | 'YOUR_TURN'
  | 'YOU_ARE_PARTNER';

/** The action `exchange` (docs/rules.md says when it is legal). */
export type ExchangeInput = {
  /** Cards discarded. */
  discard: string;
};

/** Which game a game plays (docs/rules.md): open to additions. */
export type GameKind =
  | 'EUCHRE5'
  | 'FIVE_HUNDRED'
  | 'ROUGH';

/** A game's state: WAITING (seats open), ACTIVE, FINISHED. */
export type GameStatus =
  | 'ACTIVE'
  | 'FINISHED'
  | 'WAITING';

/** The action `name_trump` (docs/rules.md says when it is legal). */
export type NameTrumpInput = {
  /** A suit (S, C, D, H), or NT: no trump. */
  suit: Suit;
};

/** A notice's `type`, on a bot's and a player's streams: open to additions (a client skips a notice whose type it does not know). */
export type NoticeType =
  | 'GAME_FINISHED'
  | 'GAME_STARTED'
  | 'INVITATION'
  | 'MATCH_FOUND'
  | 'REMATCH_OFFERED'
  | 'REMINDER'
  | 'TOURNAMENT_GAME'
  | 'YOUR_TURN';

/** Where a hand is: each game's phases (docs/rules.md). */
export type Phase =
  | 'BIDDING'
  | 'CALL'
  | 'DISCARD'
  | 'EXCHANGE'
  | 'NAME'
  | 'ORDER'
  | 'OVER'
  | 'PLAY'
  | 'WAITING';

/** The action `play` (docs/rules.md says when it is legal). */
export type PlayInput = {
  /** A card (see the Card scalar). */
  card: string;
  /** Le Rough: the taker's first lead only. */
  noTrump?: boolean | null | undefined;
};

/** A suit (S spades, C clubs, D diamonds, H hearts), or NT: no trump. */
export type Suit =
  | 'C'
  | 'D'
  | 'H'
  | 'NT'
  | 'S';

type Legal_BidAction_Fragment = { __typename: 'BidAction', tricks: number | null, suit: Suit | null, points: number | null, type: ActionType };

type Legal_CallPartnerAction_Fragment = { __typename: 'CallPartnerAction', card: string, type: ActionType };

type Legal_DiscardTemplate_Fragment = { __typename: 'DiscardTemplate', count: number, choices: Array<string>, type: ActionType };

type Legal_ExchangeAction_Fragment = { __typename: 'ExchangeAction', discard: string, type: ActionType };

type Legal_GoAloneAction_Fragment = { __typename: 'GoAloneAction', type: ActionType };

type Legal_KeepAction_Fragment = { __typename: 'KeepAction', type: ActionType };

type Legal_NameTrumpAction_Fragment = { __typename: 'NameTrumpAction', suit: Suit | null, type: ActionType };

type Legal_OrderUpAction_Fragment = { __typename: 'OrderUpAction', type: ActionType };

type Legal_PassAction_Fragment = { __typename: 'PassAction', type: ActionType };

type Legal_PlayAction_Fragment = { __typename: 'PlayAction', card: string, noTrump: boolean | null, type: ActionType };

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
      | { __typename: 'EuchreView', upcard: string | null, phase: Phase, toAct: number | null, hand: Array<string>, scores: Array<number>, trump: Suit | null, contract: { maker: number, calledCard: string | null, alone: boolean, partner: number | null } | null, currentTrick: Array<{ seat: number, card: string }>, bids: Array<
          | { __typename: 'SeatedBid', tricks: number | null, suit: Suit | null, points: number | null, type: ActionType, seat: number }
          | { __typename: 'SeatedCallPartner', type: ActionType, seat: number }
          | { __typename: 'SeatedGoAlone', type: ActionType, seat: number }
          | { __typename: 'SeatedKeep', type: ActionType, seat: number }
          | { __typename: 'SeatedNameTrump', type: ActionType, seat: number }
          | { __typename: 'SeatedOrderUp', type: ActionType, seat: number }
          | { __typename: 'SeatedPass', type: ActionType, seat: number }
        > }
      | { __typename: 'FiveHundredView', kittyTaken: Array<string> | null, phase: Phase, toAct: number | null, hand: Array<string>, scores: Array<number>, trump: Suit | null, contract: { taker: number, tricks: number, suit: Suit, value: number } | null, currentTrick: Array<{ seat: number, card: string }>, bids: Array<
          | { __typename: 'SeatedBid', tricks: number | null, suit: Suit | null, points: number | null, type: ActionType, seat: number }
          | { __typename: 'SeatedCallPartner', type: ActionType, seat: number }
          | { __typename: 'SeatedGoAlone', type: ActionType, seat: number }
          | { __typename: 'SeatedKeep', type: ActionType, seat: number }
          | { __typename: 'SeatedNameTrump', type: ActionType, seat: number }
          | { __typename: 'SeatedOrderUp', type: ActionType, seat: number }
          | { __typename: 'SeatedPass', type: ActionType, seat: number }
        > }
      | { __typename: 'RoughView', trickPoints: Array<number> | null, phase: Phase, toAct: number | null, hand: Array<string>, scores: Array<number>, trump: Suit | null, contract: { taker: number, points: number } | null, currentTrick: Array<{ seat: number, card: string }>, bids: Array<
          | { __typename: 'SeatedBid', tricks: number | null, suit: Suit | null, points: number | null, type: ActionType, seat: number }
          | { __typename: 'SeatedCallPartner', type: ActionType, seat: number }
          | { __typename: 'SeatedGoAlone', type: ActionType, seat: number }
          | { __typename: 'SeatedKeep', type: ActionType, seat: number }
          | { __typename: 'SeatedNameTrump', type: ActionType, seat: number }
          | { __typename: 'SeatedOrderUp', type: ActionType, seat: number }
          | { __typename: 'SeatedPass', type: ActionType, seat: number }
        > }
    , legalActions: Array<
      | { __typename: 'BidAction', tricks: number | null, suit: Suit | null, points: number | null, type: ActionType }
      | { __typename: 'CallPartnerAction', card: string, type: ActionType }
      | { __typename: 'DiscardTemplate', count: number, choices: Array<string>, type: ActionType }
      | { __typename: 'ExchangeAction', discard: string, type: ActionType }
      | { __typename: 'GoAloneAction', type: ActionType }
      | { __typename: 'KeepAction', type: ActionType }
      | { __typename: 'NameTrumpAction', suit: Suit | null, type: ActionType }
      | { __typename: 'OrderUpAction', type: ActionType }
      | { __typename: 'PassAction', type: ActionType }
      | { __typename: 'PlayAction', card: string, noTrump: boolean | null, type: ActionType }
    > | null } | null };

export type ActMutationVariables = Exact<{
  gameId: string | number;
  action: ActionInput;
  expectedVersion?: number | null | undefined;
}>;


export type ActMutation = { submitAction: { version: number, toAct: number | null, status: GameStatus, events: Array<
      | { __typename: 'BidMade' }
      | { __typename: 'CardPlayed', seat: number | null, card: string }
      | { __typename: 'ContractFixed' }
      | { __typename: 'Dealt' }
      | { __typename: 'DiscardDue' }
      | { __typename: 'Discarded' }
      | { __typename: 'Euchre5HandScored' }
      | { __typename: 'ExchangeDeclined' }
      | { __typename: 'Exchanged' }
      | { __typename: 'FiveHundredHandScored' }
      | { __typename: 'GameCreated' }
      | { __typename: 'GameFinished' }
      | { __typename: 'GameStarted' }
      | { __typename: 'HandCommitment' }
      | { __typename: 'HandSeed' }
      | { __typename: 'HandStarted' }
      | { __typename: 'HandVoid' }
      | { __typename: 'KittyTaken' }
      | { __typename: 'MatchKey' }
      | { __typename: 'OrderedUp' }
      | { __typename: 'PartnerCalled' }
      | { __typename: 'PartnerRevealed' }
      | { __typename: 'RoughHandScored' }
      | { __typename: 'SeatForfeited' }
      | { __typename: 'SeatJoined' }
      | { __typename: 'SeatLeft' }
      | { __typename: 'TrickWon', winner: number }
      | { __typename: 'TrumpAnnounced' }
      | { __typename: 'TrumpNamed' }
      | { __typename: 'Turn' }
      | { __typename: 'TurnTimedOut' }
      | { __typename: 'Upcard' }
      | { __typename: 'UpcardTurnedDown' }
      | { __typename: 'WentAlone' }
      | { __typename: 'YouArePartner' }
      | { __typename: 'YourTurn' }
    >, nextTurn: { version: number, legalActions: Array<
        | { __typename: 'BidAction', tricks: number | null, suit: Suit | null, points: number | null, type: ActionType }
        | { __typename: 'CallPartnerAction', card: string, type: ActionType }
        | { __typename: 'DiscardTemplate', count: number, choices: Array<string>, type: ActionType }
        | { __typename: 'ExchangeAction', discard: string, type: ActionType }
        | { __typename: 'GoAloneAction', type: ActionType }
        | { __typename: 'KeepAction', type: ActionType }
        | { __typename: 'NameTrumpAction', suit: Suit | null, type: ActionType }
        | { __typename: 'OrderUpAction', type: ActionType }
        | { __typename: 'PassAction', type: ActionType }
        | { __typename: 'PlayAction', card: string, noTrump: boolean | null, type: ActionType }
      > } | null } };

export type EventsSubscriptionVariables = Exact<{
  gameId: string | number;
  after?: string | null | undefined;
}>;


export type EventsSubscription = { gameEvents: { id: string, version: number, event:
      | { __typename: 'BidMade', type: EventType }
      | { __typename: 'CardPlayed', type: EventType, seat: number | null, card: string }
      | { __typename: 'ContractFixed', type: EventType }
      | { __typename: 'Dealt', type: EventType, cards: Array<string> }
      | { __typename: 'DiscardDue', type: EventType }
      | { __typename: 'Discarded', type: EventType }
      | { __typename: 'Euchre5HandScored', type: EventType, scores: Array<number>, points: Array<number> | null }
      | { __typename: 'ExchangeDeclined', type: EventType }
      | { __typename: 'Exchanged', type: EventType }
      | { __typename: 'FiveHundredHandScored', type: EventType, scores: Array<number>, points: Array<number> | null }
      | { __typename: 'GameCreated', type: EventType }
      | { __typename: 'GameFinished', type: EventType }
      | { __typename: 'GameStarted', type: EventType }
      | { __typename: 'HandCommitment', type: EventType }
      | { __typename: 'HandSeed', type: EventType }
      | { __typename: 'HandStarted', type: EventType }
      | { __typename: 'HandVoid', type: EventType }
      | { __typename: 'KittyTaken', type: EventType }
      | { __typename: 'MatchKey', type: EventType }
      | { __typename: 'OrderedUp', type: EventType }
      | { __typename: 'PartnerCalled', type: EventType }
      | { __typename: 'PartnerRevealed', type: EventType }
      | { __typename: 'RoughHandScored', type: EventType, scores: Array<number>, points: Array<number> | null }
      | { __typename: 'SeatForfeited', type: EventType }
      | { __typename: 'SeatJoined', type: EventType }
      | { __typename: 'SeatLeft', type: EventType }
      | { __typename: 'TrickWon', type: EventType }
      | { __typename: 'TrumpAnnounced', type: EventType }
      | { __typename: 'TrumpNamed', type: EventType }
      | { __typename: 'Turn', type: EventType, toAct: number | null, status: GameStatus }
      | { __typename: 'TurnTimedOut', type: EventType }
      | { __typename: 'Upcard', type: EventType }
      | { __typename: 'UpcardTurnedDown', type: EventType }
      | { __typename: 'WentAlone', type: EventType }
      | { __typename: 'YouArePartner', type: EventType }
      | { __typename: 'YourTurn', type: EventType, legalActions: Array<
          | { __typename: 'BidAction', tricks: number | null, suit: Suit | null, points: number | null, type: ActionType }
          | { __typename: 'CallPartnerAction', card: string, type: ActionType }
          | { __typename: 'DiscardTemplate', count: number, choices: Array<string>, type: ActionType }
          | { __typename: 'ExchangeAction', discard: string, type: ActionType }
          | { __typename: 'GoAloneAction', type: ActionType }
          | { __typename: 'KeepAction', type: ActionType }
          | { __typename: 'NameTrumpAction', suit: Suit | null, type: ActionType }
          | { __typename: 'OrderUpAction', type: ActionType }
          | { __typename: 'PassAction', type: ActionType }
          | { __typename: 'PlayAction', card: string, noTrump: boolean | null, type: ActionType }
        > }
     } };

export type CreatePlayerMutationVariables = Exact<{
  name: string;
  locale: string;
}>;


export type CreatePlayerMutation = { createPlayer: { playerId: string, name: string, token: string } };

export type MyGamesQueryVariables = Exact<{
  after?: string | null | undefined;
}>;


export type MyGamesQuery = { myGames: { nodes: Array<{ gameId: string, kind: GameKind, status: GameStatus, seat: number, toAct: number | null, yourTurn: boolean, updatedAt: string }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } | null };

export type MyEventsSubscriptionVariables = Exact<{
  after?: string | null | undefined;
}>;


export type MyEventsSubscription = { myEvents:
    | { __typename: 'GameFinishedNotice', version: number, winners: Array<number>, id: string, type: NoticeType, gameId: string }
    | { __typename: 'GameStartedNotice', id: string, type: NoticeType, gameId: string }
    | { __typename: 'InvitationNotice', invitationId: string, fromName: string, kind: GameKind, id: string, type: NoticeType, gameId: string }
    | { __typename: 'MatchFoundNotice', id: string, type: NoticeType, gameId: string }
    | { __typename: 'RematchOfferedNotice', rematchId: string, id: string, type: NoticeType, gameId: string }
    | { __typename: 'ReminderNotice', version: number, seat: number, deadlineAt: string, id: string, type: NoticeType, gameId: string }
    | { __typename: 'YourTurnNotice', version: number, seat: number, id: string, type: NoticeType, gameId: string, legalActions: Array<
        | { __typename: 'BidAction', tricks: number | null, suit: Suit | null, points: number | null, type: ActionType }
        | { __typename: 'CallPartnerAction', card: string, type: ActionType }
        | { __typename: 'DiscardTemplate', count: number, choices: Array<string>, type: ActionType }
        | { __typename: 'ExchangeAction', discard: string, type: ActionType }
        | { __typename: 'GoAloneAction', type: ActionType }
        | { __typename: 'KeepAction', type: ActionType }
        | { __typename: 'NameTrumpAction', suit: Suit | null, type: ActionType }
        | { __typename: 'OrderUpAction', type: ActionType }
        | { __typename: 'PassAction', type: ActionType }
        | { __typename: 'PlayAction', card: string, noTrump: boolean | null, type: ActionType }
      > }
   };
