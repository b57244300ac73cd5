"""Synthetic journals for the scale benchmark: results folders of any size, in the real format.

Every line is a `GameRecord` encoded exactly as `arena.referee.records.append_record`
encodes it (msgspec JSON, one record a line), written in large blocks rather than flushed
one by one. Two kinds of folder:

- `tournament DIR --bots N --deals D`: a finished round robin of N bots, 2 seats, D deals
  (N·(N-1)·D games: 1,000 bots and 1 deal make 999,000): DIR/tournament.toml (the bots
  share one program, DIR/bot/bot.py, never run), and DIR/results/scale/ as
  `arena tournament` leaves it: tournament.json, schedule.jsonl (the real schedule, from
  `schedule_of`) and games.jsonl holding a record of every scheduled game. Running
  `arena tournament DIR/tournament.toml --results DIR/results` resumes it with nothing left
  to play; `arena leaderboard DIR/results/scale` shows its standings.
- `records DIR --bots N --games G`: DIR/games.jsonl alone, G games between random pairs of
  N bots, each deal played in both seatings (ids r0-t<deal>-d0-s<0|1>), for
  `arena leaderboard DIR`.

Results follow a strength model: bot i has a hidden Elo, the winner of a game is drawn by
the logistic Elo law, 5% of games are draws; 1% of seats fault (a timeout, ranked last)
and 0.1% of games end in a referee error (no result). All of it is seeded: the same
arguments write the same bytes.

`--moves` fills each record with the moves of a real game of `odin` (2 players, played by
random players through the rules engine: 260 decisions and 19 KB on average, as a real
odin game's record); a pool of such games is played once and reused, so these moves do not
replay to the record's seed and result, only their size and shape are real. `--stderr B`
gives every seat B bytes of stderr text (a bot's log lines). Without them a record holds
no moves and empty stderr (about 400 bytes).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import msgspec

from arena.games import new_game
from arena.league.config import load_tournament
from arena.league.results import ResultsDir
from arena.league.schedule import Game
from arena.league.tournament import schedule_of
from arena.referee.records import Fault, GameRecord, Move, SeatRecord

NAME = "scale"
COMMAND = ["{python}", "bot.py"]
BOT_SOURCE = "from protocol.bot import run\n\nrun(lambda request: 0, name='scale-bot')\n"
BLOCK = 4096  # records encoded and written at a time


def bot_names(count: int) -> list[str]:
    return [f"bot-{i:05d}" for i in range(count)]


def write_tournament_file(folder: Path, bots: int, deals: int) -> Path:
    """The tournament file of a round robin of `bots` bots (one program shared by all)."""
    (folder / "bot").mkdir(parents=True, exist_ok=True)
    (folder / "bot" / "bot.py").write_text(BOT_SOURCE)
    head = [
        f'name = "{NAME}"',
        'ruleset = "odin"',
        'format = "round-robin"',
        "seats = 2",
        f"deals = {deals}",
        "seed = 1",
        "jobs = 2",
        'sandbox = "off"',
        "",
    ]
    entries = [
        f'[[bots]]\nname = "{name}"\ncommand = ["{{python}}", "bot.py"]\ncwd = "bot"\n'
        for name in bot_names(bots)
    ]
    file = folder / "tournament.toml"
    file.write_text("\n".join(head) + "\n".join(entries))
    return file


class Model:
    """Seeded results: hidden strengths, draws, faults, referee errors; moves and stderr."""

    def __init__(
        self, bots: list[str], seed: int, moves: bool, stderr: int, pool: int = 64
    ) -> None:
        self.rng = random.Random(seed)
        self.elo = {name: self.rng.uniform(-400.0, 400.0) for name in bots}
        self.pool = odin_moves(pool) if moves else [[]]
        line = "thinking: move 12 of 40, 3 candidates, best +0.25\n"
        text = (line * (stderr // len(line) + 1))[:stderr]
        self.stderr = [text, text]

    def record(self, game: str, seats: tuple[str, str], seed: int, number: int) -> GameRecord:
        rng = self.rng
        a, b = seats
        moves = self.pool[number % len(self.pool)]
        error = None
        faults: list[Fault] = []
        if rng.random() < 0.001:
            error = "the game passed the most decisions its rules allow (4000)"
            game_ranks, ranks, scores = [1, 1], [1, 1], [0.0, 0.0]
        else:
            p = 1.0 / (1.0 + math.pow(10.0, (self.elo[b] - self.elo[a]) / 400.0))
            draw = rng.random() < 0.05
            first = rng.random() < p
            game_ranks = [1, 1] if draw else [1, 2] if first else [2, 1]
            points = float(rng.randint(1, 30))
            scores = [0.0, 0.0] if draw else [0.0, points] if first else [points, 0.0]
            ranks = list(game_ranks)
            for seat in (0, 1):
                if rng.random() < 0.01:
                    decision = rng.randrange(max(len(moves), 1))
                    reason = "did not answer within 1000 ms (waited 500 ms more)"
                    faults.append(Fault(seat, seats[seat], "timeout", decision, reason, 500.0))
            if len(faults) == 1:
                ranks = [2, 1] if faults[0].seat == 0 else [1, 2]
            elif faults:
                ranks = [1, 1]
        return GameRecord(
            ruleset="odin",
            options={},
            seed=seed,
            players=2,
            seats=[SeatRecord(i, name, COMMAND) for i, name in enumerate(seats)],
            moves=moves,
            faults=faults,
            scores=scores,
            game_ranks=game_ranks,
            ranks=ranks,
            seconds=round(rng.uniform(0.05, 2.0), 3),
            stderr=self.stderr,
            game=game,
            error=error,
        )


def odin_moves(count: int) -> list[list[Move]]:
    """The moves of `count` real games of odin, 2 players, random legal actions (seeded)."""
    out = []
    for seed in range(count):
        state = new_game("odin", 2, None, seed)
        rng = random.Random(seed)
        while not state.is_terminal:
            state.apply(rng.choice(state.legal_actions()))
        out.append(
            [Move(seat, action, round(rng.uniform(0.2, 40.0), 3)) for seat, action in state.history]
        )
    return out


def write_records(path: Path, records: Iterable[GameRecord]) -> int:
    """Append `records` to `path` as append_record encodes them, in blocks; how many."""
    encoder = msgspec.json.Encoder()
    count = 0
    with open(path, "ab") as fh:
        block: list[bytes] = []
        for record in records:
            block.append(encoder.encode(record) + b"\n")
            count += 1
            if len(block) == BLOCK:
                fh.write(b"".join(block))
                block.clear()
        fh.write(b"".join(block))
    return count


def tournament(folder: Path, bots: int, deals: int, moves: bool, stderr: int) -> int:
    """A finished round robin's folder (see the module's docstring); its number of games."""
    file = write_tournament_file(folder, bots, deals)
    t = load_tournament(file)
    games: list[Game] = schedule_of(t).plan(0, [], {})
    with ResultsDir.open(folder / "results", t, fresh=True) as results:
        results.plan(games)
        model = Model([b.name for b in t.bots], 7, moves, stderr)
        made = (
            model.record(g.id, (g.seats[0], g.seats[1]), g.seed, n) for n, g in enumerate(games)
        )
        return write_records(results.games_file, made)


def pairings(bots: list[str], games: int, seed: int) -> Iterator[tuple[str, tuple[str, str], int]]:
    """`games` games between random pairs, each deal in both seatings: (id, seats, seed)."""
    rng = random.Random(seed)
    for deal in range((games + 1) // 2):
        a, b = rng.sample(bots, 2)
        deal_seed = rng.getrandbits(63)
        for rotation, seats in enumerate(((a, b), (b, a))):
            if 2 * deal + rotation < games:
                yield f"r0-t{deal}-d0-s{rotation}", seats, deal_seed


def records(folder: Path, bots: int, games: int, moves: bool, stderr: int) -> int:
    """A folder holding games.jsonl alone (see the module's docstring); its number of games."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "games.jsonl"
    path.unlink(missing_ok=True)
    names = bot_names(bots)
    model = Model(names, 7, moves, stderr)
    made = (
        model.record(game, seats, seed, n)
        for n, (game, seats, seed) in enumerate(pairings(names, games, 11))
    )
    return write_records(path, made)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=["tournament", "records"])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--deals", type=int, default=1, help="tournament: deals per pair")
    parser.add_argument("--games", type=int, default=30_000, help="records: how many games")
    parser.add_argument("--moves", action="store_true", help="real odin moves in every record")
    parser.add_argument("--stderr", type=int, default=0, help="bytes of stderr per seat")
    args = parser.parse_args(argv)
    if args.kind == "tournament":
        n = tournament(args.folder, args.bots, args.deals, args.moves, args.stderr)
    else:
        n = records(args.folder, args.bots, args.games, args.moves, args.stderr)
    print(f"{n} games written in {args.folder}", file=sys.stderr)


if __name__ == "__main__":
    main()
