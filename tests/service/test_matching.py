"""The matchmaker's pure algorithm (service/games/matching.py): pools, windows, seating, bots, bounds.

No Redis: ``match`` is a function of the tickets, the time and the rules.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from service.games.matching import Rules, Table, Ticket, bot_level_for, match, window

SEATS = {"five_hundred": 4, "rough": 4, "euchre5": 5}
TEAMS = {"five_hundred": True, "rough": True, "euchre5": False}
RULES = Rules(bot_fill_after={"five_hundred": 30.0, "rough": 30.0, "euchre5": 30.0})
NOW = 1000.0


def ticket(
    ticket_id: str,
    *members: str,
    kind: str = "rough",
    rated: bool = False,
    options: str = "",
    rating: float = 0.0,
    waited: float = 0.0,
    recent: Sequence[str] = (),
    bots_for_the_rest: bool = False,
    bot_account: bool = False,
) -> Ticket:
    """A ticket created ``waited`` seconds before NOW (one member named after the ticket by default)."""
    return Ticket(
        ticket_id=ticket_id,
        kind=kind,
        rated=rated,
        options_key=options,
        members=members or (f"acct-{ticket_id}",),
        rating=rating,
        created_at=NOW - waited,
        recent_opponents=frozenset(recent),
        bots_for_the_rest=bots_for_the_rest,
        bot_account=bot_account,
    )


def singles(count: int, kind: str = "rough", bot_account: bool = False) -> list[Ticket]:
    """Single players, p00000 the oldest."""
    return [
        ticket(f"p{i:05d}", kind=kind, bot_account=bot_account, waited=float(count - i)) for i in range(count)
    ]


def seats_of(table: Table, account: str) -> int:
    return table.seats.index(account)


# --- window and bot levels -------------------------------------------------------------------------


def test_window_grows_linearly_from_its_start_up_to_its_maximum() -> None:
    assert window(0, RULES) == 100.0
    assert window(10, RULES) == 350.0
    assert window(56, RULES) == 1500.0
    assert window(10_000, RULES) == 1500.0


def test_window_of_a_negative_wait_is_its_start() -> None:
    assert window(-5, RULES) == 100.0


def test_bot_level_thresholds_random_below_10_heuristic_below_25_else_expert() -> None:
    assert bot_level_for(0.0) == "random"
    assert bot_level_for(9.99) == "random"
    assert bot_level_for(10.0) == "heuristic"
    assert bot_level_for(24.99) == "heuristic"
    assert bot_level_for(25.0) == "expert"
    assert bot_level_for(-3.0) == "random"


# --- full tables ------------------------------------------------------------------------------------


def test_eight_rough_singles_make_two_full_tables_without_bots() -> None:
    tables = match(singles(8), NOW, RULES)
    assert len(tables) == 2
    assert all(len(t.seats) == 4 and None not in t.seats and t.bot_level is None for t in tables)
    assert sorted(tid for t in tables for tid in t.ticket_ids) == sorted(t.ticket_id for t in singles(8))


def test_euchre5_tables_seat_five_players() -> None:
    tables = match(singles(10, kind="euchre5"), NOW, RULES)
    assert len(tables) == 2
    assert all(len(t.seats) == 5 and None not in t.seats for t in tables)


def test_four_euchre5_singles_do_not_make_a_table_before_bot_fill() -> None:
    assert match(singles(4, kind="euchre5"), NOW, RULES) == []


def test_oldest_tickets_are_matched_first() -> None:
    tickets = singles(6)  # p00000 waited longest
    (table,) = match(tickets, NOW, RULES)
    assert table.ticket_ids == ("p00000", "p00001", "p00002", "p00003")


def test_casual_pools_ignore_ratings() -> None:
    tickets = [ticket(f"t{i}", rating=1000.0 * i) for i in range(4)]
    (table,) = match(tickets, NOW, RULES)
    assert None not in table.seats


def test_a_full_table_is_found_where_greedy_age_order_would_get_stuck() -> None:
    """A pair, then a single, then a pair: the oldest single does not fit, the second pair does."""
    tickets = [ticket("a", "a1", "a2", waited=3), ticket("b", waited=2), ticket("c", "c1", "c2", waited=1)]
    (table,) = match(tickets, NOW, RULES)
    assert set(table.ticket_ids) == {"a", "c"}


def test_full_tables_are_made_before_any_bot_fill() -> None:
    tickets = [ticket(f"t{i}", waited=100.0 + i) for i in range(5)]
    tables = match(tickets, NOW, RULES)
    full = [t for t in tables if None not in t.seats]
    filled = [t for t in tables if None in t.seats]
    assert len(full) == 1 and len(filled) == 1
    assert filled[0].seats.count(None) == 3


def test_same_input_gives_same_output_whatever_its_order() -> None:
    tickets = [*singles(9), ticket("pair", "x", "y", waited=50), ticket("any", options="", waited=7)]
    tickets += [ticket(f"o{i}", options='{"target_score":500}', waited=i) for i in range(5)]
    shuffled = list(tickets)
    random.Random(7).shuffle(shuffled)
    assert match(tickets, NOW, RULES) == match(shuffled, NOW, RULES)


def test_ten_thousand_casual_rough_singles_make_2500_tables() -> None:
    tables = match(singles(10_000), NOW, RULES)
    assert len(tables) == 2500
    assert len({tid for t in tables for tid in t.ticket_ids}) == 10_000
    assert all(None not in t.seats for t in tables)


# --- pools and options ------------------------------------------------------------------------------


def test_pools_are_split_by_kind_rated_and_bot_account() -> None:
    """Two singles in each of four pools: eight people, no table (and none waited for bots)."""
    tickets: list[Ticket] = []
    for i in range(2):
        tickets += [
            ticket(f"casual{i}"),
            ticket(f"other-kind{i}", kind="five_hundred"),
            ticket(f"rated{i}", rated=True),
            ticket(f"bot{i}", bot_account=True),
        ]
    assert match(tickets, NOW, RULES) == []


def test_incompatible_options_never_share_a_table() -> None:
    tickets = [ticket(f"a{i}", options='{"target_score":200}') for i in range(2)]
    tickets += [ticket(f"b{i}", options='{"target_score":500}') for i in range(2)]
    assert match(tickets, NOW, RULES) == []


def test_any_options_join_a_specific_table_which_takes_its_options() -> None:
    specific = '{"target_score":500}'
    tickets = [ticket("s", options=specific, waited=5)] + [ticket(f"any{i}", waited=i) for i in range(3)]
    (table,) = match(tickets, NOW, RULES)
    assert table.options_key == specific
    assert None not in table.seats


def test_any_options_never_join_two_different_specific_options() -> None:
    tickets = [ticket("a", options='{"x":1}', waited=9), ticket("b", options='{"x":2}', waited=8)]
    tickets += [ticket("any1", waited=7), ticket("any2", waited=6)]
    assert match(tickets, NOW, RULES) == []


def test_any_options_alone_make_a_table_with_any_options() -> None:
    (table,) = match(singles(4), NOW, RULES)
    assert table.options_key == ""


# --- parties ------------------------------------------------------------------------------------------


def test_a_party_of_two_sits_opposite() -> None:
    """Partners sit opposite: seats 0 & 2 against 1 & 3 (docs/rules.md F5-2, RG-2)."""
    tickets = [ticket("s1", waited=9), ticket("pair", "x", "y", waited=8), ticket("s2", waited=7)]
    (table,) = match([*tickets, ticket("s3", waited=1)], NOW, RULES)
    assert abs(seats_of(table, "x") - seats_of(table, "y")) == 2


def test_two_parties_of_two_are_the_two_teams() -> None:
    """Partners sit opposite: seats 0 & 2 against 1 & 3 (docs/rules.md F5-2, RG-2)."""
    (table,) = match([ticket("a", "a1", "a2"), ticket("b", "b1", "b2")], NOW, RULES)
    assert table.seats == ("a1", "b1", "a2", "b2")


def test_a_party_of_three_has_its_first_two_members_opposite() -> None:
    (table,) = match([ticket("s"), ticket("trio", "x", "y", "z", waited=1)], NOW, RULES)
    assert table.seats == ("x", "z", "y", "acct-s")


def test_a_party_of_four_is_two_teams_in_member_order() -> None:
    """Partners sit opposite: seats 0 & 2 against 1 & 3 (docs/rules.md F5-2, RG-2)."""
    (table,) = match([ticket("four", "a", "b", "c", "d")], NOW, RULES)
    assert table.seats == ("a", "c", "b", "d")


def test_euchre5_parties_sit_on_consecutive_chairs() -> None:
    tickets = [ticket("pair", "x", "y", kind="euchre5", waited=9)]
    tickets += [ticket(f"s{i}", kind="euchre5", waited=i) for i in range(3)]
    (table,) = match(tickets, NOW, RULES)
    assert table.seats[:2] == ("x", "y")


def test_a_party_larger_than_the_table_is_never_matched() -> None:
    big = ticket("big", "a", "b", "c", "d", "e", waited=1000)
    assert match([big], NOW, RULES) == []
    assert match([ticket("big5", *"abcdef", kind="euchre5", waited=1000)], NOW, RULES) == []


def test_a_party_is_seated_whole_or_not_at_all() -> None:
    tickets = [ticket("trio", "x", "y", "z", waited=9), ticket("pair", "p", "q", waited=8)]
    assert match(tickets, NOW, RULES) == []


def test_an_account_is_never_seated_twice() -> None:
    tickets = [ticket(f"t{i}", "same") for i in range(4)] + [ticket(f"u{i}", waited=1) for i in range(3)]
    tables = match(tickets, NOW, RULES)
    accounts = [seat for t in tables for seat in t.seats if seat is not None]
    assert len(accounts) == len(set(accounts))


# --- rated pools ----------------------------------------------------------------------------------------


def test_rated_tickets_1000_apart_wait_until_both_windows_reach_1000() -> None:
    """Windows are 100 + 25 * waited: 975 after 35 s, 1000 after 36 s."""
    low = [ticket(f"l{i}", rated=True, rating=0.0) for i in range(2)]
    high = [ticket(f"h{i}", rated=True, rating=1000.0) for i in range(2)]
    assert match(low + high, NOW, RULES) == []
    assert match(low + high, NOW + 35, RULES) == []
    (table,) = match(low + high, NOW + 36, RULES)
    assert set(table.ticket_ids) == {"l0", "l1", "h0", "h1"}


def test_rated_tickets_meet_only_within_the_narrower_of_their_windows() -> None:
    old = [ticket(f"old{i}", rated=True, rating=0.0, waited=100) for i in range(2)]  # window 1500
    young = [ticket(f"young{i}", rated=True, rating=1000.0, waited=10) for i in range(2)]  # window 350
    assert match(old + young, NOW, RULES) == []


def test_rated_tickets_near_in_rating_meet_at_once() -> None:
    tickets = [ticket(f"t{i}", rated=True, rating=20.0 + i) for i in range(4)]
    (table,) = match(tickets, NOW, RULES)
    assert table.rated and None not in table.seats


def test_rated_pool_prefers_the_nearest_ratings() -> None:
    """Every window is wide open (1500): the oldest ticket still sits with the nearest ratings."""
    tickets = [ticket(f"near{i}", rated=True, rating=10.0 + i, waited=100 - i) for i in range(4)]
    tickets += [ticket(f"far{i}", rated=True, rating=900.0 + i, waited=90 - i) for i in range(4)]
    first, second = match(tickets, NOW, RULES)
    assert set(first.ticket_ids) == {"near0", "near1", "near2", "near3"}
    assert set(second.ticket_ids) == {"far0", "far1", "far2", "far3"}


def test_rated_party_never_meets_its_recent_opponent() -> None:
    tickets = [
        ticket("party", "a", "b", rated=True, recent=("c",), waited=100),
        ticket("c", "c", rated=True, waited=100),
        ticket("d", "d", rated=True, waited=100),
    ]
    assert match(tickets, NOW, RULES) == []
    (table,) = match([*tickets, ticket("e", "e", rated=True, waited=100)], NOW, RULES)
    assert set(table.ticket_ids) == {"party", "d", "e"}


def test_recent_opponents_are_avoided_in_both_directions() -> None:
    tickets = [
        ticket("party", "a", "b", rated=True, waited=100),
        ticket("c", "c", rated=True, recent=("a",), waited=100),
        ticket("d", "d", rated=True, waited=100),
    ]
    assert match(tickets, NOW, RULES) == []


def test_recent_opponents_do_not_matter_in_casual_pools() -> None:
    tickets = [ticket("party", "a", "b", recent=("c",)), ticket("c", "c"), ticket("d", "d")]
    (table,) = match(tickets, NOW, RULES)
    assert set(table.ticket_ids) == {"party", "c", "d"}


# --- bots -------------------------------------------------------------------------------------------------


def test_a_lone_player_is_bot_filled_only_after_bot_fill_after() -> None:
    assert match([ticket("lone", waited=29.9)], NOW, RULES) == []
    (table,) = match([ticket("lone", waited=30.0)], NOW, RULES)
    assert table.seats == ("acct-lone", None, None, None)
    assert table.bot_level == "random"


def test_bot_fill_waits_for_the_oldest_ticket_of_the_group() -> None:
    tickets = [ticket("old", waited=31), ticket("new", waited=0), ticket("pair", "x", "y", kind="euchre5")]
    (table,) = match(tickets, NOW, RULES)
    assert set(table.ticket_ids) == {"old", "new"}
    assert table.seats.count(None) == 2


def test_bot_filled_party_of_two_sits_opposite() -> None:
    """Partners sit opposite: seats 0 & 2 against 1 & 3 (docs/rules.md F5-2, RG-2)."""
    (table,) = match([ticket("pair", "x", "y", waited=60)], NOW, RULES)
    assert table.seats == ("x", None, "y", None)


def test_bot_level_follows_the_mean_rating_of_the_humans() -> None:
    tickets = [ticket("a", "a1", "a2", rating=30.0, waited=60), ticket("b", rating=0.0, waited=50)]
    (table,) = match(tickets, NOW, RULES)
    assert table.bot_level == "heuristic"  # (30 + 30 + 0) / 3 = 20
    (strong,) = match([ticket("s", rating=40.0, waited=60)], NOW, RULES)
    assert strong.bot_level == "expert"


def test_a_kind_without_bot_fill_after_is_never_bot_filled() -> None:
    rules = Rules(bot_fill_after={"euchre5": 1.0})
    assert match([ticket("lone", waited=10_000)], NOW, rules) == []


def test_rated_pool_is_bot_filled_only_if_the_operator_allows() -> None:
    lone = ticket("lone", rated=True, rating=30.0, waited=100)
    assert match([lone], NOW, RULES) == []
    (table,) = match([lone], NOW, Rules(bot_fill_after=RULES.bot_fill_after, rated_bot_fill=True))
    assert table.rated and table.seats.count(None) == 3 and table.bot_level == "expert"


def test_bot_account_pools_are_never_bot_filled() -> None:
    rules = Rules(bot_fill_after=RULES.bot_fill_after, rated_bot_fill=True)
    assert match([ticket("bot", bot_account=True, waited=10_000)], NOW, rules) == []
    tables = match(singles(4, bot_account=True), NOW, rules)
    assert len(tables) == 1 and None not in tables[0].seats


def test_bots_for_the_rest_gets_a_private_table_at_once() -> None:
    (table,) = match([ticket("me", "a", "b", bots_for_the_rest=True)], NOW, RULES)
    assert table.seats == ("a", None, "b", None)
    assert table.ticket_ids == ("me",)


def test_bots_for_the_rest_never_seats_strangers() -> None:
    tickets = [ticket("me", bots_for_the_rest=True, waited=5), *singles(3)]
    tables = match(tickets, NOW, RULES)
    private = next(t for t in tables if "me" in t.ticket_ids)
    assert private.ticket_ids == ("me",) and private.seats.count(None) == 3
    assert all("me" not in t.ticket_ids for t in tables if t is not private)


def test_bots_for_the_rest_waits_where_bots_may_not_sit() -> None:
    assert match([ticket("me", rated=True, bots_for_the_rest=True)], NOW, RULES) == []
    assert match([ticket("me", bot_account=True, bots_for_the_rest=True)], NOW, RULES) == []
    (full,) = match([ticket("four", *"abcd", rated=True, bots_for_the_rest=True)], NOW, RULES)
    assert None not in full.seats


# --- the property test ---------------------------------------------------------------------------------

OPTIONS = ["", "", '{"a":1}', '{"a":2}']


@st.composite
def ticket_sets(draw: st.DrawFn) -> tuple[list[Ticket], Rules]:
    """Random tickets (unique accounts, a few shared pools) and random rules."""
    count = draw(st.integers(0, 40))
    tickets: list[Ticket] = []
    for i in range(count):
        kind = draw(st.sampled_from(sorted(SEATS)))
        size = draw(st.integers(1, SEATS[kind] + 1))
        members = tuple(f"u{i}m{j}" for j in range(size))
        others = draw(st.lists(st.integers(0, max(count - 1, 0)), max_size=3))
        tickets.append(
            Ticket(
                ticket_id=f"t{i}",
                kind=kind,
                rated=draw(st.booleans()),
                options_key=draw(st.sampled_from(OPTIONS)),
                members=members,
                rating=draw(st.sampled_from([0.0, 5.0, 20.0, 30.0, 400.0, 1200.0])),
                created_at=NOW - draw(st.sampled_from([0.0, 1.0, 10.0, 29.0, 45.0, 100.0])),
                recent_opponents=frozenset(f"u{o}m0" for o in others),
                bots_for_the_rest=draw(st.integers(0, 9)) == 0,
                bot_account=draw(st.integers(0, 5)) == 0,
            )
        )
    fill_after = draw(st.sampled_from([0.0, 30.0, 1000.0]))
    rules = Rules(bot_fill_after=dict.fromkeys(SEATS, fill_after), rated_bot_fill=draw(st.booleans()))
    return tickets, rules


def check_table(table: Table, group: list[Ticket], rules: Rules) -> None:
    """One table against every rule of the matchmaker."""
    assert len(table.seats) == SEATS[table.kind]
    assert {(t.kind, t.rated, t.bot_account) for t in group} == {
        (table.kind, table.rated, group[0].bot_account)
    }
    assert Counter(s for s in table.seats if s is not None) == Counter(m for t in group for m in t.members)
    keys = {t.options_key for t in group} - {""}
    assert keys == ({table.options_key} if table.options_key else set())
    if any(t.bots_for_the_rest for t in group):
        assert len(group) == 1
    if None in table.seats:
        assert not group[0].bot_account and (not table.rated or rules.rated_bot_fill)
        oldest = min(t.created_at for t in group)
        assert group[0].bots_for_the_rest or NOW - oldest >= rules.bot_fill_after[table.kind]
        humans = [m for t in group for m in t.members]
        mean = sum(t.rating * len(t.members) for t in group) / len(humans)
        assert table.bot_level == bot_level_for(mean)
    else:
        assert table.bot_level is None
    if TEAMS[table.kind]:
        for t in group:
            for first in range(0, len(t.members) - 1, 2):
                assert abs(seats_of(table, t.members[first]) - seats_of(table, t.members[first + 1])) == 2
    if table.rated:
        for a in group:
            for b in group:
                if a is not b:
                    assert abs(a.rating - b.rating) <= window(NOW - a.created_at, rules)
                    assert a.recent_opponents.isdisjoint(b.members)


@settings(max_examples=150, deadline=None)
@given(ticket_sets(), st.randoms(use_true_random=False))
def test_every_ticket_at_most_once_tables_full_unless_bot_filled_parties_whole_partners_opposite(
    case: tuple[list[Ticket], Rules], rng: random.Random
) -> None:
    tickets, rules = case
    tables = match(tickets, NOW, rules)
    by_id = {t.ticket_id: t for t in tickets}
    used = [tid for table in tables for tid in table.ticket_ids]
    assert len(used) == len(set(used))
    accounts = [seat for table in tables for seat in table.seats if seat is not None]
    assert len(accounts) == len(set(accounts))
    for table in tables:
        check_table(table, [by_id[tid] for tid in table.ticket_ids], rules)
    shuffled = list(tickets)
    rng.shuffle(shuffled)
    assert match(shuffled, NOW, rules) == tables
