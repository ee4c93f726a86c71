"""Invitations: a seated player asks another player, by id, to a table that waits for players (private
or not). The invitation lands on the invitee's stream and list; accepting it joins the table with the
invitee's player credential (it stands for a private table's invite code); it expires after
``invitation_ttl`` seconds.

Player ids are public (the ladders show them), so an invitation is bounded from every side, lest one
player lock another out of invitations or flood their stream:

- only a seat bound to a player invites (403 ``invitation_needs_player``): an anonymous seat is
  nobody to count, block or answer;
- the invitee may refuse: nobody's invitations (their ``invitations`` preference) or a blocked
  player's (403 ``invitation_refused``, which does not say which);
- an inviter sends at most ``invitations_per_hour`` (429 ``too_many_invitations_sent``);
- inviting the same player to the same table again refreshes the one invitation (same id, later
  expiry) rather than adding one, and one inviter holds at most ``invitations_per_inviter`` entries
  of a player's list (429 ``too_many_pending_invitations``), so no inviter fills it alone; the list
  holds ``invitations_per_player`` in all (429 ``too_many_invitations``);
- an invitation's notice counts against the inviter's hourly notices to that player
  (:meth:`service.games.players.Players.may_notify`): past it, the invitation lands in the list with
  no notice on the stream.

The invitations a seat sends are rate limited with its joins as well."""

from __future__ import annotations

import time
from typing import Any

from service.base.problems import ProblemError
from service.base.settings import Settings
from service.base.texts import Text
from service.games.core import GameCore, new_game_id
from service.games.lobby import Lobby
from service.games.players import Players
from service.games.webhooks import Webhooks
from service.store import Store
from service.store.keys import STATUS_WAITING, invites_sent_key, owner_player, player_owner
from service.store.records import GameRecord


def contract_invitation(stored: dict[str, Any]) -> dict[str, Any]:
    """An invitation in the contract's words (docs/glossary.md): the store keeps its own (``game``,
    ``from_player``, which its script reads) and POSIX seconds; the models turn those into a moment."""
    return {
        "invitation_id": stored["invitation_id"],
        "game_id": stored["game_id"],
        "kind": stored["game"],
        "from_player_id": stored["from_player"],
        "expires_at": stored["expires_at"],
    }


class Invitations:
    """Invite, list, accept, decline (``games.invitations``): accepting is a join of the ``lobby``; the
    invitee's notice goes as the ``players``' notices go, and to the app's webhooks (``webhooks``)."""

    def __init__(
        self,
        core: GameCore,
        store: Store,
        settings: Settings,
        lobby: Lobby,
        players: Players,
        webhooks: Webhooks,
    ) -> None:
        self.core = core
        self.store = store
        self.settings = settings
        self.lobby = lobby
        self.players = players
        self.webhooks = webhooks

    async def invite(self, gid: str, token: str | None, invitee: str) -> dict[str, Any]:
        """Invite ``invitee`` to ``gid`` on behalf of the caller's seat; the invitation, with the
        inviter's name (the one already held when it refreshes an invitation to the same table)."""
        record, inviter = await self._checked_invitation(gid, token, invitee)
        invitation = {
            "invitation_id": new_game_id(),
            "game_id": gid,
            "game": record.game,
            "from_player": inviter,
            "expires_at": time.time() + self.settings.invitation_ttl,
        }
        iid = await self._put_invitation(invitee, invitation)
        invitation["invitation_id"] = iid
        said = contract_invitation(invitation)
        if await self.players.may_notify(invitee, inviter):  # the app's webhook is a notice too (a push)
            await self.core.notify_players([player_owner(invitee)], {"type": "invitation", **said})
            sent_fields = {k: said[k] for k in ("invitation_id", "game_id", "kind", "expires_at")}
            await self.webhooks.emit_webhook(
                "invitation", {**sent_fields, "player_id": invitee, "from_player_id": inviter}, key=iid
            )
        return {**said, "from_name": await self.store.players.player_name(inviter)}

    async def _checked_invitation(self, gid: str, token: str | None, invitee: str) -> tuple[GameRecord, str]:
        """The game and the inviting player, once every refusal is ruled out: the caller's seat must be a
        player's, the table waiting with a seat open, the invitee a player not seated there who takes
        invitations from the inviter, and the inviter within its invitations of the hour."""
        record = await self.core.get(gid)
        caller = await self.core.caller_of(record, token, required=True)
        assert caller.seat is not None
        inviter = owner_player(record.seats[caller.seat].owner)
        if inviter is None:
            raise ProblemError(
                "invitation_needs_player",
                "Only a seat joined with a player's credential invites: join with your player token.",
            )
        if record.status != STATUS_WAITING:
            raise ProblemError("game_not_waiting", "Invitations are to tables still waiting for players.")
        if not any(s.is_open for s in record.seats):
            raise ProblemError("game_full", "Every seat of this game is taken.")
        if not await self.store.players.player_exists(invitee):
            raise ProblemError("player_not_found", Text("There is no player {pid!r}.", pid=invitee))
        if any(s.owner == player_owner(invitee) for s in record.seats):
            raise ProblemError("already_seated", "That player holds a seat of this game already.")
        if await self.store.players.refuses_invitations(invitee, inviter):
            raise ProblemError("invitation_refused", "That player does not take invitations from you.")
        sent, left = await self.store.players.count_hit(invites_sent_key(inviter))
        per_hour = self.settings.invitations_per_hour
        if sent > per_hour:
            raise ProblemError(
                "too_many_invitations_sent",
                Text("You sent {cap} invitations this hour; try again later.", cap=per_hour),
                headers={"Retry-After": str(left)},
                limit=per_hour,
            )
        return record, inviter

    async def _put_invitation(self, invitee: str, invitation: dict[str, Any]) -> str:
        """Add ``invitation`` to the invitee's list (or refresh the inviter's one to the same table) and
        return its id; 429 when the list is full or holds the inviter's share of it already."""
        cap, per_inviter = self.settings.invitations_per_player, self.settings.invitations_per_inviter
        outcome, iid = await self.store.players.put_invitation(
            invitee, str(invitation["invitation_id"]), invitation, cap, per_inviter
        )
        if outcome == "gone":
            raise ProblemError("player_not_found", Text("There is no player {pid!r}.", pid=invitee))
        if outcome == "inviter":
            raise ProblemError(
                "too_many_pending_invitations",
                Text(
                    "That player holds {cap} open invitations of yours already; wait for an answer.",
                    cap=per_inviter,
                ),
                headers={"Retry-After": "3600"},
                limit=per_inviter,
            )
        if outcome != "new" and outcome != "refreshed":
            raise ProblemError(
                "too_many_invitations",
                Text("That player holds {cap} open invitations already; try again later.", cap=cap),
                headers={"Retry-After": "3600"},
            )
        return iid

    async def my_invitations(self, token: str | None) -> list[dict[str, Any]]:
        """The caller's open invitations, soonest to expire first, each with the inviter's name now."""
        pid, _ = await self.players.require_player(token)
        held = sorted((await self.store.players.invitations(pid)).values(), key=lambda i: i["expires_at"])
        return [
            {**contract_invitation(i), "from_name": await self.store.players.player_name(i["from_player"])}
            for i in held
        ]

    async def accept_invitation(
        self, token: str | None, iid: str, seat: int | None, client_seed: str
    ) -> tuple[str, int, str, bool]:
        """Join the invitation's table with the caller's credential: (game, seat, seat token, started).
        The invitation is used up even when the join fails (the table filled, the game started)."""
        pid, _ = await self.players.require_player(token)
        invitation = await self.store.players.take_invitation(pid, iid)
        if invitation is None:
            raise invitation_not_found(iid)
        gid = str(invitation["game_id"])
        taken, seat_token, started = await self.lobby.join(
            gid, seat, "", None, credential=token, client_seed=client_seed, invited=True
        )
        return gid, taken, seat_token, started

    async def decline_invitation(self, token: str | None, iid: str) -> None:
        pid, _ = await self.players.require_player(token)
        if await self.store.players.take_invitation(pid, iid) is None:
            raise invitation_not_found(iid)


def invitation_not_found(iid: str) -> ProblemError:
    return ProblemError(
        "invitation_not_found",
        Text("You hold no open invitation {iid!r} (it may have expired or been answered).", iid=iid),
    )
