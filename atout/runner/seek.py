"""Play now for the runner (``[[games.seek]]``, ``--seek``): tickets queued with the bot's API key
(``POST /v1/matchmaking/tickets``) while the runner has fewer than ``concurrency`` games in play,
one waiting ticket per seek at a time (the service holds one per account and game kind), until each
seek's ``count`` of games has been found. A ticket is matched by a ``match_found`` notice on the
bot's stream (:meth:`Seeker.matched`); one that expired (no notice comes) is queued again; the
waiting ones are cancelled when the runner stops. Bot accounts meet other bot accounts only (the
service never fills their tables with built-in bots): a seek waits until enough bots seek too."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import httpx

from atout.client import ApiError, AsyncClient, ConnectionLost
from atout.client.calls import Call
from atout.runner.config import Seek
from atout.runner.journal import Journal
from schema.matchmaking import CreateTicketRequest, Ticket

LOOK_AGAIN_S = 20.0
"""How often a waiting ticket is read again (to see that it expired)."""


def _ticket(response: httpx.Response) -> Ticket:
    return Ticket.model_validate_json(response.content, extra="ignore")  # fields added within v1 ignored


def queue_ticket(seek: Seek) -> Call[Ticket]:
    """``POST /v1/matchmaking/tickets`` (the client has no method for it: the runner's call, built
    like the client's own, ``atout.client.calls``)."""
    body = CreateTicketRequest.model_validate(
        {"kind": seek.kind, "rated": seek.rated} | ({"options": seek.options} if seek.options else {})
    )
    return Call("POST", "/v1/matchmaking/tickets", _ticket, body.model_dump(mode="json", exclude_none=True))


def read_ticket(ticket_id: str) -> Call[Ticket]:
    return Call("GET", f"/v1/matchmaking/tickets/{quote(ticket_id, safe='')}", _ticket, safe=True)


def cancel_ticket(ticket_id: str) -> Call[Ticket]:
    return Call("DELETE", f"/v1/matchmaking/tickets/{quote(ticket_id, safe='')}", _ticket)


class Seeker:
    def __init__(
        self,
        client: AsyncClient,
        seeks: tuple[Seek, ...],
        concurrency: int,
        in_play: Callable[[], int],
        journal: Journal,
    ) -> None:
        self.client, self.concurrency, self.in_play, self.journal = client, concurrency, in_play, journal
        self.left = {i: seek.count for i, seek in enumerate(seeks)}
        """Games still to find, by seek (a count of 0: without end, shown as -1)."""
        for i, count in self.left.items():
            self.left[i] = count if count > 0 else -1
        self.seeks = seeks
        self.waiting: dict[str, int] = {}
        """Waiting tickets: ticket id -> its seek."""
        self.held: set[int] = set()
        """Seeks whose kind is held by a ticket this runner did not queue (an earlier run's)."""
        self.early: set[str] = set()
        """Tickets matched before their POST was answered (the notice came first)."""
        self.changed = asyncio.Event()

    @property
    def done(self) -> bool:
        """Every seek has found its games (and no ticket waits)."""
        return not self.waiting and all(left == 0 for left in self.left.values())

    def matched(self, ticket_id: str, kind: str) -> bool:
        """A ``match_found``: True when it is one of this runner's seeks (its ticket, or the ticket
        held from before of a seek of that kind)."""
        seek = self.waiting.pop(ticket_id, None)
        if seek is None:
            seek = next((i for i in self.held if self.seeks[i].kind == kind), None)
            if seek is None:
                self.early.add(ticket_id)
                return False
            self.held.discard(seek)
        self._found(seek)
        return True

    def _found(self, seek: int) -> None:
        if self.left[seek] > 0:
            self.left[seek] -= 1
        self.changed.set()

    async def run(self) -> None:
        """Queue tickets as games end and seeks remain; read the waiting ones now and then."""
        while True:
            for i, seek in enumerate(self.seeks):
                if (
                    self._room()
                    and self.left[i] != 0
                    and i not in self.waiting.values()
                    and i not in self.held
                ):
                    await self._queue(i, seek)
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), LOOK_AGAIN_S)
            await self._look_again()

    def _room(self) -> bool:
        return self.in_play() + len(self.waiting) + len(self.held) < self.concurrency

    async def _queue(self, i: int, seek: Seek) -> None:
        try:
            ticket = await self.client.send(queue_ticket(seek))
        except ApiError as error:
            if error.code != "ticket_held":
                raise
            self.held.add(i)  # an earlier run's ticket: its match_found counts for this seek
            self.journal("ticket_held", level="warning", kind=seek.kind, detail=error.detail)
            return
        if ticket.ticket_id in self.early or ticket.status == "matched":
            self.early.discard(ticket.ticket_id)
            self._found(i)
        else:
            self.waiting[ticket.ticket_id] = i
        self.journal(
            "ticket",
            ticket=ticket.ticket_id,
            kind=seek.kind,
            rated=seek.rated,
            estimate_s=ticket.estimate_seconds,
        )

    async def _look_again(self) -> None:
        """A waiting ticket that expired is forgotten (queued again on the next pass); a seek held
        by an earlier ticket is tried again (that ticket may have expired too)."""
        self.held.clear()
        for ticket_id in list(self.waiting):
            try:
                ticket = await self.client.send(read_ticket(ticket_id))
            except (ApiError, ConnectionLost) as error:
                self.journal("ticket_unread", level="warning", ticket=ticket_id, reason=str(error))
                continue
            if ticket.status in ("expired", "cancelled"):
                self.waiting.pop(ticket_id, None)
                self.journal("ticket_" + ticket.status, level="warning", ticket=ticket_id, kind=ticket.kind)

    async def cancel_all(self) -> None:
        """Cancel the waiting tickets (the runner stops: nobody would play their games)."""
        for ticket_id in list(self.waiting):
            outcome: Any = "cancelled"
            try:
                await self.client.send(cancel_ticket(ticket_id))
            except (ApiError, ConnectionLost) as error:
                outcome = str(error)  # matched meanwhile (ticket_not_waiting), or the service away
            self.waiting.pop(ticket_id, None)
            self.journal("ticket_cancelled", ticket=ticket_id, outcome=outcome)
