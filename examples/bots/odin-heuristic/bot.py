"""A heuristic bot for the Odin family: `odin`, `odin-race` and `override-beta`.

It judges a hand by the points it would cost and by how many sets it splits
into at least (its *cover*: a hand that is one set can be led whole, which
ends the round). Every choice -- what to lead, what to beat with, whether to
pass and which card to take back -- picks the option whose resulting hand is
best, with tie-breaks that keep high cards and give opponents low ones. When
an opponent is about to go out it leads high and passes less.

The Cheat Code (override-beta) joins any suit set, so while every hand is large
it counts as a free card worth keeping; once some hand is down to a few cards
it counts its 5 points, unless the hand is one set and can go out with it.

It reads only the observation and the actions, so it is deterministic, and a
decision takes about a millisecond.
"""

from __future__ import annotations

from typing import Any

from protocol.bot import run

WILD = "*"  # the Cheat Code's suit: it joins any same-suit set

# The hand evaluation (lower is better) and the tie-breaks, tuned in self-play.
COVER_WEIGHT = 1.25  # each set the hand needs beyond one costs about a card
HIGH_CARD = 0.03  # per pip held: high cards win tricks
GIVE_AWAY = 0.01  # per pip of the card led: whoever beats it takes it
SPEND = 0.01  # per pip of the set played: beat with the lowest set that does
DANGER = 3.0  # times the chance that the trick's winner goes out when it leads
GOES_OUT = {1: 1.0, 2: 0.45, 3: 0.15}  # that chance, by the winner's hand size
ENDGAME = 3  # some hand this small: the round may end soon
JOKER_POINTS = 5  # what the Cheat Code costs at the end of a round of override-beta
SHORTLIST = 12  # plays scored with their take-back (the rest only without it)

Card = tuple[int, str]


def parse(code: str) -> Card:
    """ "7R" -> (7, "R"); "0*" -> (0, "*")."""
    return int(code[:-1]), code[-1]


def cover(cards: list[Card]) -> int:
    """The fewest sets the hand splits into. Choose the suits played as suit sets; every
    other card goes into its number's set. (A bipartite vertex cover, small enough to
    enumerate over the suits held.)"""
    jokers = 0
    by_suit: dict[str, int] = {}
    for n, s in cards:
        if s == WILD:
            jokers += 1
        else:
            by_suit[s] = by_suit.get(s, 0) | 1 << n
    masks = list(by_suit.values())
    full = (1 << len(masks)) - 1
    # numbers[x]: the numbers held in the suits of subset x, built one suit at a time.
    numbers = [0] * (full + 1)
    for x in range(1, full + 1):
        low = x & -x
        numbers[x] = numbers[x ^ low] | masks[low.bit_length() - 1]
    best = numbers[full].bit_count() + jokers  # no suit set: a Cheat Code stands alone
    for chosen in range(1, full + 1):
        size = chosen.bit_count() + numbers[full ^ chosen].bit_count()
        if size < best:
            best = size
    return best


class Player:
    """The decisions, for one ruleset of the family."""

    def __init__(self, ruleset: str) -> None:
        self.scored_joker = ruleset == "override-beta"
        self.joker_points = 1

    # -- judging hands -------------------------------------------------------------
    def evaluate(self, cards: list[Card]) -> float:
        """Lower is better: points held, the sets needed beyond one, less a bit per pip."""
        if not cards:
            return -100.0
        sets = cover(cards)
        points = len(cards)
        pips = 0
        for n, s in cards:
            pips += n
            if s == WILD and sets > 1:
                points += self.joker_points - 1
        return points + COVER_WEIGHT * (sets - 1) - HIGH_CARD * pips

    def best_take(self, hand: list[Card], beaten: list[Card]) -> tuple[float, Card]:
        """The card of the beaten set that leaves the best hand (the lower card on ties)."""
        score, _, card = min((self.evaluate([*hand, c]), c[0], c) for c in beaten)
        return score, card

    # -- the three kinds of decision ---------------------------------------------
    def take(self, hand: list[Card], beaten: list[Card]) -> int:
        return beaten.index(self.best_take(hand, beaten)[1])

    def lead(
        self, obs: dict[str, Any], hand: list[Card], plays: list[tuple[int, list[Card]]]
    ) -> int:
        """Lead the card whose loss leaves the best hand; give away low cards. When an
        opponent holds a single card, lead high so that it cannot go out over us."""
        seat, sizes = obs["seat"], obs["hand_sizes"]
        threat = any(size == 1 for i, size in enumerate(sizes) if i != seat)

        def key(item: tuple[int, list[Card]]) -> tuple[float, float]:
            cards = item[1]
            played = set(cards)
            rest = [c for c in hand if c not in played]
            pips = cards[0][0]
            if threat:
                return (-pips, self.evaluate(rest))
            return (self.evaluate(rest) + GIVE_AWAY * pips, pips)

        return min(plays, key=key)[0]

    def beat(
        self,
        obs: dict[str, Any],
        hand: list[Card],
        plays: list[tuple[int, list[Card]]],
        pass_index: int,
    ) -> int:
        """Play the set that leaves the best hand after the take-back, or pass."""
        seat, players = obs["seat"], obs["players"]
        middle = [parse(c) for c in obs["middle"]]
        by = obs["middle_by"]

        # Passing keeps the hand. If everyone else has passed too, the trick ends and
        # the middle's player leads: dangerous when its hand is nearly gone.
        pass_score = self.evaluate(hand)
        if obs["passes"] == players - 2 and by is not None and by != seat:
            pass_score += DANGER * GOES_OUT.get(obs["hand_sizes"][by], 0.0)

        # Score every play by the hand it leaves, then the best few with the take-back.
        scored = []
        for i, cards in plays:
            played = set(cards)
            rest = [c for c in hand if c not in played]
            pips = sum(n for n, _ in cards) / len(cards)
            scored.append((self.evaluate(rest) + SPEND * pips, i, rest, pips))
        scored.sort(key=lambda t: (t[0], t[1]))

        best_index, best_score = pass_index, pass_score
        for _, i, rest, pips in scored[:SHORTLIST]:
            score = self.best_take(rest, middle)[0] + SPEND * pips
            if score < best_score:
                best_index, best_score = i, score
        return best_index

    def decide(self, request: dict[str, Any]) -> int:
        actions = request["actions"]
        if len(actions) == 1:
            return 0
        obs = request["observation"]
        hand = [parse(c) for c in obs["hand"]]
        if self.scored_joker:
            endgame = min(obs["hand_sizes"]) <= ENDGAME
            self.joker_points = JOKER_POINTS if endgame else 0
        if obs["phase"] == "take":
            return self.take(hand, [parse(a["card"]) for a in actions])
        plays = []
        pass_index = -1
        for i, a in enumerate(actions):
            if a["type"] == "play":
                cards = [parse(c) for c in a["cards"]]
                if len(cards) == len(hand):
                    return i  # an empty hand ends the round: always go out
                plays.append((i, cards))
            else:
                pass_index = i
        if obs["phase"] == "lead" or pass_index < 0:
            return self.lead(obs, hand, plays)
        return self.beat(obs, hand, plays, pass_index)


_players: dict[str, Player] = {}


def decide(request: dict[str, Any]) -> int:
    """The bot: an index into the request's actions."""
    ruleset = request["observation"]["ruleset"]
    player = _players.get(ruleset)
    if player is None:
        player = _players[ruleset] = Player(ruleset)
    return player.decide(request)


if __name__ == "__main__":
    run(decide, name="odin-heuristic")
