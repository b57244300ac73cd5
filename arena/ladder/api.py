"""The ladder's HTTP API: JSON over Starlette (an ASGI application, served on trio by the
ladder's server), every answer a msgspec Struct and every error a sentence.

Authors name themselves with their token (`Authorization: Bearer TOKEN`, as `arena ladder
author` printed it). An upload (`POST /api/bots`) is a multipart form whose field `archive`
holds the bot's folder as a .tar.gz or a .zip: the request's body is read as it streams in,
parsed by python-multipart, and each chunk of the archive handed to the intake
(`archives.Intake`), which refuses it as soon as it passes a limit, so no upload is ever held
whole in memory. The archive is then unpacked and checked, stored by the digest of its files
and added to the store as a version that is validating; `on_submitted` hears of it (the server
validates it). Reading the ladder (its bots, versions, games and table, and the live stream
of its events, `GET /api/events`) needs no token; what a bot wrote on its stderr (`GET
/api/bots/{bot}/logs`) and its validation reports are its author's alone (and the
organiser's), so a game's record is shown without the bots' stderr. A bot is retired (`POST
/api/bots/{bot}/retire`) by its author or the organiser.

Errors are JSON `{"error": SENTENCE}` with the status that says what kind: 400 a request that
is not a form with an archive, 401 no token or one that is not an author's, 403 another
author's bot or a limit on active bots, 404 nothing of that name, 413 an upload too large,
422 an archive or bot.toml that cannot be taken, 429 too many submissions in a day.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import numpy as np
import trio
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from arena.ladder.archives import (
    ArchiveLimits,
    Intake,
    IntakeError,
    store,
    store_scratch,
)
from arena.ladder.events import Events, TableEvent, VersionEvent
from arena.ladder.matchmaking import settled
from arena.ladder.store import (
    Admin,
    Author,
    LadderStore,
    NotFound,
    NotOwner,
    Version,
    not_owner,
)
from arena.league.leaderboard import Leaderboard, results_leaderboard
from arena.league.live_ratings import LiveStandings
from arena.referee.records import GameRecord

DAY = 86400.0
PAGE = 50  # games a page of `GET /api/games`
ARCHIVE_FIELD = "archive"  # the form field that holds the bot's archive


class ApiError(Exception):
    """An answer other than 2xx: its status and the sentence that says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class ErrorBody(msgspec.Struct, frozen=True):
    error: str


class VersionBody(msgspec.Struct, frozen=True):
    """A version as the API shows it."""

    bot: str
    number: int
    label: str
    digest: str
    status: str
    reason: str
    submitted: float
    changed: float
    games: int
    # its validation report, to its author and the organiser (None to anyone else, and
    # before the version is validated)
    report: str | None = None


class BotBody(msgspec.Struct, frozen=True):
    """A bot and its versions, the latest first."""

    name: str
    owner: str
    versions: list[VersionBody]


class Submitted(msgspec.Struct, frozen=True):
    """What an upload made: the version (new, or the same files submitted before)."""

    version: VersionBody
    new: bool


class GameBody(msgspec.Struct, frozen=True):
    """A finished game in the list of games: its id, when it was journaled, who played."""

    id: str
    finished: float
    seats: list[str]


class LogBody(msgspec.Struct, frozen=True):
    """What one version of the bot wrote on its stderr in one game (kept to the referee's
    bound, the end dropped past it)."""

    game: str
    finished: float
    version: str
    seat: int
    stderr: str


class LogsBody(msgspec.Struct, frozen=True):
    """One page of a bot's logs, its last games first."""

    bot: str
    logs: list[LogBody]
    page: int
    pages: int
    total: int


class Retired(msgspec.Struct, frozen=True):
    """The versions a retirement retired."""

    bot: str
    retired: list[VersionBody]


class GamesBody(msgspec.Struct, frozen=True):
    """One page of games, the last first."""

    games: list[GameBody]
    page: int
    pages: int
    total: int


def shown(version: Version, report: str | None = None) -> VersionBody:
    return VersionBody(
        version.bot,
        version.number,
        version.label,
        version.digest,
        version.status,
        version.reason,
        version.created,
        version.changed,
        version.games,
        report,
    )


def changed(version: Version) -> VersionEvent:
    """The event that tells of `version`'s status."""
    return VersionEvent(version.label, version.bot, version.status, version.reason)


def answer(body: msgspec.Struct, status: int = 200) -> Response:
    """`body` as JSON."""
    return Response(msgspec.json.encode(body), status, media_type="application/json")


def _limits(ladder: LadderStore) -> ArchiveLimits:
    """The archive limits of the ladder's settings."""
    submissions = ladder.config.submissions
    return ArchiveLimits(
        archive_mb=submissions.archive_mb,
        unpacked_mb=submissions.unpacked_mb,
        files=submissions.files,
    )


def _page(request: Request) -> int:
    """The request's `page` (from 1); 400 for anything else."""
    try:
        page = int(request.query_params.get("page", "1"))
    except ValueError:
        page = 0
    if page < 1:
        raise ApiError(400, "page is a whole number from 1")
    return page


def _pages(total: int) -> int:
    return max(1, math.ceil(total / PAGE))


def _token(request: Request) -> str | None:
    """The request's bearer token (`Authorization: Bearer TOKEN`), if it sends one."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def _author(ladder: LadderStore, request: Request) -> Author | Admin:
    """Who the request's bearer token names; 401 without one, or with one that names nobody
    (unknown, or revoked)."""
    token = _token(request)
    if token is None:
        raise ApiError(
            401, "this needs an author's token: send it as `Authorization: Bearer TOKEN`"
        )
    who = ladder.authenticate(token)
    if who is None:
        raise ApiError(
            401, "this token is not an author's (mistyped, or revoked): ask the organiser"
        )
    return who


async def _receive_archive(request: Request, intake: Intake) -> None:
    """Hand the form's `archive` field to `intake`, chunk by chunk, as the body streams in;
    400 for a body that is not a multipart form holding that field."""
    kind, options = parse_options_header(request.headers.get("content-type", ""))
    boundary = options.get(b"boundary")
    if kind != b"multipart/form-data" or not boundary:
        raise ApiError(
            400,
            f"an upload is a multipart form (multipart/form-data) with the bot's archive in "
            f"its field {ARCHIVE_FIELD!r}",
        )
    state: dict[str, Any] = {"field": None, "name": b"", "seen": False, "error": None}

    def on_header_field(data: bytes, start: int, end: int) -> None:
        state["header"] = state.get("header", b"") + data[start:end]

    def on_header_value(data: bytes, start: int, end: int) -> None:
        state["value"] = state.get("value", b"") + data[start:end]

    def on_header_end() -> None:
        if state.pop("header", b"").lower() == b"content-disposition":
            _, params = parse_options_header(state.get("value", b""))
            state["field"] = params.get(b"name", b"").decode("utf-8", "replace")
        state.pop("value", None)

    def on_part_begin() -> None:
        state["field"] = None

    def on_part_data(data: bytes, start: int, end: int) -> None:
        if state["field"] == ARCHIVE_FIELD and state["error"] is None:
            state["seen"] = True
            try:
                intake.write(bytes(data[start:end]))
            except IntakeError as exc:  # (raised again once the parser returns)
                state["error"] = exc

    parser = MultipartParser(
        boundary,
        {
            "on_part_begin": on_part_begin,
            "on_header_field": on_header_field,
            "on_header_value": on_header_value,
            "on_header_end": on_header_end,
            "on_part_data": on_part_data,
        },
    )
    async for chunk in request.stream():
        parser.write(chunk)
        if state["error"] is not None:
            raise state["error"]
    parser.finalize()
    if not state["seen"]:
        raise ApiError(400, f"the form has no field {ARCHIVE_FIELD!r} holding the bot's archive")


def _check_limits(ladder: LadderStore, author: Author) -> None:
    """429 past the submissions a day of the ladder's settings."""
    per_day = ladder.config.submissions.per_day
    if ladder.submissions_since(author, ladder.now() - DAY) >= per_day:
        raise ApiError(
            429,
            f"{author.name} has submitted {per_day} versions in the last 24 hours, the most "
            "this ladder takes: submit again later",
        )


class LiveTable:
    """The ladder's table kept live: the journal tallied once (`LiveStandings`), then each
    game as it is recorded (`add`), and the leaderboard refitted from the last fit only when
    games came since, in a thread, one refit at a time, its result shared by every request
    meanwhile. Its figures are `arena leaderboard DIR`'s (to the fit's tolerance, about
    1e-11 Elo), and each active version that has played says whether its place is settled
    (`matchmaking.settled` among the active versions, at the ladder's `[matchmaking]
    places`). Each refit is told to `events` (a `table` event)."""

    def __init__(self, ladder: LadderStore, events: Events | None = None) -> None:
        self.ladder = ladder
        self.events = events
        self.results = ladder.results()
        self.standings = LiveStandings()
        self.finished = self.results.finished(self.standings.add)
        self._pending: list[GameRecord] = []  # recorded since the last refit began
        self._board: Leaderboard | None = None
        self._lock = trio.Lock()
        self.arrived = trio.Event()  # set when a game is added, cleared by a refit
        # Whether something (the server's refitter) refits the table as games come: then a
        # request is answered with the last refit at once (`current`), never made to wait.
        self.kept = False

    def add(self, record: GameRecord) -> None:
        """A game just recorded (counted at the next refit, never while one runs)."""
        self._pending.append(record)
        self.arrived.set()

    @property
    def last(self) -> Leaderboard | None:
        """The table as last refitted (None before the first refit), without refitting."""
        return self._board

    async def current(self) -> Leaderboard:
        """The table for a request: while the table is `kept`, its last refit at once (at
        most one refit behind the games); otherwise refitted first if games came since."""
        if self.kept and self._board is not None:
            return self._board
        return await self.leaderboard()

    async def leaderboard(self) -> Leaderboard:
        """The table with every game added so far: refitted first if games came since."""
        async with self._lock:
            if self._board is None or self._pending:
                self.arrived = trio.Event()
                for record in self._pending:
                    self.standings.add(record)
                    self.finished[record.game] = tuple(record.ranks)
                self._pending = []
                self._board = board = await trio.to_thread.run_sync(self._fit)
                if self.events is not None:
                    self.events.publish(TableEvent(board.games, len(board.rows)))
            return self._board

    def _fit(self) -> Leaderboard:
        try:
            board = results_leaderboard(self.results, self.standings, self.finished)
        except np.linalg.LinAlgError:  # (a refit from the last fit gone wrong: from scratch)
            self.standings.restart()
            board = results_leaderboard(self.results, self.standings, self.finished)
        active = {v.label for v in self.ladder.active_versions()}
        playing = [row.bot for row in board.rows if row.games and row.bot in active]
        places = self.ladder.config.matchmaking.places or None
        marks = settled(self.standings.ratings(), places, among=playing) if playing else {}
        rows = [msgspec.structs.replace(row, settled=marks.get(row.bot)) for row in board.rows]
        return msgspec.structs.replace(board, rows=rows)


def make_app(
    ladder: LadderStore,
    on_submitted: Callable[[Version], Awaitable[None]] | None = None,
    table: LiveTable | None = None,
    *,
    events: Events | None = None,
    on_retired: Callable[[list[Version]], None] | None = None,
) -> Starlette:
    """The API of the ladder whose store is `ladder` (open for writing); `on_submitted` hears
    of each new version (validating) once it is stored, and `on_retired` of the versions a
    retirement retired; `table` is the live table the server feeds each game it records (by
    default one made here, of the journal as it is); `events` is the hub the event stream
    reads (by default one made here, which hears of uploads and retirements only)."""
    scratch = store_scratch(ladder.folder)
    hub = events if events is not None else Events()
    live = table if table is not None else LiveTable(ladder, hub)

    def found(request: Request) -> str:
        """The request's bot, by name; 404 if there is none."""
        name = str(request.path_params["bot"])
        if ladder.bot(name) is None:
            raise ApiError(404, f"no bot {name!r} on this ladder")
        return name

    def own(request: Request, bot: str, what: str) -> Author | Admin:
        """The request's author, who must own `bot` (or be the organiser): 401 without a
        token, 403 for another author, saying that `what` is the owner's alone."""
        who = _author(ladder, request)
        owner = ladder.bot(bot)
        if isinstance(who, Author) and (owner is None or owner.owner != who.name):
            raise ApiError(403, f"{what} of {bot} are its author's alone, and {who.name} is not")
        return who

    def reader(request: Request, bot: str) -> bool:
        """Whether the request comes from `bot`'s author or the organiser (a token that does
        not authenticate reads as anyone's)."""
        token = _token(request)
        who = None if token is None else ladder.authenticate(token)
        owner = ladder.bot(bot)
        return isinstance(who, Admin) or (
            who is not None and owner is not None and owner.owner == who.name
        )

    async def submit(request: Request) -> Response:
        who = _author(ladder, request)
        if isinstance(who, Admin):
            raise ApiError(403, "the admin token retires bots; a bot is submitted by its author")
        _check_limits(ladder, who)
        intake = Intake(scratch, _limits(ladder))
        try:
            await _receive_archive(request, intake)
            unpacked = await trio.to_thread.run_sync(intake.finish)
            name = unpacked.spec.name
            bot = ladder.bot(name)
            if bot is not None and bot.owner != who.name:  # (refused before it is stored)
                raise ApiError(403, str(not_owner(name, bot.owner)))
            active = ladder.active_bots(who)
            most = ladder.config.submissions.active_bots
            if bot is None and len(active) >= most:
                raise ApiError(
                    403,
                    f"{who.name} has {most} active bots, the most this ladder takes: retire one "
                    "first, or submit a new version of one of them",
                )
            stored = await trio.to_thread.run_sync(store, unpacked, ladder.folder)
        finally:
            intake.close()
        try:
            version, new = ladder.add_version(name, who, stored.digest)
        except NotOwner as exc:  # (taken meanwhile by another author's upload)
            raise ApiError(403, str(exc)) from None
        if new:
            hub.publish(changed(version))
            if on_submitted is not None:
                await on_submitted(version)
        return answer(Submitted(shown(version), new), 201 if new else 200)

    async def bot(request: Request) -> Response:
        name = found(request)
        owner = ladder.bot(name)
        assert owner is not None
        versions = sorted(ladder.versions(name), key=lambda v: -v.number)
        private = reader(request, name)

        def report(version: Version) -> str | None:
            if not private or version.report is None:
                return None
            path = ladder.folder / version.report
            return path.read_text("utf-8", "replace") if path.is_file() else None

        bodies = [shown(v, report(v)) for v in versions]
        return answer(BotBody(owner.name, owner.owner, bodies))

    async def retire(request: Request) -> Response:
        name = found(request)
        who = own(request, name, "retirements")
        by = "the organiser" if isinstance(who, Admin) else f"its author, {who.name}"
        retired = ladder.retire_bot(name, f"retired by {by}")
        for version in retired:
            hub.publish(changed(version))
        if on_retired is not None and retired:
            on_retired(retired)
        return answer(Retired(name, [shown(v) for v in retired]))

    async def logs(request: Request) -> Response:
        name = found(request)
        page = _page(request)
        own(request, name, "the logs")
        total = ladder.game_count(name)
        entries = ladder.games(name, limit=PAGE, skip=(page - 1) * PAGE)
        mine = {v.id: v.label for v in ladder.versions(name)}

        def read() -> list[LogBody]:
            out = []
            for entry in entries:
                record = ladder.read_game(entry.id)
                for seat, version in enumerate(entry.versions):
                    if version in mine:
                        out.append(
                            LogBody(
                                entry.id, entry.finished, mine[version], seat, record.stderr[seat]
                            )
                        )
            return out

        rows = await trio.to_thread.run_sync(read)
        return answer(LogsBody(name, rows, page, _pages(total), total))

    async def games(request: Request) -> Response:
        name = request.query_params.get("bot") or None
        page = _page(request)
        if name is not None and ladder.bot(name) is None:
            raise ApiError(404, f"no bot {name!r} on this ladder")
        total = ladder.game_count(name)
        entries = ladder.games(name, limit=PAGE, skip=(page - 1) * PAGE)
        # (the labels of this page's versions only: a query each, not every version's)
        labels = {v: ladder.version(v).label for e in entries for v in set(e.versions)}
        rows = [GameBody(e.id, e.finished, [labels[v] for v in e.versions]) for e in entries]
        return answer(GamesBody(rows, page, _pages(total), total))

    async def game(request: Request) -> Response:
        game_id = request.path_params["game"]
        try:
            record = await trio.to_thread.run_sync(ladder.read_game, game_id)
        except NotFound:
            raise ApiError(404, f"no game {game_id!r} on this ladder") from None
        # (what the bots wrote on stderr is their authors' alone: GET /api/bots/{bot}/logs)
        public = msgspec.structs.replace(record, stderr=[""] * len(record.stderr))
        return Response(msgspec.json.encode(public), media_type="application/json")

    async def leaderboard(request: Request) -> Response:
        board = await live.current()
        return Response(msgspec.json.encode(board), media_type="application/json")

    async def stream(request: Request) -> Response:
        return hub.response()

    async def failed(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return answer(ErrorBody(exc.message), exc.status)

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, IntakeError)
        return answer(ErrorBody(str(exc)), exc.status)

    return Starlette(
        routes=[
            Route("/api/leaderboard", leaderboard),
            Route("/api/events", stream),
            Route("/api/bots", submit, methods=["POST"]),
            Route("/api/bots/{bot}", bot),
            Route("/api/bots/{bot}/logs", logs),
            Route("/api/bots/{bot}/retire", retire, methods=["POST"]),
            Route("/api/games", games),
            Route("/api/games/{game}", game),
        ],
        exception_handlers={ApiError: failed, IntakeError: refused},
    )
