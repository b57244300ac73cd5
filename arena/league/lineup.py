"""The order games start in: never two games of one deal at the same time.

Every deal is played again with the bots in other seats (a tournament's rotations, a match's
two orders), and a deal file may give several tables the same deal. A bot's copies in two such
games hold between them every hand of the deal, and games at the same time can talk through
whatever the machine shares (file locks on the system's files, the processor's load), so
each copy could learn what its opponents hold. A `Lineup` hands out the next task whose deal
is not in flight, looking ahead in the lazily drawn stream for one when the next task's deal
is, and holds the others back until their deal's game ends. Every executor takes its tasks from
one (`GamePool` for the games played in process, `DaskExecutor` for worker processes and
clusters), so the rule holds wherever games are played.

The tasks of a tournament or a match are a list or a generator, drawn until it ends. A ladder's
games are made as they are wanted, for as long as it runs: a `Feed` is the stream of such a
run, which may have no task now and more later. A lineup stops drawing a feed that has none
now (it is not ended), and an executor then waits until the feed is poked (a bot joined) or
one of its games ends, and draws again; the run ends once the feed is closed and its games in
flight have ended.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class Later(Exception):
    """A feed has no task now, and may have more later (`Feed.__next__`)."""


class Feed(Generic[T]):
    """The tasks of a run that lasts until it is closed (a ladder's): `make` is asked for the
    next task each time the executor can start a game, and returns None when it can make
    none now (too few bots, say). `poke` tells the executor that `make` may have one now (a
    bot joined); `close` ends the run once its games in flight have ended. Both are called
    from the run's trio loop."""

    def __init__(self, make: Callable[[], T | None]) -> None:
        self._make = make
        self.closed = False
        self._wakers: list[Callable[[], None]] = []

    def __iter__(self) -> Iterator[T]:
        return self

    def __next__(self) -> T:
        if self.closed:
            raise StopIteration
        task = self._make()
        if task is None:
            raise Later
        return task

    def poke(self) -> None:
        """`make` may have a task now: the executor draws again."""
        for wake in list(self._wakers):
            wake()

    def close(self) -> None:
        """No more tasks (`make` is asked no more: what it would have made is not played):
        the run ends once its games in flight have ended."""
        self.closed = True
        self.poke()

    def waking(self, wake: Callable[[], None]) -> Callable[[], None]:
        """Have `wake` called at each `poke` (and at `close`) from now on; the function that
        stops it."""
        self._wakers.append(wake)
        return lambda: self._wakers.remove(wake)


class Lineup(Generic[T]):
    """Hands out `tasks` (drawn lazily, each once) so that no two whose `deal` is the same are
    in flight at once; a task whose deal is None shares it with no other. A task is in flight
    from `take` until `ended`, its deal too while it waits to be played again (`again`).

    Tasks drawn while their deal was in flight wait, in the order they were drawn, and go first
    once it is free; the stream is drawn only when no waiting task can go, and no further than
    the first task that can. `wanted`, when given, is asked of a waiting task (and of one handed
    back) when its turn comes: one no longer wanted (a match past its verdict) is dropped,
    never handed out."""

    def __init__(
        self,
        tasks: Iterable[T],
        deal: Callable[[T], Hashable | None],
        wanted: Callable[[T], bool] | None = None,
    ) -> None:
        self._stream = iter(tasks)
        self._deal = deal
        self._wanted = wanted
        self._drawn = 0  # tasks drawn so far: the order waiting tasks go in
        self._busy: set[Hashable] = set()  # the deals in flight
        self._waiting: dict[Hashable, deque[tuple[int, T]]] = {}  # by deal, as drawn
        self._free: list[tuple[int, Hashable]] = []  # heap: (first waiting task's draw, deal)
        self._again: deque[T] = deque()  # handed back, their deals still in flight
        self._dry = False  # the stream has ended

    def take(self) -> T | None:
        """The next task to play, now in flight; None when none can go now: every task left
        waits for a deal in flight (or none is left: `finished`)."""
        while self._again:
            task = self._again.popleft()
            if self._wanted is None or self._wanted(task):
                return task
            self._release(self._deal(task))
        while self._free:
            _, deal = heapq.heappop(self._free)
            waiting = self._waiting[deal]
            _, task = waiting.popleft()
            if not waiting:
                del self._waiting[deal]
            if self._wanted is not None and not self._wanted(task):
                self._release(deal)  # its next waiting task, if any, may go instead
                continue
            self._busy.add(deal)
            return task
        while not self._dry:
            try:
                task = next(self._stream)
            except StopIteration:
                self._dry = True
                break
            except Later:  # (a feed with no task now: drawn again once poked)
                break
            self._drawn += 1
            deal = self._deal(task)
            if deal is None:
                return task
            if deal not in self._busy:
                self._busy.add(deal)
                return task
            self._waiting.setdefault(deal, deque()).append((self._drawn, task))
        return None

    def again(self, task: T) -> None:
        """Hand back a task in flight that could not be played (the machine lacked the means
        to start it): it goes first, and its deal stays in flight until it has been played."""
        self._again.append(task)

    def ended(self, task: T) -> None:
        """A task in flight is over (played, or given up): its deal is free again."""
        self._release(self._deal(task))

    def _release(self, deal: Hashable | None) -> None:
        if deal is None:
            return
        self._busy.discard(deal)
        waiting = self._waiting.get(deal)
        if waiting:
            heapq.heappush(self._free, (waiting[0][0], deal))

    @property
    def finished(self) -> bool:
        """Whether every task has been handed out (or dropped): none is left to draw, none
        waits for its deal and none was handed back."""
        return self._dry and not self._waiting and not self._again
