"""`bested-solo`: Bested Another Time's solo game, one bot against a dummy hand
(docs/rules.md §6).

The bot climbs over its own melds, draws when it passes, and may take the dummy's
unseen cards as wilds; the dummy scores its hand less its worst suit(s). Melds come
from `melds.py`; `play` and `pass` are the same actions as in `bested`. The actions,
events and plays hold strings and integers only (`gc=False`: out of the cycle collector's
walks, as in `bested`).
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal, cast

from msgspec import Meta, Struct

from arena.games import melds as M
from arena.games.base import GameState, IllegalAction, Outcome
from arena.games.bested import (
    Dealt,
    Done,
    Pass,
    Play,
    Swap,
    actions_memo,
    checked_meld,
    refuse_needless_wild,
    swap_options,
)
from arena.games.bested.actions import card_actions
from arena.games.melds import KIND_NAMES, Meld, MeldName, code_of
from arena.games.registry import Ruleset
from arena.games.text import counted

# --------------------------------------------------------------------------
# Actions


class TakeDummy(Struct, tag="take_dummy", frozen=True, gc=False):
    """Take one of the dummy's cards, unseen, into your hand as a wild; then decide again."""


SoloAction = Play | Pass | TakeDummy | Swap | Done
_TAKE_DUMMY = TakeDummy()
_PASS = Pass(None)
_DONE = Done()

# --------------------------------------------------------------------------
# Events


def _meld_text(meld: str, cards: tuple[str, ...], wilds: tuple[int, ...]) -> str:
    parts = list(cards) + [f"wild={r}" for r in wilds]
    return f"{meld} {' '.join(parts)}"


class RoundStarted(Struct, tag="round_started", frozen=True, gc=False):
    round: int
    hand_size: int
    dummy: int
    deck: int

    def text(self) -> str:
        return (
            f"round {self.round}: {counted(self.hand_size, 'card')} dealt to the bot, "
            f"{self.dummy} face"
            f" down to the dummy, {self.deck} in the draw deck"
        )


class TookDummy(Struct, tag="took_dummy", frozen=True, gc=False):
    dummy: int  # dummy cards left

    def text(self) -> str:
        return f"the bot takes a dummy card as a wild ({self.dummy} left)"


class Played(Struct, tag="played", frozen=True, gc=False):
    """A meld played: natural cards and the ranks its wilds are declared as."""

    meld: MeldName
    cards: tuple[str, ...]
    wilds: tuple[int, ...]

    def text(self) -> str:
        return f"the bot plays {_meld_text(self.meld, self.cards, self.wilds)}"


class Passed(Struct, tag="passed", frozen=True, gc=False):
    """The bot passed and drew `drew` cards (`deck` left); `final_trick`: the next trick
    is the last. A pass in the final trick draws nothing and ends the round."""

    drew: int
    deck: int
    final_trick: bool

    def text(self) -> str:
        if not self.drew:
            return "the bot passes: the final trick is over"
        last = "; the next trick is the final one" if self.final_trick else ""
        return f"the bot passes and draws {self.drew} ({self.deck} left){last}"


class Drew(Struct, tag="drew", frozen=True, gc=False):
    """Private: the cards drawn."""

    cards: list[str]

    def text(self) -> str:
        return f"draws {' '.join(self.cards)}"


class RoundOver(Struct, tag="round_over", frozen=True, gc=False):
    """The round's scores with both hands revealed (the bot's wilds by printed card)."""

    round: int
    shed_out: bool
    hand: list[str]
    wilds: list[str]
    bot_score: int
    dummy: list[str]
    dummy_discarded: list[str]  # suits
    dummy_score: int
    bot_total: int
    dummy_total: int
    game_over: bool

    def text(self) -> str:
        return (
            f"round {self.round} over: bot {self.bot_score}, dummy {self.dummy_score}"
            f" ({' '.join(self.dummy) or 'no cards'}, discarding {''.join(self.dummy_discarded)});"
            f" totals bot {self.bot_total}, dummy {self.dummy_total}"
        )


SoloEvent = Dealt | RoundStarted | TookDummy | Played | Passed | Drew | RoundOver

# --------------------------------------------------------------------------
# The observation


class SoloPlay(Struct, frozen=True, gc=False):
    meld: MeldName
    cards: tuple[str, ...]
    wilds: tuple[int, ...]


def solo_play(meld: Meld) -> SoloPlay:
    return SoloPlay(KIND_NAMES[meld.kind], tuple(map(code_of, meld.naturals)), meld.wilds)


Phase = Literal["lead", "play", "over", "swap"]
_PHASES: tuple[Phase, ...] = ("lead", "play", "over", "swap")
LEAD, PLAY, OVER, SWAP = range(4)


class SoloObservation(Struct, tag="bested_solo", frozen=True):
    """What the bot sees: its hand, how many (unseen) wilds it holds, the trick, the
    sizes of the draw deck and of the dummy."""

    ruleset: str
    seat: int
    players: int
    round: int
    rounds: int
    difficulty: Literal["normal", "hard"]
    phase: Phase
    to_act: int | None
    hand: list[str]
    wilds: int
    beat: SoloPlay | None
    plays: list[SoloPlay]
    #: phase `swap`: your meld awaiting swaps (played once you are done)
    pending: SoloPlay | None
    draw_on_pass: int
    deck: int
    dummy: int
    final_trick: bool
    bot_total: int
    dummy_total: int


# --------------------------------------------------------------------------
# Options and rules


class SoloOptions(Struct, frozen=True, forbid_unknown_fields=True):
    difficulty: Annotated[
        Literal["normal", "hard"],
        Meta(description="the dummy discards its worst suit (normal) or two worst (hard)"),
    ] = "normal"
    rounds: Annotated[
        Literal[1, 3, 5],
        Meta(description="rounds with running totals; the dummy gets one card fewer each round"),
    ] = 1


SOLO_SUITS = "SHD"
DECK = M.deck_ids(range(2, 14), SOLO_SUITS)  # docs/rules.md §6.1: 2-13 in 3 suits (36)
HAND, DUMMY = 14, 7
KINDS = (M.SET, M.RUN)  # docs/rules.md §6.2: singles are never legal


class SoloState(GameState[SoloAction, SoloObservation]):
    """A game of bested-solo in progress: seat 0 is the bot."""

    action_type: ClassVar[object] = SoloAction
    event_type: ClassVar[object] = SoloEvent
    observation_type: ClassVar[object] = SoloObservation

    def __init__(self, options: SoloOptions, seed: int) -> None:
        super().__init__("bested-solo", 1, seed)
        self.options = options
        self._memo = actions_memo()
        self.round = 0
        self.bot_total = 0
        self.dummy_total = 0
        self.phase = LEAD
        # A meld played that awaits swaps (phase SWAP): its cards have left the hand
        # (`_pending_used`: the printed cards of its wilds), it is not played yet.
        self.pending: Meld | None = None
        self._pending_used: list[int] = []
        self._start_round()

    # -- flow ------------------------------------------------------------------------
    def _start_round(self) -> None:
        self.round += 1
        cards = list(DECK)
        self.rng.shuffle(cards)
        # docs/rules.md §6.1, §6.5: 14 to the bot, 7 face down to the dummy (one fewer each
        # later round).
        dummy = DUMMY - (self.round - 1)
        self.hand = sorted(cards[:HAND])
        self.dummy = cards[HAND : HAND + dummy]  # kept in dealt (random) order
        self.deck = cards[HAND + dummy :]
        self.wilds: list[int] = []  # printed card ids, in the order taken (unseen)
        self.played: list[int] = []  # every card played this round
        self.final = False
        self._emit(Dealt(self.round, M.card_table().encode(self.hand)), (0,))
        self._emit(RoundStarted(self.round, len(self.hand), len(self.dummy), len(self.deck)))
        self._new_trick()

    def _new_trick(self) -> None:
        self.phase = LEAD
        #: this trick's plays as the bot sees them, each built once, when it is played
        self.plays: list[SoloPlay] = []
        self.beat: Meld | None = None

    def _end_round(self, shed_out: bool) -> None:
        table = M.card_table()
        ranks, suits = M.cards().ranks, table.suits
        bot = sum(ranks[c] for c in self.hand) + sum(ranks[c] for c in self.wilds)
        # docs/rules.md §6.4: the dummy discards its worst suit(s), worst = highest rank sum.
        sums = {s: 0 for s in SOLO_SUITS}
        for c in self.dummy:
            sums[suits[c]] += ranks[c]
        worst = sorted(SOLO_SUITS, key=lambda s: -sums[s])
        drop = worst[: 1 if self.options.difficulty == "normal" else 2]
        dummy = sum(v for s, v in sums.items() if s not in drop)
        self.bot_total += bot
        self.dummy_total += dummy
        over = self.round >= self.options.rounds
        self._emit(
            RoundOver(
                round=self.round,
                shed_out=shed_out,
                hand=table.encode(self.hand),
                wilds=table.encode(self.wilds),
                bot_score=bot,
                dummy=table.encode(sorted(self.dummy)),
                dummy_discarded=sorted(drop, key=SOLO_SUITS.index),
                dummy_score=dummy,
                bot_total=self.bot_total,
                dummy_total=self.dummy_total,
                game_over=over,
            )
        )
        if over:
            self.phase = OVER
        else:
            self._start_round()

    @property
    def current_player(self) -> int | None:
        return None if self.phase == OVER else 0

    # -- legal actions -------------------------------------------------------------------
    def legal_actions(self) -> list[SoloAction]:
        if self.phase == OVER:
            return []
        if self.phase == SWAP:
            return list(swap_options(self.pending))
        w = len(self.wilds)
        if self.phase == LEAD:
            found = M.all_melds(self.hand, w, KINDS)
        else:
            assert self.beat is not None
            found = M.beating(self.hand, w, self.beat, None)
        out = cast(list[SoloAction], self._memo.play_list(found))  # a new list
        if self.dummy:
            out.append(_TAKE_DUMMY)
        if self.phase == PLAY or not out:
            # docs/rules.md §6.2: unable to lead even with wilds (the dummy is empty): pass.
            out.append(_PASS)
        return out

    # -- applying --------------------------------------------------------------------------
    def _apply(self, seat: int, action: SoloAction) -> SoloAction:
        # The common cases first, by exact type: the chain below checks them the same way.
        if self.phase != SWAP:
            if type(action) is Play:
                return self._play(action)
            if type(action) is Pass:
                return self._pass(action)
        if self.phase == SWAP:
            if isinstance(action, Swap):
                return self._swap(action)
            if isinstance(action, Done):
                self._finish()
                return _DONE
            # arena's ruling: the swap step belongs to the play; dummy cards are taken
            # before it (which reaches the same melds).
            raise IllegalAction(
                action, "your meld is not played yet: swap a natural card of it, or done"
            )
        if isinstance(action, (Swap, Done)):
            raise IllegalAction(action, "no meld of yours awaits a swap")
        if isinstance(action, TakeDummy):
            if not self.dummy:
                raise IllegalAction(action, "the dummy has no cards left")
            self.wilds.append(self.dummy.pop(0))
            self._emit(TookDummy(len(self.dummy)))
            return _TAKE_DUMMY
        if isinstance(action, Play):
            return self._play(action)
        if isinstance(action, Pass):
            return self._pass(action)
        raise IllegalAction(action, "not an action of this game (play, pass or take_dummy)")

    def _play(self, action: Play) -> Play:
        if action.meld == "single":
            raise IllegalAction(action, "singles are never legal in the solo game")
        meld = checked_meld(self._memo, action, self.hand, len(self.wilds), KINDS)
        if self.phase == PLAY:
            old = self.beat
            assert old is not None
            if meld.kind != old.kind or meld.size != old.size:
                raise IllegalAction(
                    action,
                    f"beat your {KIND_NAMES[old.kind]} of {old.size} with a "
                    f"{KIND_NAMES[old.kind]} of {old.size}",
                )
            if not M.beats(meld, old, None):
                raise IllegalAction(
                    action, f"rank {meld.top} does not beat {old.top} (strictly higher needed)"
                )
        if meld.wilds:
            refuse_needless_wild(action, meld, self.hand)
        canonical = self._memo.canonical_play(action, meld)
        for c in meld.naturals:
            self.hand.remove(c)
        self.pending = meld
        self._pending_used = self._take_wilds(len(meld.wilds))
        # arena's ruling: with a natural in the meld and a wild in hand, the bot may swap
        # naturals for wilds before the meld is played; else it is played at once.
        if meld.naturals and self.wilds:
            self.phase = SWAP
        else:
            self._finish()
        return canonical

    def _take_wilds(self, count: int) -> list[int]:
        """Which wild is used is no choice: the one taken first (the bot cannot tell them
        apart, and the dummy's cards were taken in dealt order, so this is unbiased)."""
        used, self.wilds = self.wilds[:count], self.wilds[count:]
        return used

    def _swap(self, action: Swap) -> Swap:
        meld = self.pending
        assert meld is not None
        table = M.card_table()
        c = table.parse(action.card)
        if c is None or c not in meld.naturals:
            listed = " ".join(table.encode(meld.naturals))
            raise IllegalAction(action, f"swap a natural card of your pending meld: {listed}")
        self.pending = M.swapped(meld, c)
        self.hand.append(c)
        self.hand.sort()
        self._pending_used.extend(self._take_wilds(1))
        if not self.pending.naturals or not self.wilds:
            self._finish()  # nothing left to swap
        return card_actions().swap[c]

    def _finish(self) -> None:
        """The pending meld is played: it goes on the table and the trick goes on."""
        meld = self.pending
        assert meld is not None
        self.pending = None
        self.played.extend(meld.naturals)
        self.played.extend(self._pending_used)
        self._pending_used = []
        view = solo_play(meld)
        self.plays.append(view)
        self.beat = meld
        self.phase = PLAY
        self._emit(Played(view.meld, view.cards, view.wilds))
        if not self.hand and not self.wilds:
            self._end_round(shed_out=True)  # docs/rules.md §6.3: the bot shed out

    def _pass(self, action: Pass) -> Pass:
        if action.pass_card is not None:
            raise IllegalAction(action, "the solo game has no Pass Cards: pass with null")
        if self.phase == LEAD and (self.dummy or self.legal_actions() != [_PASS]):
            raise IllegalAction(
                action, "lead a meld (take a dummy card as a wild if you must): no pass"
            )
        if self.final:
            self._emit(Passed(0, len(self.deck), False))
            self._end_round(shed_out=False)  # docs/rules.md §6.3: the final trick is over
            return _PASS
        # docs/rules.md §6.3: draw 3 after playing once (a forced pass counts as once), else 2;
        # a draw that empties the deck, or cannot be completed, makes the next trick final.
        want = 3 if len(self.plays) <= 1 else 2
        drawn, self.deck = self.deck[:want], self.deck[want:]
        self.hand.extend(drawn)
        self.hand.sort()
        self.final = not self.deck
        self._emit(Drew(M.card_table().encode(sorted(drawn))), (0,))
        self._emit(Passed(len(drawn), len(self.deck), self.final))
        self._new_trick()
        return _PASS

    # -- views and result ------------------------------------------------------------------
    def observation(self, seat: int) -> SoloObservation:
        """What the bot sees. Built at every decision: passed to the Struct by position, in
        its field order (named in the comments)."""
        plays = self.plays
        options = self.options
        phase = self.phase
        return SoloObservation(
            self.ruleset,  # ruleset
            seat,  # seat
            1,  # players
            self.round,  # round
            options.rounds,  # rounds
            options.difficulty,  # difficulty
            _PHASES[phase],  # phase
            None if phase == OVER else 0,  # to_act: `current_player`
            list(map(code_of, self.hand)),  # hand
            len(self.wilds),  # wilds
            plays[-1] if plays else None,  # beat
            list(plays),  # plays
            solo_play(self.pending) if self.pending is not None else None,  # pending
            0 if self.final else (3 if len(plays) <= 1 else 2),  # draw_on_pass
            len(self.deck),  # deck
            len(self.dummy),  # dummy
            self.final,  # final_trick
            self.bot_total,  # bot_total
            self.dummy_total,  # dummy_total
        )

    def outcome(self) -> Outcome:
        self._require_terminal()
        # The score is the margin, dummy total minus bot total (higher is better, as the
        # ratings of docs/rules.md §6.6 compare bots by it). The rank counts the dummy as the
        # other player: 1 for a win or a draw (lower or equal total), 2 for a loss.
        margin = self.dummy_total - self.bot_total
        return Outcome((margin,), (1 if margin >= 0 else 2,))


def new_bested_solo(players: int, options: SoloOptions, seed: int) -> SoloState:
    return SoloState(options, seed)


def max_decisions(players: int, options: SoloOptions) -> int:
    """The most decisions a `bested-solo` game can take (docs/rules.md §9.5): per round at
    most 18 plays (two cards or more each, of 36) and as many `done`s, a dummy take and a
    swap per dummy card, and a pass per two cards of the draw deck, plus the final one."""
    total = 0
    for round_ in range(1, options.rounds + 1):
        dummy = DUMMY - (round_ - 1)
        deck = len(DECK) - HAND - dummy
        plays = len(DECK) // 2
        passes = (deck + 1) // 2 + 1
        total += 2 * plays + 2 * dummy + passes
    return total


#: the rulesets this module plays (collected by `arena.games`)
RULESETS = (
    Ruleset(
        id="bested-solo",
        title="Bested Another Time, solo",
        summary="One player climbs over its own melds against a dummy hand; lower score wins.",
        min_players=1,
        max_players=1,
        options_type=SoloOptions,
        state_type=SoloState,
        factory=new_bested_solo,
        max_decisions=max_decisions,
    ),
)
