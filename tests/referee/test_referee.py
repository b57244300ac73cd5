"""The referee against real bot processes (the scripts in tests/bots/).

Every fault kind of the taxonomy, the fault policy (ranks), the seeded fallback, bounded
lines and stderr, that no bot is sent another seat's hidden cards, game records, and
cancellation. After every game, no bot process (nor any child of one) may be left alive.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio

import arena.referee.game as referee
from arena.games import new_game
from arena.games.odin import Play
from arena.referee.bot import BotProcess
from arena.referee.folders import BotSpec, load_bot
from arena.referee.game import RefereeConfig, fallback_rng, play_game, ranks_with_faults
from arena.referee.records import GameRecord, append_record, read_records
from protocol.messages import MAX_LINE_BYTES, Limits
from tests.helpers.messages import strings
from tests.helpers.paths import RANDOM as EXAMPLE_BOT
from tests.helpers.paths import TEST_BOTS as BOTS
from tests.helpers.records import check_record

MIB = 1 << 20


def bot(script: str, *args: str) -> BotSpec:
    """A test bot from tests/bots/<script>_bot.py, run by this interpreter."""
    return BotSpec(script, [sys.executable, str(BOTS / f"{script}_bot.py"), *args])


RANDOM = bot("random")


def config(
    startup_ms: int = 5000,
    move_ms: int = 2000,
    late_grace_ms: int = 300,
    exit_grace_ms: int = 500,
    **kwargs: Any,
) -> RefereeConfig:
    return RefereeConfig(
        limits=Limits(startup_ms=startup_ms, move_ms=move_ms),
        late_grace_ms=late_grace_ms,
        exit_grace_ms=exit_grace_ms,
        **kwargs,
    )


# -- processes -----------------------------------------------------------------------------


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (state, ppid, pgrp, ...)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None


def alive(pid: int) -> bool:
    """Whether `pid` runs: os.kill(pid, 0) fails, or it is only a zombie awaiting reaping
    (a killed bot's children are reparented to init, which may reap them late)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = _stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes in process group `pgid`."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = _stat(int(entry))
            if stat is not None and int(stat[2]) == pgid and stat[0] not in ("Z", "X"):
                out.append(int(entry))
    return out


def leftovers(started: Sequence[BotProcess], pids: Sequence[int] = ()) -> list[int]:
    groups = [b.process.pid for b in started if b.process is not None]
    return [p for g in groups for p in group_members(g)] + [p for p in pids if alive(p)]


async def assert_no_process_left(started: Sequence[BotProcess], pids: Sequence[int] = ()) -> None:
    """Every bot was reaped by the referee, and nothing of its process group (children
    included) nor any of `pids` is still running (polling briefly for the kernel)."""
    assert started, "no bot process was started"
    for b in started:
        assert b.process is not None, f"{b.spec.name} was never started"
        assert b.process.returncode is not None, f"{b.spec.name} was not reaped"
    with trio.move_on_after(3):
        while leftovers(started, pids):
            await trio.sleep(0.02)
    assert not leftovers(started, pids), "processes outlived the game"


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[BotProcess]]:
    """The BotProcess of every bot the referee starts in this test (the referee's own
    construction path is kept). At teardown nothing may be left; leftovers are killed."""
    procs: list[BotProcess] = []

    class Tracked(BotProcess):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            procs.append(self)

    monkeypatch.setattr(referee, "BotProcess", Tracked)
    yield procs
    deadline = time.monotonic() + 3
    while (left := leftovers(procs)) and time.monotonic() < deadline:
        time.sleep(0.02)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"bot processes left running: {left}"


# -- checking games (the record itself: tests/helpers/records.py) --------------------------


async def play(
    started: list[BotProcess],
    bots: Sequence[BotSpec],
    ruleset: str = "odin-race",
    *,
    faulty: Sequence[int] = (),
    seed: int = 0,
    cfg: RefereeConfig | None = None,
    options: Any = None,
    observer: Any = None,
) -> GameRecord:
    """Play one game, then check that no process is left and that the record is sound."""
    record = await play_game(
        ruleset, bots, options=options, seed=seed, config=cfg or config(), observer=observer
    )
    await assert_no_process_left(started)
    check_record(record, set(faulty))
    return record


def as_json(value: Any) -> Any:
    """`value` as a bot or a reader of records sees it: through JSON."""
    return msgspec.json.decode(msgspec.json.encode(value))


def seat_moves(record: GameRecord, seat: int) -> list[int]:
    """The decision numbers at which `seat` decided."""
    return [i for i, m in enumerate(record.moves) if m.seat == seat]


def with_bot(players: int, seat: int, spec: BotSpec) -> list[BotSpec]:
    bots = [RANDOM] * players
    bots[seat] = spec
    return bots


class KillWatch:
    """An observer: right after `seat`'s `nth` move (its faulting decision), the game is
    held until that bot's process is dead, for at most a second. The referee must kill a
    faulting bot at once, not at the end of the game (which cannot come while held)."""

    def __init__(self, started: list[BotProcess], seat: int, nth: int = 1) -> None:
        self.started, self.seat, self.nth = started, seat, nth
        self.dead_at: int | None = None

    def __call__(self, state: Any, events: Any) -> None:
        moves = [i for i, (seat, _) in enumerate(state.history) if seat == self.seat]
        if len(moves) != self.nth or moves[-1] != len(state.history) - 1:
            return
        proc = self.started[self.seat].process
        assert proc is not None
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            stat = _stat(proc.pid)
            if stat is None or stat[0] in ("Z", "X"):
                self.dead_at = moves[-1]
                return
            time.sleep(0.002)


# -- good bots -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ruleset", "players"), [("odin-race", 2), ("odin", 3), ("override-beta", 4)]
)
async def test_good_bots_play_a_full_game(
    started: list[BotProcess], ruleset: str, players: int
) -> None:
    record = await play(started, [RANDOM] * players, ruleset, seed=3)
    assert record.faults == []
    assert len(record.moves) > players
    assert sorted(set(record.ranks))[0] == 1
    assert record.ranks == record.game_ranks
    assert all(m.by == "bot" and m.ms > 0 for m in record.moves)
    # every bot read game_over and exited by itself (status 0) within the exit grace
    assert [b.process.returncode for b in started if b.process] == [0] * players


async def test_bot_folder_with_manifest(started: list[BotProcess]) -> None:
    spec = load_bot(str(EXAMPLE_BOT))
    assert spec.command[0] == "{python}" and spec.cwd == str(EXAMPLE_BOT.resolve())
    record = await play(started, [spec, RANDOM], seed=5)
    assert record.faults == [] and record.seats[0].bot == "random-py"


# -- every fault kind ----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("seat", [0, 1])
async def test_bot_past_its_move_limit_times_out(started: list[BotProcess], seat: int) -> None:
    cfg = config(move_ms=400, late_grace_ms=300)
    watch = KillWatch(started, seat)
    bots = with_bot(2, seat, bot("slow", "30"))
    record = await play(started, bots, faulty=[seat], cfg=cfg, observer=watch)
    (fault,) = record.faults
    assert watch.dead_at == fault.decision
    assert fault.kind == "timeout" and fault.overrun_ms is None
    assert fault.decision == seat_moves(record, seat)[0]
    assert fault.reason == "did not answer within 400 ms (waited 300 ms more)"
    # the faulted decision keeps the time the bot had: its 400 ms and the 300 ms waited
    assert 700 <= record.moves[fault.decision].ms < 700 + 1000
    assert record.ranks[seat] == 2 and record.ranks[1 - seat] == 1
    # the referee waited the move limit plus the grace, and no longer
    assert 0.7 <= record.seconds < 0.7 + 2.5
    assert started[seat].returncode == -signal.SIGKILL


async def test_late_answer_within_grace_records_the_overrun(started: list[BotProcess]) -> None:
    cfg = config(move_ms=400, late_grace_ms=800)
    record = await play(started, [RANDOM, bot("slow", "0.2")], faulty=[1], cfg=cfg)
    (fault,) = record.faults
    assert fault.kind == "timeout" and fault.decision == seat_moves(record, 1)[0]
    assert fault.overrun_ms is not None and 170 <= fault.overrun_ms <= 600, fault.overrun_ms
    assert fault.reason == f"answered {fault.overrun_ms:.0f} ms after its 400 ms"
    assert record.moves[fault.decision].ms == round(400 + fault.overrun_ms, 3)
    assert record.ranks == [1, 2]


@pytest.mark.slow
@pytest.mark.parametrize("seat", [0, 1])
async def test_bot_that_never_answers_hello_has_a_startup_fault(
    started: list[BotProcess], seat: int
) -> None:
    cfg = config(startup_ms=1000)
    record = await play(started, with_bot(2, seat, bot("silent")), faulty=[seat], cfg=cfg)
    (fault,) = record.faults
    assert fault.kind == "startup" and fault.decision is None
    assert fault.reason == "did not answer hello within 1000 ms"
    assert all(m.by == "fallback" for m in record.moves if m.seat == seat)
    assert all(m.by == "bot" for m in record.moves if m.seat != seat)
    assert record.ranks[seat] == 2 and record.ranks[1 - seat] == 1
    assert 1.0 <= record.seconds < 1.0 + 2.0


async def test_garbage_line_is_malformed(started: list[BotProcess]) -> None:
    watch = KillWatch(started, 1)
    record = await play(started, [RANDOM, bot("garbage")], faulty=[1], observer=watch)
    (fault,) = record.faults
    assert fault.kind == "malformed" and fault.decision == seat_moves(record, 1)[0]
    assert watch.dead_at == fault.decision
    assert fault.reason.startswith("sent 'this is {not JSON', which is not JSON: ")
    assert record.ranks == [1, 2]


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("index-string", '\'{"type": "action", "index": "x"}\''),
        ("unknown-type", "resign"),
        ("no-type", "type"),
        ("unknown-action", "fold"),
        ("array", "[0]"),
        ("ready", "sent ready when an action was due"),
        ("both", "exactly one of index or action"),
        ("neither", "exactly one of index or action"),
    ],
)
async def test_json_that_breaks_the_schema(started: list[BotProcess], mode: str, says: str) -> None:
    record = await play(started, [bot("schema", mode), RANDOM], faulty=[0])
    (fault,) = record.faults
    assert fault.kind == "schema", fault
    assert fault.decision == 0
    assert says in fault.reason
    assert record.ranks == [2, 1]


@pytest.mark.parametrize(
    ("mode", "why"),
    [
        ("not-held", "is not in your hand"),
        ("not-a-card", "is not a card of this deck"),
        ("index", "index out of range"),
        ("negative-index", "index out of range"),
        ("take", "no beaten set to take a card from"),
    ],
)
@pytest.mark.parametrize("seat", [0, 1])
async def test_illegal_action_names_the_action(
    started: list[BotProcess], mode: str, why: str, seat: int
) -> None:
    watch = KillWatch(started, seat)
    bots = with_bot(2, seat, bot("illegal", mode))
    record = await play(started, bots, faulty=[seat], observer=watch)
    (fault,) = record.faults
    assert fault.kind == "illegal" and fault.decision == seat_moves(record, seat)[0]
    assert watch.dead_at == fault.decision
    sent = record.stderr[seat].strip()  # the bot wrote the action it sent to stderr
    assert sent and fault.reason.startswith(f"sent an illegal action {sent}: "), fault.reason
    assert why in fault.reason
    assert record.ranks[seat] == 2 and record.ranks[1 - seat] == 1


@pytest.mark.parametrize("when", ["after-answer", "on-request"])
async def test_bot_exiting_mid_game_is_a_crash_noticed_at_once(
    started: list[BotProcess], when: str
) -> None:
    cfg = config(move_ms=4000)
    watch = KillWatch(started, 1, nth=4)
    # the opponent thinks a little, so that a bot exiting right after an answer is
    # certainly seen to end its output before its next request is sent
    bots = [bot("random", "0.02"), bot("crash", "3", when)]
    record = await play(started, bots, faulty=[1], cfg=cfg, observer=watch)
    (fault,) = record.faults
    assert watch.dead_at == fault.decision
    assert fault.kind == "crash", fault
    assert fault.decision == seat_moves(record, 1)[3]
    assert "exited with status 3" in fault.reason
    remaining = sum(1 for m in record.moves if m.by == "fallback")
    assert remaining >= 1
    # no move limit was waited out: the whole game took well under a single one
    assert record.seconds < 4.0 / 2 <= 4.0 * remaining
    assert record.ranks == [1, 2]


async def test_100_mib_line_is_malformed_and_the_bot_killed(started: list[BotProcess]) -> None:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    begin = trio.current_time()
    watch = KillWatch(started, 0)
    record = await play(started, [bot("huge_line"), RANDOM], faulty=[0], observer=watch)
    assert trio.current_time() - begin < 5
    (fault,) = record.faults
    assert watch.dead_at == fault.decision == 0
    assert fault.kind == "malformed" and fault.decision == 0
    assert f"longer than {MAX_LINE_BYTES} bytes" in fault.reason
    assert started[0].returncode == -signal.SIGKILL
    assert record.ranks == [2, 1]
    # the referee read about one line's cap of it, not the 100 MiB (its peak memory did
    # not grow by anything like that)
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak
    assert grown * 1024 < 30 * MIB


async def test_small_line_cap_from_the_config(started: list[BotProcess]) -> None:
    # its ready (and the other bot's every answer) fits in 64 bytes; the big line does not
    record = await play(started, [bot("huge_line"), RANDOM], faulty=[0], cfg=config(max_line=64))
    assert record.faults[0].kind == "malformed"
    assert "longer than 64 bytes" in record.faults[0].reason


@pytest.mark.slow
@pytest.mark.parametrize("escape", ["", "setsid", "daemon"])
@pytest.mark.parametrize(
    ("mode", "kind"), [("hang-hello", "startup"), ("hang-act", "timeout"), ("leak", None)]
)
async def test_bot_children_are_killed_with_it(
    started: list[BotProcess], tmp_path: Path, mode: str, kind: str | None, escape: str
) -> None:
    """Unsandboxed, no process a bot started outlives its game, whether the bot faults or
    ends normally, even one in a session of its own or left behind by a double fork (the
    referee, a subreaper, adopts such orphans and kills those that carry the bot's mark)."""
    pidfile = tmp_path / "pids"
    cfg = config(startup_ms=1000, move_ms=400, late_grace_ms=200)
    spawner = bot("spawner", str(pidfile), mode, escape)
    record = await play(started, [spawner, RANDOM], faulty=[] if kind is None else [0], cfg=cfg)
    assert [f.kind for f in record.faults] == ([] if kind is None else [kind])
    bot_pid, child_pid = map(int, pidfile.read_text().split())
    assert started[0].process is not None and started[0].process.pid == bot_pid
    await assert_no_process_left(started, [bot_pid, child_pid])
    for pid in (bot_pid, child_pid):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        # a zombie waiting for its new parent (init) to reap it: dead all the same
        status = Path(f"/proc/{pid}/status").read_text()
        assert "State:\tZ" in status, status


# -- the fault policy and the fallback -----------------------------------------------------


def test_ranks_with_faults_table() -> None:
    assert ranks_with_faults([1, 2], {0}) == [2, 1]
    assert ranks_with_faults([2, 1], {0}) == [2, 1]
    assert ranks_with_faults([1, 2], {1}) == [1, 2]
    assert ranks_with_faults([1, 2, 3], {0}) == [3, 1, 2]
    assert ranks_with_faults([3, 1, 2], {1}) == [2, 3, 1]
    assert ranks_with_faults([2, 1, 1], {1}) == [2, 3, 1]
    assert ranks_with_faults([1, 2, 3, 4], {0, 2}) == [3, 1, 3, 2]
    assert ranks_with_faults([1, 2, 2, 4], {0}) == [4, 1, 1, 3]
    assert ranks_with_faults([1, 1], set()) == [1, 1]


async def test_faulter_ranks_last_among_three_and_the_others_keep_their_order(
    started: list[BotProcess],
) -> None:
    """The faulting seat (played on by the fallback) must be demoted even where its
    fallback play won, and the other two keep their own order; several seeds are tried
    until such a game comes up."""
    interesting = 0
    for seed in range(12):
        bots = [RANDOM, bot("garbage"), RANDOM]
        record = await play(started, bots, "odin", faulty=[1], seed=seed, options={"rounds": 1})
        gr = record.game_ranks
        assert record.ranks[1] == 3
        assert (record.ranks[0] < record.ranks[2]) == (gr[0] < gr[2])
        assert (record.ranks[0] == record.ranks[2]) == (gr[0] == gr[2])
        assert all(m.by == "bot" for m in record.moves if m.seat != 1)
        if gr[1] < max(gr[0], gr[2]) and gr[0] != gr[2]:
            interesting += 1
            assert sorted([record.ranks[0], record.ranks[2]]) == [1, 2]
            if interesting == 2:
                break
    assert interesting == 2, "no game where the faulter's seat did better than last"


async def test_two_faulters_among_four_share_last_place(started: list[BotProcess]) -> None:
    bots = [RANDOM, bot("garbage"), RANDOM, bot("schema", "neither")]
    record = await play(started, bots, "odin", faulty=[1, 3], seed=2, options={"rounds": 1})
    assert record.ranks[1] == record.ranks[3] == 3
    assert {record.ranks[0], record.ranks[2]} <= {1, 2}


async def test_fallback_is_seeded(started: list[BotProcess]) -> None:
    def moves(record: GameRecord) -> list[tuple[int, Any, str]]:
        return [(m.seat, m.action, m.by) for m in record.moves]

    def faults(record: GameRecord) -> list[tuple[int, str, int | None]]:
        return [(f.seat, f.kind, f.decision) for f in record.faults]

    bots = [RANDOM, bot("crash", "2", "on-request")]
    runs = [await play(started, bots, "odin", faulty=[1], seed=s) for s in (11, 11, 12)]
    assert moves(runs[0]) == moves(runs[1]) and faults(runs[0]) == faults(runs[1])
    assert sum(m.by == "fallback" for m in runs[0].moves) > 10
    assert moves(runs[0]) != moves(runs[2])  # a different seed deals and falls back otherwise


async def test_fallback_moves_derive_from_the_seed(started: list[BotProcess]) -> None:
    """With both seats silent, every move is the fallback's: exactly the choices of
    `fallback_rng(seed)` over the legal actions."""
    cfg = config(startup_ms=400)
    record = await play(started, [bot("silent"), bot("silent")], faulty=[0, 1], seed=9, cfg=cfg)
    rng = fallback_rng(9)
    state = new_game("odin-race", 2, None, 9)
    expected = []
    while not state.is_terminal:
        action = rng.choice(state.legal_actions())
        expected.append((state.current_player, action))
        state.apply(action)
    assert [(m.seat, m.action) for m in record.moves] == expected
    assert record.ranks == [1, 1]  # everyone faulted: all share the last place


# -- stderr, extra lines -------------------------------------------------------------------


async def test_stderr_is_captured_and_bounded(started: list[BotProcess]) -> None:
    size, limit = 10 * MIB, 4096
    record = await play(started, [RANDOM, bot("stderr", str(size))], cfg=config(stderr_limit=limit))
    assert record.faults == []
    text = record.stderr[1]
    assert text.startswith("stderr-bot says hello\neee")
    kept, note = text.split("\n[... ", 1)
    assert len(kept) == limit
    assert note == f"{size - limit} more bytes of stderr dropped]"
    assert record.stderr[0] == ""


async def test_unsolicited_extra_line_is_caught(started: list[BotProcess]) -> None:
    record = await play(started, [RANDOM, bot("chatty", "always")], faulty=[1])
    (fault,) = record.faults
    assert fault.kind == "malformed" and fault.decision == seat_moves(record, 1)[1]
    assert "no request asked for" in fault.reason


async def test_extra_line_is_caught_even_when_the_same_bot_decides_next(
    started: list[BotProcess],
) -> None:
    """The bot beats a set of several cards and writes an extra line with its answer; its
    next decision is its own take-back, asked at once. The extra line must not be taken
    as the answer to that request."""
    found = 0
    for seed in range(30):
        record = await play(
            started, [RANDOM, bot("chatty", "before-take")], "odin", faulty=[1], seed=seed
        )
        (fault,) = record.faults
        mine = seat_moves(record, 1)
        trigger = next(i for i in mine if i + 1 in mine)
        assert isinstance(record.moves[trigger].action, Play)
        assert fault.kind == "malformed" and "no request asked for" in fault.reason
        assert fault.decision == trigger + 1, (seed, trigger, fault)
        found += 1
        if found == 3:
            break
    assert found == 3


# -- what bots are told --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ruleset", "players", "spy"), [("odin", 3, 1), ("override-beta", 2, 0), ("odin-race", 4, 3)]
)
async def test_no_bot_is_sent_another_seats_cards(
    started: list[BotProcess], tmp_path: Path, ruleset: str, players: int, spy: int
) -> None:
    log = tmp_path / "spy.log"
    record = await play(started, with_bot(players, spy, bot("spy", str(log))), ruleset, seed=4)
    assert record.faults == []
    got = [json.loads(line) for line in log.read_text().splitlines()]
    hello, acts, over = got[0], got[1:-1], got[-1]
    assert hello["type"] == "hello" and hello["seat"] == spy and hello["players"] == players
    assert over["type"] == "game_over"
    assert all(m["type"] == "act" for m in acts)
    assert [m["decision"] for m in acts] == seat_moves(record, spy)

    state = new_game(ruleset, players, record.options, record.seed)
    codes = state.rules.deck.table.codes  # type: ignore[attr-defined]
    deck = {codes[c] for c in state.rules.cards}  # type: ignore[attr-defined]
    dealt: dict[int, list[set[str]]] = {}  # round -> every seat's hand as dealt
    secret: dict[int, set[str]] = {}  # round -> cards the spy may not see (until played)
    played: dict[int, set[str]] = {}  # round -> cards played so far

    def note_deal() -> None:
        r = state.round  # type: ignore[attr-defined]
        if r not in dealt:
            hands = [{codes[c] for c in h} for h in state.hands]  # type: ignore[attr-defined]
            dealt[r] = hands
            secret[r] = deck - hands[spy]  # the others' hands and the cards set aside
            played[r] = set()
            assert len(secret[r]) > 0

    def check_events(events: list[Any], start_round: int) -> int:
        """Dealt events are the spy's own hand; other events only show played cards."""
        r = start_round
        for ev in events:
            if ev["type"] == "dealt":
                r = ev["round"]
                assert set(ev["hand"]) == dealt[r][spy], "another seat's hand was sent"
                continue
            if ev["type"] == "round_started":
                assert ev["round"] == r
            cards = {s for s in strings(ev) if s in deck}
            assert not cards & (secret[r] - played[r]), (ev, "hidden cards were sent")
        return r

    note_deal()
    ev_round, acts_left = 0, list(acts)
    for i, move in enumerate(record.moves):
        if move.seat == spy:
            msg = acts_left.pop(0)
            r = state.round  # type: ignore[attr-defined]
            obs = msg["observation"]
            own = [codes[c] for c in state.hands[spy]]  # type: ignore[attr-defined]
            assert obs["seat"] == spy and obs["hand"] == own, f"decision {i}"
            assert obs == as_json(state.observation(spy))
            assert msg["actions"] == as_json(state.legal_actions())
            shown = {s for s in strings(obs) if s in deck}
            assert not shown & (secret[r] - played[r]), f"decision {i}: hidden cards shown"
            ev_round = check_events(msg["events"], ev_round)
            assert ev_round == r
        r = state.round  # type: ignore[attr-defined]
        if isinstance(move.action, Play):
            played[r] |= set(move.action.cards)
        state.apply(move.action)
        if not state.is_terminal:
            note_deal()
    assert not acts_left
    check_events(over["events"], ev_round)
    assert over["ranks"] == record.ranks and over["seed"] == record.seed


# -- records -------------------------------------------------------------------------------


async def test_records_round_trip_and_a_torn_last_line_is_skipped(
    started: list[BotProcess], tmp_path: Path
) -> None:
    first = await play(started, [RANDOM, bot("garbage")], faulty=[1], seed=1)
    second = await play(
        started,
        [bot("slow", "0.1"), RANDOM],
        faulty=[0],
        seed=2,
        cfg=config(move_ms=300, late_grace_ms=500),
    )
    third = await play(started, [RANDOM, RANDOM], seed=3)
    assert second.faults[0].overrun_ms is not None
    path = tmp_path / "games.jsonl"
    append_record(path, first)
    append_record(path, second)
    back = list(read_records(path))
    assert [as_json(r) for r in back] == [as_json(first), as_json(second)]
    assert all(isinstance(r, GameRecord) for r in back)
    assert back[1].faults[0].overrun_ms == second.faults[0].overrun_ms

    # a crash mid-write leaves part of a line: it is skipped, with or without a newline
    torn = msgspec.json.encode(third)[:200]
    with open(path, "ab") as fh:
        fh.write(torn)
    assert len(list(read_records(path))) == 2
    with open(path, "ab") as fh:
        fh.write(b"\n")
    assert len(list(read_records(path))) == 2

    # a torn line in the middle is an error, not silently dropped data
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(torn + b"\n")
    append_record(bad, first)
    with pytest.raises(ValueError, match=r"bad\.jsonl:1: not a game record"):
        list(read_records(bad))


async def test_append_after_a_torn_line_keeps_the_new_record(
    started: list[BotProcess], tmp_path: Path
) -> None:
    record = await play(started, [RANDOM, RANDOM], seed=6)
    path = tmp_path / "games.jsonl"
    append_record(path, record)
    with open(path, "ab") as fh:  # the previous run crashed half way through a record
        fh.write(msgspec.json.encode(record)[:100])
    append_record(path, record)
    append_record(path, record)
    assert [as_json(r) for r in read_records(path)] == [as_json(record)] * 3
    # a torn tail longer than any read block, and a file holding only a torn line
    with open(path, "ab") as fh:
        fh.write(b'{"ruleset": "' + b"x" * 200_000)
    append_record(path, record)
    assert len(list(read_records(path))) == 4
    only = tmp_path / "only.jsonl"
    only.write_bytes(b"y" * 100_000)
    append_record(only, record)
    assert only.read_bytes() == msgspec.json.encode(record) + b"\n"


# -- cancellation --------------------------------------------------------------------------


@pytest.mark.slow
async def test_cancelled_during_the_handshake_leaves_no_process(
    started: list[BotProcess],
) -> None:
    begin = trio.current_time()
    with trio.move_on_after(0.5) as scope:
        await play_game("odin", [bot("silent"), bot("silent"), RANDOM], config=config())
    assert scope.cancelled_caught
    assert trio.current_time() - begin < 0.5 + 2
    assert len(started) == 3
    await assert_no_process_left(started)


@pytest.mark.slow
async def test_cancelled_during_a_move_leaves_no_process(
    started: list[BotProcess], tmp_path: Path
) -> None:
    pidfile = tmp_path / "pids"
    bots = [RANDOM, bot("spawner", str(pidfile), "hang-act"), bot("slow", "30")]
    cfg = config(move_ms=20_000)
    begin = trio.current_time()
    with trio.move_on_after(1.5) as scope:
        await play_game("odin", bots, config=cfg)
    assert scope.cancelled_caught
    assert trio.current_time() - begin < 1.5 + 2
    child = int(pidfile.read_text().split()[1])
    await assert_no_process_left(started, [child])
