"""A greedy bot for the Odin family: shed as many cards as it can, as cheaply as it can.

It plays the legal set with the most cards (the lowest such set), passes only when it
cannot play, leads its lowest card, and takes back the highest card it is offered.
"""

from protocol.bot import run


def number(card: str) -> int:
    return int(card[:-1])


def decide(request: dict) -> int:
    actions = request["actions"]
    plays = [(i, a) for i, a in enumerate(actions) if a["type"] == "play"]
    if plays:
        # Most cards first; among those the lowest value (the list is ordered by value).
        best = max(len(a["cards"]) for _, a in plays)
        return next(i for i, a in plays if len(a["cards"]) == best)
    takes = [(i, a) for i, a in enumerate(actions) if a["type"] == "take"]
    if takes:
        return max(takes, key=lambda t: number(t[1]["card"]))[0]
    return 0


if __name__ == "__main__":
    run(decide, name="greedy-py")
