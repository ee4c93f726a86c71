"""Expert iteration: a small network learns what the expert bot's search finds, on CPU, in minutes.

The recipe (``train("rough", seconds=1500)``), after Anthony et al., "Thinking fast and slow with deep
learning and tree search" (2017), with a determinized search as the slow thinker:

1. Hands are played by the ``expert`` bot's side (workers.bots.expert: determinized Monte Carlo
   search with heuristic playouts) against the ``heuristic`` bot, the evaluation's opponent. At each
   decision of the expert's side with more than one legal id, its search (:func:`search`, exactly
   the expert's, in its deterministic mode of ``playouts`` sampled deals) gives every candidate's
   mean advantage in points over the heuristic's choice, on the same deals.
2. The target of the decision is the softmax of those advantages over ``TEMPERATURE`` (the expert's
   candidates only; a discard, which is N picks, has the cards of the expert's discard left as the
   target of each pick); in Le 500, the expert's choice itself (``TARGET``, below). Its input is the
   seat's features (atout.learn.mlp: the observation and the heuristic's choice).
3. The network (atout.learn.mlp, one hidden layer of 128) is fitted by masked softmax cross-entropy
   (Adam, numpy), with early stopping on held-out hands. Rounds add labels and refit from the
   previous weights, which gives the learning curve.

Labelling is the cost (the search plays every candidate out on each sampled deal), so it runs in
``jobs`` processes (the machine's two cores), and fitting takes a small share of each round.

What was measured in choosing this (Le Rough, 600 duplicate deals against the heuristic, 8 minutes
of labels each; the intervals are about ±4 points): the expert's *choice* as a hard label learns
little (+3 points a deal): the search is noisy (two searches of 64 deals agree on 80% of card plays),
its choice of the moment is a coin flip between close candidates, and the network mostly learns
to follow the heuristic. The advantages as soft targets keep how close they were: +8 at 16
playouts. Cheaper searches, more of them, did better still (8 playouts: +14, 4: +11): the noise of a
small search averages out over many states, and states are what the network needs. A weight decay
of 1e-4 rather than 1e-3 let 128 hidden units use them (+22). DAgger (Ross et al., 2011: the network
plays the next round's hands, still labelled by the search) gave nothing measurable (+12.6 against
+13.6 for more of the expert's own hands), so the expert plays throughout.

The soft targets pass on all the search measured, its noise included: they pay where the search is
well ahead of the heuristic, as in Le Rough (the expert beats it by +35 points a deal at 24 playouts,
+22 at 8), and cost where it is not. In Le 500 the expert at 8 playouts is +6.6 [-8.0, +21.2] a deal
over the heuristic (300 deals), and a network fitted to its advantages lost -39 a deal, to its
advantages less a standard error -16, to its choice +0.2 [-0.2, +0.7] (6 minutes of labels, 600
deals each): the expert's choice is Le 500's target, which gives the heuristic back with the rare
deviations the search is sure of. In euchre the three targets score alike (0.00 ± 0.03 points a
deal, 1,000 deals): the heuristic and the search at this budget are too close (+0.09 ± 0.10 at 16
playouts) for a network to learn a difference.

Why not policy gradient: a hand's outcome swings by up to 200 points on the cards dealt, and the
linear REINFORCE of atout.learn.train is still at -55 points a deal against the heuristic after
three minutes; the gradient needs far more hands than a half hour plays. The search's advantages
tell the network which move was better *in this state*, over many sampled deals: a low-variance
signal, learnt by plain supervised fitting.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

import engine
from atout.learn.encoding import legal_mask, observation
from atout.learn.mlp import Examples, MLPPolicy, agreement, features, fit, hint_ids, loss
from atout.learn.spaces import JSON, action_space, discard_action, discard_count
from atout.learn.table import MAX_MARGIN, Table
from engine.determinize import sample_match
from workers import bots
from workers.arena import seat_plan
from workers.bots import expert
from workers.bots.seen import from_view, parse_legal

PLAYOUTS = 8
"""Sampled deals per search: many cheap searches teach more than a few good ones (module docstring)."""
TEMPERATURE = {game: margin / 20 for game, margin in MAX_MARGIN.items()}
"""Points of advantage per unit of logit in the targets: a twentieth of a hand's largest margin
(Le Rough 10, Le 500 26, euchre 0.25)."""
TARGET = {"rough": "soft", "five_hundred": "chosen", "euchre5": "soft"}
"""The targets learnt per game (:func:`examples`; the module's docstring says why Le 500's differ)."""
HIDDEN = 128
DECAY = 1e-4
START_TRUST = 3.0
"""The network starts as the heuristic (the hint's logit 3 above the others) and learns deviations."""
FIT_SHARE = 0.15
"""The share of each round's time given to fitting (the rest labels decisions)."""
EPOCHS = 20
"""At most this many passes over the labels in a round's fit (early stopping keeps the best)."""
HANDS_PER_TASK = 3
"""Hands a worker plays per task: a few seconds of labelling, so the budget is kept within a task."""
FIRST_SEED = 10**9
"""The training's hands are dealt from seeds at and above this: the evaluation's are small numbers."""


@dataclass(frozen=True)
class Task:
    """A worker's share: ``hands`` hands dealt from ``seed``."""

    game: str
    seed: int
    hands: int
    playouts: int
    temperature: float
    opponents: str = "heuristic"


@dataclass
class Batch:
    """The labelled decisions of a task: features (float16 rows), masks, targets (distributions over
    the legal ids), and the expert's own choice (multi-hot: the cards of a discard) for the curve."""

    z: list[npt.NDArray[np.float16]] = field(default_factory=list)
    masks: list[npt.NDArray[np.int8]] = field(default_factory=list)
    targets: list[npt.NDArray[np.float32]] = field(default_factory=list)
    cautious: list[npt.NDArray[np.float32]] = field(default_factory=list)
    chosen: list[npt.NDArray[np.int8]] = field(default_factory=list)
    hands: int = 0
    decisions: int = 0
    deviations: int = 0
    """Decisions (a discard is one) where the expert did not take the heuristic's choice."""

    def add(
        self,
        z: npt.NDArray[np.float32],
        mask: npt.NDArray[np.int8],
        targets: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]],
        chosen: list[int],
    ) -> None:
        c = np.zeros(mask.shape[0], np.int8)
        c[chosen] = 1
        self.z.append(z.astype(np.float16))
        self.masks.append(mask)
        self.targets.append(targets[0])
        self.cautious.append(targets[1])
        self.chosen.append(c)

    def __len__(self) -> int:
        return len(self.z)


@dataclass(frozen=True)
class Search:
    """What the expert's search measured at a decision."""

    candidates: list[JSON]
    """The heuristic's choice first, then the alternatives worth a look (expert.candidate_actions)."""
    advantages: list[float]
    """Each candidate's mean advantage in points over the heuristic's choice, on the same deals."""
    errors: list[float]
    """The standard error of each advantage (paired over the deals: 0 for the heuristic's choice)."""
    chosen: int
    """The index of the candidate the expert plays."""


def search(view: JSON, legal: list[JSON], rng: random.Random, playouts: int) -> Search:
    """The expert's search (workers.bots.expert.search in its deterministic mode: the same
    candidates, deals, pruning and choice for the same ``rng``), keeping what it measured."""
    seat = int(view["seat"])
    candidates = expert.candidate_actions(from_view(view), parse_legal(legal), rng)
    if len(candidates) == 1:
        return Search([candidates[0].to_json()], [0.0], [0.0], 0)
    results: list[list[float]] = [[] for _ in candidates]
    alive, next_prune = list(range(len(candidates))), expert.PRUNE_AT
    for done in range(1, playouts + 1):
        world = sample_match(view, rng)
        for _ in range(expert.INFERENCE_TRIES):
            if expert.consistent(world, seat):
                break
            world = sample_match(view, rng)
        for k in alive:
            m = world.copy()
            engine.push(m, seat, candidates[k])
            results[k].append(expert.rollout(m, seat))
        if done >= next_prune and len(alive) > 1:
            alive = expert.prune(results, alive)
            next_prune = done + max(expert.PRUNE_AT // 2, done // 2)
    paired = [expert.paired(r, results[0]) for r in results]
    return Search(
        [c.to_json() for c in candidates],
        [mean for mean, _ in paired],
        [se for _, se in paired],
        expert.pick(results, alive),
    )


def soft_target(
    size: int, ids: list[int], advantages: list[float], temperature: float
) -> npt.NDArray[np.float32]:
    """softmax(advantage / temperature) over the candidates' ids, 0 elsewhere."""
    a = np.asarray(advantages, np.float64)
    e = np.exp((a - a.max()) / temperature)
    out = np.zeros(size, np.float32)
    out[ids] = e / e.sum()
    return out


def collect(task: Task) -> Batch:
    """Play ``task.hands`` hands, the expert's side against ``task.opponents``, recording each of its
    decisions with its target (the module's docstring)."""
    rng = random.Random(task.seed)
    out = Batch()
    for _ in range(task.hands):
        table = Table.new(task.game, rng.randrange(FIRST_SEED, 2**62))
        mine = rng.choice(seat_plan(task.game))
        while (seat := table.to_act) is not None:
            view, legal = table.view(seat), table.legal_actions(seat)
            if seat in mine:
                table.push(seat, _labelled_turn(task, view, legal, rng, out))
            else:
                table.push(seat, bots.choose(task.opponents, view, legal, rng, 0.05))
        out.hands += 1
    return out


def _labelled_turn(task: Task, view: JSON, legal: list[JSON], rng: random.Random, out: Batch) -> JSON:
    """The expert's action for a seat, its decision (or each pick of its discard) recorded."""
    space = action_space(task.game)
    if len(space.legal(legal)) == 1:
        return legal[0]
    hint = hint_ids({"view": view, "legal_actions": legal})
    found = search(view, legal, rng, task.playouts)
    played = found.candidates[found.chosen]
    out.decisions += 1
    out.deviations += int(found.chosen != 0)
    if played["type"] != "discard":
        mask = legal_mask(task.game, legal)
        ids = [space.index(a) for a in found.candidates]
        lower = [a - expert.MARGIN * e for a, e in zip(found.advantages, found.errors, strict=True)]
        targets = (
            soft_target(space.size, ids, found.advantages, task.temperature),
            soft_target(space.size, ids, lower, task.temperature),
        )
        out.add(features(observation(view), hint, mask), mask, targets, [ids[found.chosen]])
        return played
    wanted: list[str] = played["cards"]
    picked: list[str] = []
    for card in rng.sample(wanted, len(wanted))[: discard_count(legal)]:
        mask = legal_mask(task.game, legal, picked)
        left = [space.pick(c) for c in wanted if c not in picked]
        target = np.zeros(space.size, np.float32)
        target[left] = 1.0 / len(left)
        out.add(features(observation(view, picked), hint, mask), mask, (target, target), left)
        picked.append(card)
    return discard_action(picked)


def examples(batches: list[Batch], target: str = "soft") -> Examples:
    """The batches' decisions as one training set, with the targets ``target`` names: ``soft`` (the
    softmax of the advantages), ``cautious`` (of the advantages less a standard error: a candidate
    counts as far as the search is sure of it) or ``chosen`` (the expert's choice; a pick: the cards
    of its discard left, evenly)."""
    if not any(len(b) for b in batches):
        raise ValueError("no labelled decision to learn from")
    full = [b for b in batches if len(b)]
    z = np.concatenate([np.stack(b.z) for b in full])
    masks = np.concatenate([np.stack(b.masks) for b in full])
    if target == "chosen":
        c = np.concatenate([np.stack(b.chosen) for b in full]).astype(np.float32)
        return Examples(z, masks, c / c.sum(axis=1, keepdims=True))
    if target not in ("soft", "cautious"):
        raise ValueError(f"target must be soft, cautious or chosen, not {target!r}")
    rows = [np.stack(b.targets if target == "soft" else b.cautious) for b in full]
    return Examples(z, masks, np.concatenate(rows))


@dataclass(frozen=True)
class Round:
    """One point of the learning curve: after ``seconds`` of training, ``labels`` decisions labelled."""

    round: int
    seconds: float
    hands: int
    labels: int
    held_out_loss: float
    """Cross-entropy of the held-out hands' targets (the untrained network's is ``Training.start_loss``)."""
    agreement: float
    """The share of held-out decisions where the network takes the expert's choice."""
    heuristic_agreement: float
    """The same share for the heuristic: the expert deviates from it on the rest."""
    policy: MLPPolicy


@dataclass(frozen=True)
class Training:
    """What :func:`train` gives back: the last round's policy and the curve of every round."""

    policy: MLPPolicy
    seconds: float
    hands: int
    labels: int
    start_loss: float
    curve: list[Round]


def _collect_until(
    pool: multiprocessing.pool.Pool, make: Callable[[], Task], until: float, jobs: int
) -> list[Batch]:
    """Tasks kept running on ``jobs`` workers until ``until`` (those under way are waited for)."""
    pending: list[multiprocessing.pool.AsyncResult[Batch]] = []
    done: list[Batch] = []
    while True:
        done += [p.get() for p in pending if p.ready()]
        pending = [p for p in pending if not p.ready()]
        if time.perf_counter() >= until and not pending:
            return done
        if time.perf_counter() < until and len(pending) < jobs:
            pending.append(pool.apply_async(collect, (make(),)))
        else:
            time.sleep(0.02)


@dataclass
class _Labels:
    """The labelled batches so far: every tenth task's (if it has any) held out, the rest to fit."""

    train: list[Batch] = field(default_factory=list)
    held_out: list[Batch] = field(default_factory=list)
    tasks: int = 0

    def add(self, fresh: list[Batch]) -> None:
        for b in fresh:
            self.tasks += 1
            (self.held_out if self.tasks % 10 == 0 and len(b) else self.train).append(b)


def train(
    game: str = "rough",
    seconds: float = 1500.0,
    rounds: int = 3,
    jobs: int = 2,
    playouts: int = PLAYOUTS,
    hidden: int = HIDDEN,
    start_trust: float = START_TRUST,
    target: str | None = None,
    seed: int = 0,
    log: Callable[[str], None] | None = None,
) -> Training:
    """Expert iteration for ``seconds`` in ``rounds`` rounds (the module's docstring); every tenth
    task's hands are held out for early stopping and the curve. ``start_trust`` 0 starts from a
    network that ignores the heuristic's choice (it must learn its worth too)."""
    started = time.perf_counter()
    target = target or TARGET[game]
    policy = MLPPolicy.initial(game, hidden, seed, trust=start_trust)
    rng = np.random.default_rng(seed)
    labels, curve, start_loss = _Labels(), list[Round](), float("nan")

    def make() -> Task:
        return Task(game, int(rng.integers(2**62)), HANDS_PER_TASK, playouts, TEMPERATURE[game])

    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        for r in range(rounds):
            slot_end = started + seconds * (r + 1) / rounds
            labels.add(_collect_until(pool, make, slot_end - seconds / rounds * FIT_SHARE, jobs))
            test = examples(labels.held_out or labels.train[-1:], target)
            if r == 0:
                start_loss = loss(policy, test)
            rest = max(1.0, slot_end - time.perf_counter())
            fit(
                policy,
                examples(labels.train, target),
                EPOCHS,
                decay=DECAY,
                seconds=rest,
                seed=seed + r,
                held_out=test,
            )
            curve.append(_point(r, started, policy, labels, test))
            if log is not None:
                log(describe(curve[-1]))
    last = curve[-1]
    policy.meta = {
        "recipe": "atout.learn.exit",
        "seconds": round(last.seconds, 1),
        "hands": last.hands,
        "labels": last.labels,
        "playouts": playouts,
        "temperature": TEMPERATURE[game],
        "target": target,
        "hidden": hidden,
        "jobs": jobs,
    }
    return Training(policy, last.seconds, last.hands, last.labels, start_loss, curve)


def _point(r: int, started: float, policy: MLPPolicy, labels: _Labels, test: Examples) -> Round:
    every = labels.train + labels.held_out
    hard = examples(labels.held_out or every[-1:], "chosen")
    actions = hard.masks.shape[1]
    hint = hard.z[:, -actions:].astype(np.float32) * (hard.masks > 0)
    hinted = np.argmax(np.where(hard.masks > 0, hint, -1.0), axis=1)
    return Round(
        r,
        time.perf_counter() - started,
        sum(b.hands for b in every),
        sum(len(b) for b in every),
        loss(policy, test),
        agreement(policy, hard),
        float(np.mean(hard.targets[np.arange(len(hard)), hinted] > 0)),
        policy.copy(),
    )


def describe(p: Round) -> str:
    """A line of the learning curve."""
    return (
        f"round {p.round}: {p.seconds:.0f} s, {p.hands} hands, {p.labels} labels, held-out loss "
        f"{p.held_out_loss:.3f}, takes the expert's choice {p.agreement:.1%} "
        f"(the heuristic {p.heuristic_agreement:.1%})"
    )


__all__ = [
    "Batch",
    "Round",
    "Task",
    "Training",
    "collect",
    "describe",
    "examples",
    "search",
    "soft_target",
    "train",
]
