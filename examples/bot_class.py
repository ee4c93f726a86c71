"""A complete Atout bot as a Python class: the seat's view and legal actions in, one action out.

The same class plays locally and on the service:

    atout arena --game rough --a-bot examples/bot_class.py:HighCard --b random --target 200
    atout bot run examples/bot_class.py:HighCard --url http://localhost:8000 --token $BOT_KEY
"""

ORDER = "456789TJQKABR"  # low to high by the first letter of a card code; jokers (BJ, RJ) highest


class HighCard:
    """Never bids, discards its lowest cards, plays its highest. One instance per seat and match."""

    def decide(self, view: dict, legal_actions: list[dict]) -> dict:
        kinds = {action["type"]: action for action in legal_actions}
        if "pass" in kinds and view["phase"] in ("bidding", "order", "name"):
            return kinds["pass"]  # never bid: let the others take the contract
        if "discard" in kinds:  # a template: choose "count" cards of "choices"
            low = sorted(kinds["discard"]["choices"], key=lambda card: ORDER.index(card[0]))
            return {"type": "discard", "cards": low[: kinds["discard"]["count"]]}
        plays = [a for a in legal_actions if a["type"] == "play"] or legal_actions
        return max(plays, key=lambda a: ORDER.index(a["card"][0]) if "card" in a else -1)
