"""A ladder running: one trio process serving the HTTP API (`api.make_app`, on Hypercorn's
trio worker), validating submitted versions, and playing games without end through one of the
league's executors, fed by the matchmaker.

Games come from a `Feed`: each time a game can start, the next game of the table being played
is taken, or else the matchmaker draws a new table among the active versions (`next_table`:
the least played bot seeds it, the others near it in rating, one bot per author) and all its
games (the deal in every seat rotation) are planned in the store at once, so that after a
crash the games in flight are played again under their own ids (and journaled once). The
rotations of one deal share its seed, so the executor never plays two of them at once. A bot's
games count its planned ones too, so a table's bots do not seed the next table as well; its
rating is the live table's, refitted as games come (about once a second), and a bot whose place the
table marks settled seeds tables at its `[matchmaking] settled_share` of the others' rate.

A retired version (its author's new version accepted, or a retirement through the API) or
a suspended one plays no more: the games of it waiting to start are dropped (unplanned),
and those in flight finish and are journaled. Every game journaled, every refit and every
status change is told to the event stream (`events.Events`, `GET /api/events`).

A submitted version waits for validation (`validation.validate`) in a queue of its own; once
accepted it becomes the bot's active version (retiring the one before) and the feed is poked,
so that it plays from its next table. Versions left validating by a crash are validated again
when the server starts.

Ctrl-C and SIGTERM stop it: the API stops taking requests, the games in flight are stopped
(their bots killed) and stay planned, to be played first at the next start.
"""

from __future__ import annotations

import contextlib
import gc
import math
import random
import signal
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, cast

import msgspec
import trio
from hypercorn.config import Config as HypercornConfig
from hypercorn.trio import serve

from arena.ladder.api import LiveTable, changed, make_app
from arena.ladder.archives import VERSIONS
from arena.ladder.events import Events, GameEvent
from arena.ladder.matchmaking import Entrant, NotEnoughAuthors, next_table
from arena.ladder.store import LadderStore, Planned, Recorded, Version
from arena.ladder.validation import SANDBOX, validate
from arena.league.executors import Executor, GameJob
from arena.league.lineup import Feed
from arena.referee.folders import BotSpec, load_bot
from arena.referee.game import RefereeConfig
from arena.referee.records import GameRecord
from arena.referee.sandbox import SandboxConfig

REPORTS = "reports"  # the ladder folder's validation reports, by version label
REFIT_EVERY = 1.0  # seconds at least between two refits of the live table
REFIT_SHARE = 0.25  # the most of its time the refitter spends refitting (a large ladder)
#: The collector's thresholds while serving (Python's: 700, 10, 10). A game in flight holds
#: thousands of objects for seconds, so collections of the young generations keep promoting
#: them and a full collection, which walks every tracked object, comes every second or two
#: and stops the loop for up to 0.2 s (games and requests alike); collecting the young
#: generation after 50,000 new objects instead of 700 makes every collection far rarer.
GC_THRESHOLDS = (50_000, 20, 20)
STOP_GRACE = 5.0  # seconds a stop waits for the requests under way to be answered


@contextlib.contextmanager
def collected_rarely() -> Iterator[None]:
    """The garbage collector tuned for serving, for the duration of the block: what is alive
    at the start (modules, the journal's tally, the store) lives as long as the server and is
    put out of the collector's sight (`gc.freeze`), and the young generation is collected
    after GC_THRESHOLDS[0] new objects; both undone at the end."""
    before = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


class LadderServer:
    """The ladder in `store` (open for writing), playing through `executor`; its bots in
    `sandbox` (None only for a trusted local ladder); `on_note` hears what it does."""

    def __init__(
        self,
        store: LadderStore,
        executor: Executor,
        *,
        sandbox: SandboxConfig | None = SANDBOX,
        on_note: Callable[[str], None] | None = None,
        seed: int | None = None,
    ) -> None:
        self.store = store
        self.config = store.config
        self.executor = executor
        self.sandbox = sandbox
        self.on_note = on_note
        self.rng = random.Random(seed)
        self.queue: deque[Planned] = deque(store.planned())  # a crash's games go first
        self.in_flight: dict[int, int] = {}  # planned games not finished, by version
        for game in self.queue:
            self._count(game, 1)
        self.feed: Feed[Planned] = Feed(self._make)
        self.referee = RefereeConfig(
            limits=self.config.time.limits(), margin_ms=self.config.time.margin_ms()
        )
        self._specs: dict[int, BotSpec] = {}
        self._gone: set[int] = set()  # versions withdrawn (retired, suspended) in this run
        self.events = Events()
        self.table = LiveTable(store, self.events)
        self._validate, self._validating = trio.open_memory_channel[Version](1_000)
        # (finished games waiting to be recorded: at most the games at once, so no bound)
        self._finished, self._written = trio.open_memory_channel[tuple[Planned, GameRecord]](
            math.inf
        )

    def _note(self, text: str) -> None:
        if self.on_note is not None:
            self.on_note(text)

    def _count(self, game: Planned, by: int) -> None:
        for version in game.versions:
            self.in_flight[version] = self.in_flight.get(version, 0) + by

    # -- the games ----------------------------------------------------------------------

    def _make(self) -> Planned | None:
        """The next game to play: the next of the table in play, else the first of a new
        table the matchmaker draws (None while too few authors have active bots)."""
        if self.queue:
            return self.queue.popleft()
        active = self.store.active_versions()
        board = self.table.last
        rated = {} if board is None else {row.bot: row for row in board.rows if row.games}
        share = self.config.matchmaking.settled_share
        entrants = []
        for v in active:
            row = rated.get(v.label)
            entrants.append(
                Entrant(
                    str(v.id),
                    v.author,
                    games=v.games + self.in_flight.get(v.id, 0),
                    rating=None if row is None else row.elo,
                    error=None if row is None else row.error,
                    weight=share if row is not None and row.settled else 1.0,
                )
            )
        if not entrants:
            return None
        try:
            table = next_table(entrants, self.config.seat_weights(), self.rng)
        except NotEnoughAuthors:
            return None
        games = [
            Planned(f"{table.deal}-{i}", table.deal, table.seed, [int(v) for v in seating])
            for i, seating in enumerate(table.games)
        ]
        self.store.plan(games)
        for game in games:
            self._count(game, 1)
        self.queue.extend(games[1:])
        return games[0]

    def _spec(self, version: int) -> BotSpec:
        """The version's bot as the ladder plays it: from its stored folder, named by its
        label (as the journal names it), in the ladder's sandbox."""
        spec = self._specs.get(version)
        if spec is None:
            v = self.store.version(version)
            loaded = load_bot(str(self.store.folder / VERSIONS / v.digest))
            spec = msgspec.structs.replace(loaded, name=v.label, sandbox=self.sandbox)
            self._specs[version] = spec
        return spec

    def _job(self, game: Planned) -> GameJob:
        bots = [self._spec(v) for v in game.versions]
        return GameJob(
            self.config.ruleset, bots, dict(self.config.options), game.seed, self.referee, game.id
        )

    def _done(self, game: Planned, record: GameRecord) -> None:
        """A game finished: handed to the recorder (`_recorder`), so that its writes to disk
        never hold up the games playing meanwhile."""
        self._finished.send_nowait((game, record))

    def _wanted(self, game: Planned) -> bool:
        """Whether a game the executor held back (the deal's game before it was in flight)
        is still to be played when its turn comes: not once a version in it is withdrawn
        (then the store forgets it too)."""
        if self._gone & set(game.versions):
            self._count(game, -1)
            self.store.unplan([game.id])
            return False
        return True

    async def _recorder(self) -> None:
        """Journal and index each finished game in a thread (two writes to disk, each flushed
        before it returns), in the order they finished; until the games are stopped, then
        the games that finished before are written too."""
        async for game, record in self._written:
            await trio.to_thread.run_sync(self._record, game, record)

    def _record(self, game: Planned, record: GameRecord) -> None:
        recorded = self.store.record_game(record)
        trio.from_thread.run_sync(self._recorded, game, record, recorded)

    def _recorded(self, game: Planned, record: GameRecord, recorded: Recorded) -> None:
        self._count(game, -1)
        if recorded.new:
            self.table.add(record)
            seats = [seat.bot for seat in record.seats]
            self.events.publish(
                GameEvent(record.game, recorded.game.finished, seats, list(record.ranks))
            )
        self.withdraw(recorded.suspended)
        for version in recorded.suspended:
            self.events.publish(changed(version))
            self._note(f"{version.label} is suspended: {version.reason}")

    def withdraw(self, versions: list[Version]) -> None:
        """Versions that play no more (retired or suspended): their games waiting to start
        are dropped from the queue and the store's plan; their games in flight finish."""
        gone = {v.id for v in versions}
        self._gone |= gone
        for version in gone:
            self._specs.pop(version, None)
        dropped = [game for game in self.queue if gone & set(game.versions)]
        if dropped:
            self.queue = deque(game for game in self.queue if not gone & set(game.versions))
            for game in dropped:
                self._count(game, -1)
            self.store.unplan([game.id for game in dropped])

    # -- validation ----------------------------------------------------------------------

    async def submitted(self, version: Version) -> None:
        """A new version, to be validated in turn."""
        await self._validate.send(version)

    async def _validator(self) -> None:
        for bot in self.store.bots():  # (left validating by a crash)
            for version in self.store.versions(bot.name):
                if version.status == "validating":
                    await self._validate.send(version)
        async for version in self._validating:
            folder = self.store.folder / VERSIONS / version.digest
            verdict = await validate(folder, self.config, self.sandbox)
            reports = self.store.folder / REPORTS
            reports.mkdir(exist_ok=True)
            report = reports / f"{version.label}.txt"
            await trio.to_thread.run_sync(report.write_text, verdict.report)
            relative = str(report.relative_to(self.store.folder))
            if self.store.version(version.id).status != "validating":
                continue  # (retired while it was validated: it stays retired)
            if verdict.accepted:
                new, retired = self.store.activate(version.id, verdict.reason, report=relative)
                self.withdraw(retired)
                for old in retired:
                    self.events.publish(changed(old))
                self.events.publish(changed(new))
                self._note(f"{version.label} is playing ({verdict.reason})")
                self.feed.poke()
            else:
                rejected = self.store.set_status(
                    version.id, "rejected", verdict.reason, report=relative
                )
                self.events.publish(changed(rejected))
                self._note(f"{version.label} is {verdict.reason}")

    async def _refitter(self) -> None:
        """Refit the live table as games come: once games arrived, and REFIT_EVERY seconds at
        least after the last refit began (longer for a ladder whose refit is slow, so that
        refits take at most REFIT_SHARE of the time). Requests read its last refit without
        waiting, and the matchmaker seats bots by ratings of about a second ago."""
        self.table.kept = True
        while True:  # (the first fit at once: the journal's games)
            began = trio.current_time()
            try:
                await self.table.leaderboard()
            except Exception as exc:  # (the table stays as last refitted; games go on)
                self._note(f"the live table could not be refitted: {exc!r}")
            took = trio.current_time() - began
            await trio.sleep(max(REFIT_EVERY, took / REFIT_SHARE) - took)
            await self.table.arrived.wait()

    # -- the process -------------------------------------------------------------------------

    async def run(
        self,
        host: str = "127.0.0.1",
        port: int = 8790,
        task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """Serve until Ctrl-C or SIGTERM; `task_status` hears the address it listens at."""
        config = HypercornConfig()
        config.bind = [f"{host}:{port}"]
        config.accesslog = None
        config.errorlog = None
        stop = trio.Event()
        app = make_app(
            self.store,
            self.submitted,
            self.table,
            events=self.events,
            on_retired=self.withdraw,
        )
        with (
            trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals,
            collected_rarely(),
        ):
            async with trio.open_nursery() as recording:
                recording.start_soon(self._recorder)
                try:
                    await self._serve(app, config, signals, stop, task_status)
                finally:
                    self._finished.close()  # (the recorder writes what finished, then ends)

    async def _serve(
        self,
        app: Any,
        config: HypercornConfig,
        signals: Any,
        stop: trio.Event,
        task_status: trio.TaskStatus[str],
    ) -> None:
        """The HTTP server, validation, refits and the games, until `signals` hears a stop;
        then the requests under way are answered (STOP_GRACE at most) and the rest stopped."""
        async with trio.open_nursery() as nursery:

            async def stopper() -> None:
                async for _ in signals:
                    stop.set()
                    return

            async def games() -> None:
                await self.executor.run(self.feed, self._job, self._done, self._wanted)

            nursery.start_soon(stopper)
            http_done = trio.Event()

            async def http(task_status: trio.TaskStatus[list[str]]) -> None:
                try:
                    await serve(
                        cast(Any, app),
                        config,
                        shutdown_trigger=stop.wait,
                        task_status=task_status,
                    )
                finally:
                    http_done.set()

            binds = await nursery.start(http)
            nursery.start_soon(self._validator)
            nursery.start_soon(self._refitter)
            nursery.start_soon(games)
            task_status.started(binds[0])
            await stop.wait()
            self.events.close()  # (the event streams end, so their responses finish)
            self.feed.close()
            with trio.move_on_after(STOP_GRACE):  # requests under way are answered
                await http_done.wait()
            nursery.cancel_scope.cancel()  # (games in flight stay planned)
