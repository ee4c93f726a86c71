"""What a game keeps in Redis, and for how long: a compact move log, a bounded event stream.

Why: measured with ``bench/memory.py``, a finished Le Rough match kept ~85 KB for 30 days (its event
stream ~62 KB, its move log ~18 KB as one JSON string per move), which at a million matches is the
whole memory budget. The move log alone replays a match (the engine is deterministic from the match
key, the client seeds and the actions; docs/fairness.md), so:

- **The log is compact.** Each move is written (by the store's compare-and-set) as a short JSON array
  ``[version, seat, action]`` (``[..., "timer"]`` for a move the turn timer played); every
  ``LOG_CHUNK`` moves its plain tail is folded into one more compressed chunk, and when the match
  ends the whole log is folded into one compressed element,
  ``z1:`` + base85(zlib(JSON array of those arrays), with a fixed preset dictionary). A reader
  accepts all three forms, and the JSON objects (``{"version", "seat", "action"}``) of logs written
  before, so an old log reads unchanged. ``z1`` names the format: a later one gets another prefix and
  this reader stays.
- **The stream is a live window.** While a match runs its stream is trimmed to about
  ``stream_window`` events (``XTRIM MAXLEN ~`` every ``TRIM_EVERY`` moves); a reader whose cursor is
  older than the window is told to resync from the view (:class:`service.store.fanout.StreamGap`), never
  silently handed a gap. Once the match is over its stream lives ``finished_stream_ttl`` seconds
  more, for the readers still draining it, then expires: the hash (final state) and the log stay for
  ``finished_ttl``, and ``/log`` rebuilds every hand's fairness record by replaying the log.
"""

from __future__ import annotations

import base64
import json
import zlib
from typing import Any

from service.store.connection import SettlingScript
from service.store.games import GameStore
from service.store.keys import events_key, log_key

LOG_CHUNK = 16
"""Moves between two foldings of the log: the plain tail stays under ~0.7 KB (one LRANGE and one
script call every 16 moves)."""

TRIM_EVERY = 32
"""Moves between two trims of a running match's stream (``XTRIM MAXLEN ~``, one command)."""

CHUNK_PREFIX = "z1:"
# A preset dictionary for zlib: typical log text, so that even a short log compresses. Part of the z1
# format: changing it would need a new prefix.
_ZDICT = (
    b'[1,0,{"type":"pass"}],[2,1,{"type":"bid","points":80}],[3,2,{"type":"bid","level":6,"suit":"H"}],'
    b'[4,3,{"type":"discard","cards":["7S","8C","QC","TD"]}],[5,0,{"type":"call","card":"AS"}],'
    b'[6,1,{"type":"order_up"}],[7,2,{"type":"trump","suit":"S"}],[8,3,{"type":"alone"}],'
    b'[9,0,{"type":"play","card":"JS"}],[10,1,{"type":"play","card":"KH"}],'
    b'[11,2,{"type":"play","card":"AD"}],[12,3,{"type":"play","card":"TC"},"timer"],'
)

# KEYS: log;  ARGV: the number n of leading elements folded, the first of them as read, then the
# elements that replace them, in order. Replaces the first n elements when they are still the ones
# read: moves appended since stay after them, and a folding another process already did is not done
# twice. The list is never emptied on the way (the replacement goes in first, then the n elements
# are marked and removed): a key a script empties is deleted, and on a Cluster slot being migrated
# the script's next write to it is refused ("non local key") after the trim was applied, which
# erased the whole log (seen in the reshard drill, tests/cluster/test_reshard.py).
FOLD_LUA = """
local n = tonumber(ARGV[1])
if redis.call('LLEN', KEYS[1]) < n or redis.call('LINDEX', KEYS[1], 0) ~= ARGV[2] then return 0 end
for i = #ARGV, 3, -1 do redis.call('LPUSH', KEYS[1], ARGV[i]) end
local k = #ARGV - 2
local mark = '\\0folded'
for i = k, k + n - 1 do redis.call('LSET', KEYS[1], i, mark) end
redis.call('LREM', KEYS[1], n, mark)
return 1
"""


def log_entry(version: int, seat: int, action: dict[str, Any], by: str = "") -> str:
    """One move as the store appends it to the log: ``[version, seat, action]`` (+ ``by``)."""
    item: list[Any] = [version, seat, action, by] if by else [version, seat, action]
    return json.dumps(item, separators=(",", ":"))


def _entry(item: Any) -> dict[str, Any]:
    """A move of the log as the API shows it, from any stored form (array or the older object)."""
    if isinstance(item, dict):
        return item
    version, seat, action, *rest = item
    return {"version": version, "seat": seat, "action": action, **({"by": rest[0]} if rest else {})}


def _compress(items: list[Any]) -> str:
    packer = zlib.compressobj(9, zlib.DEFLATED, 15, 9, zlib.Z_DEFAULT_STRATEGY, _ZDICT)
    raw = json.dumps(items, separators=(",", ":")).encode()
    return CHUNK_PREFIX + base64.b85encode(packer.compress(raw) + packer.flush()).decode()


def _expand(element: str) -> list[Any]:
    """The stored moves of one log element (a chunk holds many, a plain element one)."""
    if element.startswith(CHUNK_PREFIX):
        unpacker = zlib.decompressobj(15, _ZDICT)
        raw = unpacker.decompress(base64.b85decode(element[len(CHUNK_PREFIX) :])) + unpacker.flush()
        items: list[Any] = json.loads(raw)
        return items
    if element.startswith("z"):
        raise ValueError(f"a log chunk in an unknown format ({element[:4]!r}): upgrade this server")
    return [json.loads(element)]


def decode_log(elements: list[str]) -> list[dict[str, Any]]:
    """The moves of a stored log, oldest first, as ``{"version", "seat", "action"[, "by"]}``."""
    return [_entry(item) for element in elements for item in _expand(element)]


async def read_log(store: GameStore, gid: str) -> list[dict[str, Any]]:
    return decode_log(await store.r.lrange(log_key(gid), 0, -1))


async def fold_log(store: GameStore, gid: str, whole: bool = True) -> bool:
    """Fold the log of ``gid`` as it is now: with ``whole``, into one compressed element (once the
    match is over: the smallest form); else only its plain tail into one more chunk, the chunks
    before it left as they are (while the match runs: each folding costs its last moves, not the
    whole match again). A no-op when there is nothing to fold or another process folded it
    meanwhile. Returns whether it folded."""
    elements: list[str] = await store.r.lrange(log_key(gid), 0, -1)
    chunks = 0
    while chunks < len(elements) and elements[chunks].startswith(CHUNK_PREFIX):
        chunks += 1
    if chunks == len(elements) and (chunks < 2 or not whole):
        return False
    if whole:
        replacement = [_compress([item for element in elements for item in _expand(element)])]
    else:
        replacement = [*elements[:chunks], _compress([json.loads(e) for e in elements[chunks:]])]
    fold = _fold_script(store)
    folded = await fold(keys=[log_key(gid)], args=[str(len(elements)), elements[0], *replacement])
    return bool(folded)


def _fold_script(store: GameStore) -> Any:
    """The fold, retried while a Cluster slot migration refuses it (service/store/migration.py)."""
    script = getattr(store, "_fold", None)
    if script is None:
        script = store._fold = SettlingScript(store.r.register_script(FOLD_LUA), store.connection)  # type: ignore[attr-defined]
    return script


async def after_move(
    store: GameStore, gid: str, version: int, finished: bool, window: int, linger: int
) -> None:
    """What a committed move sets going for the game's memory: the log folded every ``LOG_CHUNK``
    moves and at the end; the stream trimmed to ``window`` events while the match runs, and set to
    expire ``linger`` seconds after it ends."""
    if finished:
        await fold_log(store, gid)
        await store.r.expire(events_key(gid), linger)
        return
    if version % LOG_CHUNK == 0:
        await fold_log(store, gid, whole=False)
    if version % TRIM_EVERY == 0:
        await store.r.xtrim(events_key(gid), maxlen=window, approximate=True)
