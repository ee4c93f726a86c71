"""A complete Atout bot: one JSON line in (its seat's view and legal actions), one action out.

atout arena --game rough --a-cmd "python examples/bot.py" --b random --target 200
"""

import json
import sys

ORDER = "456789TJQKABR"  # low to high by the first letter of a card code; jokers (BJ, RJ) highest

for line in sys.stdin:  # one decision per line; stdin closes when the match is over
    turn = json.loads(line)
    legal = turn["legal_actions"]  # turn["view"]: the hand, bids, tricks, scores (no hidden card)
    kinds = {a["type"]: a for a in legal}
    if "pass" in kinds and turn["view"]["phase"] in ("bidding", "order", "name"):
        action = kinds["pass"]  # never bid: let the others take the contract
    elif "discard" in kinds:  # a template: choose "count" cards of "choices"
        low = sorted(kinds["discard"]["choices"], key=lambda card: ORDER.index(card[0]))
        action = {"type": "discard", "cards": low[: kinds["discard"]["count"]]}
    else:
        plays = [a for a in legal if a["type"] == "play"] or legal
        action = max(plays, key=lambda a: ORDER.index(a["card"][0]) if "card" in a else -1)
    print(json.dumps(action), flush=True)  # one JSON line on stdout; debug output goes to stderr
