"""The refusals of hosted tables, each with its stable reason (``service.errors`` gives each its
status code)."""

from __future__ import annotations

from engines.errors import RulesError


class HostingNotConfiguredError(RulesError):
    """A call about a hosted table to a server without a table store."""

    default_reason = "HOSTING_NOT_CONFIGURED"

    def __init__(self) -> None:
        super().__init__(
            "this server hosts no tables (it has no table store): send the game's state instead "
            "of a table id, or ask a server started with --table-store"
        )


class TableNotFoundError(RulesError):
    """A table id the store does not hold: never made, or expired."""

    default_reason = "TABLE_NOT_FOUND"

    def __init__(self) -> None:
        super().__init__(
            "no hosted table has this id: it was never made, or it expired after its last move"
        )


class TableStoreUnavailableError(RulesError):
    """The table store did not answer: nothing was applied; safe to send again."""

    default_reason = "TABLE_STORE_UNAVAILABLE"

    def __init__(self) -> None:
        super().__init__("the server cannot reach its table store: try again shortly")


class TableBusyError(RulesError):
    """Moves kept landing on the table while this one was applied: nothing was applied; safe
    to send again."""

    default_reason = "TABLE_BUSY"

    def __init__(self) -> None:
        super().__init__("the table moved on too often while this move was applied: send it again")


class TableLimitError(RulesError):
    """A bound of the store or of the worker is reached; the reason names which (each
    refusal gives its own)."""


class GameNotFinishedError(RulesError):
    """A record asked for while its game goes on."""

    default_reason = "GAME_NOT_FINISHED"

    def __init__(self) -> None:
        super().__init__(
            "the record of a game in progress holds every seat's moves, some of them not shown "
            "yet: ask for it once the game is over (WatchGame shows what your seat may see now)"
        )


class ServerDrainingError(RulesError):
    """The server stops: its watchers watch again, from their last revision, on another."""

    default_reason = "SERVER_DRAINING"

    def __init__(self) -> None:
        super().__init__(
            "this server is stopping: watch again from the last revision seen (another server "
            "answers)"
        )
