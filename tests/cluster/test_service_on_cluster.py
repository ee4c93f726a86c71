"""The game, event and bot tests of tests/service, run again with the games on a Redis Cluster
(the fixtures of tests/cluster/conftest.py replace the plain-Redis ones): every key of a game in
one slot, no command naming two slots, the queues on their own plain Redis."""

from __future__ import annotations

from test_bots import *  # noqa: F403
from test_graphql import *  # noqa: F403
from test_pagination import *  # noqa: F403  (the pages read games of many slots at once)
from test_rest_games import *  # noqa: F403
from test_rest_play import *  # noqa: F403
from test_seats import *  # noqa: F403
from test_sse import *  # noqa: F403
