"""A heuristic bot for `bested` and `bested-solo` (Bested Another Time).

It judges a hand by how many melds it still needs to go out (its *cover*, found
greedily: the longest natural meld first) and picks, among the offered actions,
the one that leaves the best hand:

- it sheds long melds early, leads low, and beats with the lowest meld that does;
- it keeps its wilds for when they win a trick: a wild is spent only when the
  meld it makes cannot be beaten (it reaches the top rank), sheds the bot out,
  or the hand is nearly gone;
- passing is worth what the best Pass Card on offer is worth (Discard Any Meld
  first: it sheds a whole meld); Pass Cards are then used greedily (discard the
  biggest meld, take a wild, give away the worst card, bet on itself near the end).

After a play or a discard that leaves it a wild, the referee asks whether to swap
natural cards of the meld for wilds (phase `swap`): it swaps a card back only when
that leaves a better hand by the same judgement (rarely: wilds are worth keeping),
else it answers `done`.

In the solo game it plans each trick as a chain: it leads the meld from which it
can climb over itself the longest with natural cards (playing over itself means
drawing 2 instead of 3). A wild left in hand counts its unseen printed rank, so it
spends wilds on any meld that sheds more than an average card. It takes a dummy
card when it must; on hard also when the wild lets it climb on (the dummy keeps
only one suit there, so a card taken from it costs little).

It reads only the observation and the offered actions, so it is deterministic.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from typing import Any

from protocol.bot import run

Card = tuple[int, str]

# Weights of the hand evaluation (lower is better), tuned by a few self-play runs.
MELD_COST = 10.0  # each meld still needed to go out
WILD_VALUE = 3.0  # a wild kept in hand (it joins or finishes a meld later)
PASS_CARD_VALUE = {  # what taking each Pass Card is worth, in the same units
    "discard_meld": 7.0,
    "give_bet": 3.0,
    "wild": 2.0,
    "bet_wild": 2.0,
    "lead_next": 2.0,
}
HIGH_CARD = 0.05  # per rank of a card spent: keep high cards for later tricks
SOLO_WILD_RANK = 7.5  # the expected printed rank of an unseen dummy card (2-13)
ENDGAME = 3  # a hand this small plays its wilds freely


def parse(code: str) -> Card:
    """'12H' -> (12, 'H')."""
    return int(code[:-1]), code[-1]


# --------------------------------------------------------------------------
# Natural melds of a hand (no wilds), for judging what is left


def natural_melds(hand: list[Card], gaps: bool) -> list[list[Card]]:
    """Every set of 2+, every run (and gap) of 2+ cards, longest first."""
    out: list[list[Card]] = []
    by_rank: dict[int, list[Card]] = {}
    by_suit: dict[str, set[int]] = {}
    for r, s in hand:
        by_rank.setdefault(r, []).append((r, s))
        by_suit.setdefault(s, set()).add(r)
    for cards in by_rank.values():
        if len(cards) >= 2:
            out.append(cards)
    for s, ranks in by_suit.items():
        for step in (1, 2) if gaps else (1,):
            for low in ranks:
                run = [(low, s)]
                r = low + step
                while r in ranks:
                    run.append((r, s))
                    r += step
                if len(run) >= 2:
                    out.append(run)
    out.sort(key=len, reverse=True)
    return out


def cover(hand: list[Card], gaps: bool) -> int:
    """How many melds the hand needs to go out, greedily: the longest meld first."""
    return _cover(tuple(sorted(hand)), gaps)


@lru_cache(maxsize=1 << 14)
def _cover(hand: tuple[Card, ...], gaps: bool) -> int:
    rest = list(hand)
    count = 0
    while rest:
        melds = natural_melds(rest, gaps)
        if not melds:
            return count + len(rest)
        for c in melds[0]:
            rest.remove(c)
        count += 1
    return count


def without(hand: list[Card], cards: list[Card]) -> list[Card]:
    rest = list(hand)
    for c in cards:
        rest.remove(c)
    return rest


# --------------------------------------------------------------------------
# bested


class Bested:
    """Decisions for the multi-player game."""

    def __init__(self, obs: dict[str, Any]) -> None:
        self.obs = obs
        self.hand = [parse(c) for c in obs["hand"]]
        self.wilds = len(obs["wilds"])
        self.gaps = obs["gaps"]
        self.high = obs["high"]

    def value(self, hand: list[Card], wilds: int) -> float:
        """Lower is better: melds still needed, less what the wilds can do."""
        if not hand and not wilds:
            return -100.0
        needed = cover(hand, self.gaps)
        # A wild joins a meld or stands alone: each one saves about one meld's cost at
        # the end, but in hand it is just one more card to shed.
        return MELD_COST * needed - WILD_VALUE * min(wilds, needed) + 0.5 * wilds

    def play_score(self, action: dict[str, Any]) -> float:
        cards = [parse(c) for c in action["cards"]]
        used = len(action["wilds"])
        rest = without(self.hand, cards)
        score = self.value(rest, self.wilds - used)
        if not rest and self.wilds == used:
            return -1000.0  # sheds out
        if used:
            ranks = [r for r, _ in cards] + list(action["wilds"])
            unbeatable = max(ranks) >= self.high
            small = len(self.hand) + self.wilds <= ENDGAME
            if not (unbeatable or small):
                score += WILD_VALUE * used  # keep wilds for when they win
        score += HIGH_CARD * sum(r for r, _ in cards)
        return score

    def decide(self, actions: list[dict[str, Any]]) -> int:
        phase = self.obs["phase"]
        if phase == "choose_wild":
            return self.choose_wild(actions)
        if phase == "swap":
            return self.swap(actions)
        if phase == "resolve":
            return self.resolve(actions)
        best, best_score = 0, float("inf")
        for i, a in enumerate(actions):
            if a["type"] == "play":
                score = self.play_score(a)
                # Lead long melds early: each card shed is worth a little on its own.
                score -= 0.8 * (len(a["cards"]) + len(a["wilds"]))
            else:
                score = self.value(self.hand, self.wilds)
                if a["pass_card"]:
                    score -= PASS_CARD_VALUE[a["pass_card"]]
                elif phase == "play" and len(self.obs["in_trick"]) == 1:
                    score += 0.5  # alone: a free play over itself beats passing
            if score < best_score:
                best, best_score = i, score
        return best

    def swap(self, actions: list[dict[str, Any]]) -> int:
        """The swap step: take a natural card of the pending meld back (a wild in its
        place) only when the hand left is better for it, judged as a play is; else done.
        `hand` and `wilds` are already without the pending meld."""
        pending = self.obs["pending"]
        ranks = [parse(c)[0] for c in pending["cards"]] + list(pending["wilds"])
        unbeatable = max(ranks) >= self.high
        small = len(self.hand) + self.wilds + len(ranks) <= ENDGAME
        best = next(i for i, a in enumerate(actions) if a["type"] == "done")
        best_score = self.value(self.hand, self.wilds)
        for i, a in enumerate(actions):
            if a["type"] != "swap":
                continue
            card = parse(a["card"])
            score = self.value([*self.hand, card], self.wilds - 1) - HIGH_CARD * card[0]
            if not (unbeatable or small):
                score += WILD_VALUE  # keep wilds for when they win
            if score < best_score:
                best, best_score = i, score
        return best

    def choose_wild(self, actions: list[dict[str, Any]]) -> int:
        """Turn the card that fits worst (the one whose loss costs the fewest melds)."""
        base = cover(self.hand, self.gaps)

        def key(i: int) -> tuple[int, int]:
            card = parse(actions[i]["card"])
            return (cover(without(self.hand, [card]), self.gaps) - base, -card[0])

        return min(range(len(actions)), key=key)

    def resolve(self, actions: list[dict[str, Any]]) -> int:
        kinds = [a["type"] for a in actions]
        seat = self.obs["seat"]
        size = len(self.hand) + self.wilds
        if "discard" in kinds:
            # Discard the meld that leaves the best hand (the biggest, naturals first).
            return min(
                range(len(actions)),
                key=lambda i: (
                    self.value(
                        without(self.hand, [parse(c) for c in actions[i]["cards"]]),
                        self.wilds - len(actions[i]["wilds"]),
                    )
                    - len(actions[i]["cards"])
                    - len(actions[i]["wilds"]),
                    i,
                ),
            )
        gives = [i for i, k in enumerate(kinds) if k == "give"]
        bets = {a["on"]: i for i, a in enumerate(actions) if a["type"] == "bet"}
        if gives and (size == 1 or seat not in bets or size > ENDGAME):
            return self.give(actions, gives)
        if seat in bets and size <= ENDGAME:
            return bets[seat]  # it pays when this bot sheds out
        takes = [i for i, k in enumerate(kinds) if k == "take_wild"]
        if takes:
            return takes[0]  # any card taken is the same wild
        if bets:
            return bets[min(bets, key=lambda s: self.obs["hand_sizes"][s])]
        return kinds.index("decline") if "decline" in kinds else 0

    def give(self, actions: list[dict[str, Any]], gives: list[int]) -> int:
        """Give away the natural card that fits worst, to the player closest to going out."""
        sizes = self.obs["hand_sizes"]
        wild_codes = set(self.obs["wilds"])

        def key(i: int) -> tuple[float, int, int]:
            a = actions[i]
            if a["card"] in wild_codes:
                return (1000.0, 0, i)
            card = parse(a["card"])
            rest = without(self.hand, [card])
            return (self.value(rest, self.wilds), sizes[a["to"]], i)

        return min(gives, key=key)


# --------------------------------------------------------------------------
# bested-solo


def beats(meld: list[Card], kind: str, size: int, top: int) -> bool:
    return len(meld) == size and max(r for r, _ in meld) > top and meld_kind(meld) == kind


def meld_kind(meld: list[Card]) -> str:
    return "set" if len({r for r, _ in meld}) == 1 else "run"


def sub_melds(hand: list[Card]) -> list[list[Card]]:
    """Every natural set and run of the hand (sub-runs and subsets included)."""
    out = []
    for m in natural_melds(hand, gaps=False):
        if meld_kind(m) == "set":
            for k in range(2, len(m) + 1):
                out.extend(list(c) for c in combinations(m, k))
        else:
            for i in range(len(m)):
                for j in range(i + 2, len(m) + 1):
                    out.append(m[i:j])
    unique = {tuple(sorted(m)): m for m in out}
    return list(unique.values())


def chain(hand: list[Card], lead: list[Card]) -> tuple[int, int]:
    """Climb greedily over `lead` with natural melds (the lowest that beats each time):
    (plays, ranks shed)."""
    rest = without(hand, lead)
    kind, size, top = meld_kind(lead), len(lead), max(r for r, _ in lead)
    plays, shed = 1, sum(r for r, _ in lead)
    while True:
        options = [m for m in sub_melds(rest) if beats(m, kind, size, top)]
        if not options:
            return plays, shed
        nxt = min(options, key=lambda m: max(r for r, _ in m))
        rest = without(rest, nxt)
        plays, shed, top = plays + 1, shed + sum(r for r, _ in nxt), max(r for r, _ in nxt)


def wild_gain(hand: list[Card], kind: str, size: int, top: int) -> int:
    """The most rank of natural cards one wild lets the hand play over (`kind`, `size`,
    `top`): 0 when even a wild does not help."""
    best = 0
    if kind == "set":
        by_rank: dict[int, int] = {}
        for r, _ in hand:
            by_rank[r] = by_rank.get(r, 0) + 1
        for r, count in by_rank.items():
            if r > top and count >= size - 1:
                best = max(best, r * (size - 1))
        return best
    suits: dict[str, set[int]] = {}
    for r, s in hand:
        suits.setdefault(s, set()).add(r)
    for ranks in suits.values():
        for high in range(top + 1, 18):
            window = range(high - size + 1, high + 1)
            if window.start < 0:
                continue
            held = [r for r in window if r in ranks]
            if len(held) >= size - 1 and len(held) < size:
                best = max(best, sum(held))
    return best


class Solo:
    """Decisions for the solo game."""

    def __init__(self, obs: dict[str, Any]) -> None:
        self.obs = obs
        self.hand = [parse(c) for c in obs["hand"]]
        self.wilds = obs["wilds"]
        self.final = obs["final_trick"]

    def decide(self, actions: list[dict[str, Any]]) -> int:
        kinds = [a["type"] for a in actions]
        if self.obs["phase"] == "swap":
            return self.swap(actions)
        plays = [i for i, k in enumerate(kinds) if k == "play"]
        total = len(self.hand) + self.wilds
        # Going out ends the game with 0 points: always.
        for i in plays:
            if len(actions[i]["cards"]) + len(actions[i]["wilds"]) == total:
                return i
        natural = [i for i in plays if not actions[i]["wilds"]]
        if self.obs["phase"] == "lead":
            if natural:
                return max(natural, key=lambda i: self.lead_value(actions[i]))
            if plays:  # only with the wilds it holds: shed the most rank
                return max(plays, key=lambda i: self.shed(actions[i]))
            return 0  # take a dummy card (it must), or the forced pass
        # Over its own meld: the lowest natural meld that beats it keeps the climb going.
        if natural:
            return min(natural, key=lambda i: (self.top(actions[i]), -self.shed(actions[i])))
        if plays:
            # A wild left in hand counts its (unknown) printed rank: spending it on a meld
            # sheds that too, so a wild meld is worth playing.
            best = max(plays, key=lambda i: self.shed(actions[i]))
            if self.shed(actions[best]) > SOLO_WILD_RANK:
                return best
        if "take_dummy" in kinds and self.obs["difficulty"] == "hard":
            # On hard the dummy keeps one suit in three, so a card taken from it costs
            # little: take one when the wild climbs on with naturals worth more (a second
            # play also draws one card fewer). On normal, only when it must (measured).
            beat = self.obs["beat"]
            ranks = [parse(c)[0] for c in beat["cards"]] + list(beat["wilds"])
            gain = wild_gain(self.hand, beat["meld"], len(ranks), max(ranks))
            if gain and len(self.obs["plays"]) == 1:
                gain += SOLO_WILD_RANK
            if gain > SOLO_WILD_RANK / 3:
                return kinds.index("take_dummy")
        return kinds.index("pass")

    def swap(self, actions: list[dict[str, Any]]) -> int:
        """The swap step. A meld of naturals only was chosen for its naturals: done. A meld
        already spending wilds sheds the most rank with wilds for its naturals below an
        average card (a wild left in hand counts its unseen rank, about 7.5): swap the
        lowest such card, one step at a time."""
        done = [a["type"] for a in actions].index("done")
        if not self.obs["pending"]["wilds"]:
            return done
        swaps = [(parse(a["card"])[0], i) for i, a in enumerate(actions) if a["type"] == "swap"]
        low, i = min(swaps)
        return i if low < SOLO_WILD_RANK else done

    def lead_value(self, action: dict[str, Any]) -> float:
        lead = [parse(c) for c in action["cards"]]
        plays, shed = chain(self.hand, lead)
        # Playing over itself draws 2 instead of 3 (one card fewer, about 7.5 points).
        return shed + (SOLO_WILD_RANK if plays > 1 and not self.final else 0.0)

    @staticmethod
    def shed(action: dict[str, Any]) -> float:
        ranks = [parse(c)[0] for c in action["cards"]]
        return sum(ranks) + SOLO_WILD_RANK * len(action["wilds"])

    @staticmethod
    def top(action: dict[str, Any]) -> int:
        return max([parse(c)[0] for c in action["cards"]] + list(action["wilds"]))


def decide(request: dict[str, Any]) -> int:
    """The bot: an index into the request's actions."""
    actions = request["actions"]
    if len(actions) == 1:
        return 0
    obs = request["observation"]
    if obs["type"] == "bested_solo":
        return Solo(obs).decide(actions)
    return Bested(obs).decide(actions)


if __name__ == "__main__":
    run(decide, name="bested-heuristic")
