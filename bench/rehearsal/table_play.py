"""The rehearsal's hosted tables: a caller deals a table (two seats), a watcher per seat follows
it with ``WatchGame`` through the balancer, and the caller plays every move by the table's id
until the game ends. At the end each watcher must have seen every revision from its first to the
last, and the table's record (``GetRecord``) must hold exactly the moves the caller saw applied:
fewer is a move lost, more a move applied twice."""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from ordo import Client, OrdoError

if TYPE_CHECKING:
    from bench.rehearsal.driver import Driver

WATCH_JOIN_SECONDS = 60.0  # how long a finished table's watchers may take to see its end
PAUSE_SECONDS = 0.2  # between two watches of a table, when one was cut and not taken up again
# The codes a watch is taken up again after, as the clients' own watches do (a stream cut on its
# way, a server draining or a store out of reach), and the balancer's idle-stream timeout.
WATCH_AGAIN = frozenset({"UNAVAILABLE", "CANCELLED", "INTERNAL", "UNKNOWN", "DEADLINE_EXCEEDED"})


@dataclass
class Watcher:
    """One seat's device following a table: the revisions it saw, in order."""

    target: str
    table_id: str
    token: str
    revisions: list[int] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.client = Client(self.target, timeout=30)
        self.thread = threading.Thread(target=self.watch, daemon=True)
        self.thread.start()

    def watch(self) -> None:
        """Follow the table until its game ends (or the caller stops), watching again from the
        last revision seen whenever the stream is cut."""
        while not self.done.is_set():
            last = self.revisions[-1] if self.revisions else None
            try:
                for message in self.client.watch_game(
                    self.table_id, after_revision=last, seat_token=self.token
                ):
                    self.revisions.append(message.revision)
                    if message.status.finished:
                        return
                return
            except OrdoError as error:
                if self.done.is_set():
                    return
                self.failures.append(error.reason or error.code.name)
                if error.code.name not in WATCH_AGAIN:
                    return
            time.sleep(PAUSE_SECONDS)

    def stop(self) -> None:
        """Stop watching (closing the client cuts the stream) and wait for the thread."""
        self.done.set()
        self.client.close()
        self.thread.join(timeout=WATCH_JOIN_SECONDS)

    def missed(self, final: int | None) -> bool:
        """Whether it missed a revision between its first and ``final`` (between its first and
        its last when ``final`` is None: a table left before its end)."""
        if not self.revisions:
            return final is not None
        seen = sorted(set(self.revisions))
        return seen != list(range(seen[0], (seen[-1] if final is None else final) + 1))


def play_table(driver: Driver, client: Client, rng: random.Random, game: str, seats: int) -> None:
    """Deal a hosted table of ``game``, watch it from every seat, play it to its end."""
    dealt = driver.call(partial(client.new_game, game, seats, host=True))
    if isinstance(dealt, OrdoError):
        return
    table, tokens = dealt.table_id, list(dealt.seat_tokens)
    watchers = [Watcher(driver.target, table, token) for token in tokens]
    status, revision, moves = dealt.status, 0, 0
    while not status.finished and not driver.stopping.is_set():
        seat = status.seats_to_act[0]
        listed = driver.call(
            partial(client.list_legal_actions, table, seat, seat_token=tokens[seat])
        )
        if isinstance(listed, OrdoError):
            break
        action = listed.actions[rng.randrange(len(listed.actions))]
        applied = driver.call(
            partial(
                client.apply_action,
                table,
                action,
                table_revision=revision,
                seat_token=tokens[seat],
            )
        )
        if isinstance(applied, OrdoError):
            break
        moves += 1
        driver.count_move(skipped=applied.table_revision != revision + 1)
        status, revision = applied.status, applied.table_revision
    if status.finished:
        for watcher in watchers:
            watcher.thread.join(timeout=WATCH_JOIN_SECONDS)
    for watcher in watchers:
        watcher.stop()
    recorded = None
    if status.finished:
        record = driver.call(partial(client.get_record, table, seat_token=tokens[0]))
        recorded = None if isinstance(record, OrdoError) else len(record.record.moves)
    driver.count_table(
        moves=moves,
        recorded=recorded,
        missed=sum(watcher.missed(revision if status.finished else None) for watcher in watchers),
        watchers=len(watchers),
        watch_failures=[name for watcher in watchers for name in watcher.failures],
    )
