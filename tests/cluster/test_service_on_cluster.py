"""The game, event and bot tests of tests/service, run again with the games on a Redis Cluster
(the fixtures of tests/cluster/conftest.py replace the plain-Redis ones): every key of a game in
one slot, no command naming two slots, the queues on their own plain Redis. Ratings and ladders too,
but for the three slow tests of a seat given up or timed out (the same writes as a rated end)."""

from __future__ import annotations

from test_bots import *  # noqa: F403
from test_graphql import *  # noqa: F403
from test_matchmaking import *  # noqa: F403  (Play now's keys share one slot: its claims are one script)
from test_pagination import *  # noqa: F403  (the pages read games of many slots at once)
from test_ratings import *  # noqa: F403  (ratings and ladders: a rated end writes across slots)
from test_rest_games import *  # noqa: F403
from test_rest_play import *  # noqa: F403
from test_seats import *  # noqa: F403
from test_sse import *  # noqa: F403

# The same writes as a rated end, with a turn clock or a seat given up on top: slow, not run twice.
del test_a_seat_given_up_is_rated_last_and_built_in_bots_are_rated  # noqa: F821
del test_a_seat_that_times_out_to_a_bot_is_rated_as_given_up  # noqa: F821
# A subprocess matcher reads REDIS_URL as a plain Redis: its process is tested on one (tests/service).
del test_the_matchmaker_process_seats_waiting_players_and_stops_cleanly_on_sigterm  # noqa: F821
