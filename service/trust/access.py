"""Who may do what when seat tokens are required: one place decides, for every RPC, in one order.

A call that carries a state says what it asks of that game (``Asked``): the seat it acts for,
the bot move it asks, the viewer whose view or events it gets. ``Access`` answers in this
order, each step refusing with its own reason, none looking at anything of the state but its
seating:

1. ``admit``, before the state is opened: a token is sent (``SEAT_TOKEN_MISSING``) and is this
   server's (``SEAT_TOKEN_INVALID``);
2. ``permit``, once the state's seating is known and before the engine is called:

   a. the token is one of this game's (``SEAT_NOT_PERMITTED``);
   b. the seat acted for is the token's own (``SEAT_NOT_PERMITTED``), or, for a bot move, a bot
      seat of the game (``NOT_A_BOT_SEAT``) played with the game's policy, seed and budget
      (``BOT_SETTINGS_NOT_PERMITTED``);
   c. the viewer is the token's seat or a spectator (``SEAT_NOT_PERMITTED``);
   d. a suggestion asks for a policy the server gives its players (the setting
      ``suggest_policies``, ``service.config``: ``SUGGEST_POLICY_NOT_PERMITTED``), so that no
      seat has the strongest bot think for it against other people.

``NewGame`` carries no state: with tokens required its one rule is that the server picks the
seed (``SEED_NOT_PERMITTED``). A call that names a hosted table instead of carrying a state is
asked the same, of the table's stored state, after ``admit`` and before the state is opened.
``RULES`` says what each RPC may do, in words; a test walks the service's descriptor and checks
every RPC against it with a hostile request of each kind.
Every refusal says what to send instead, never anything of the state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.notation import seat_text
from service.trust.seat_tokens import (
    HEADER,
    SeatNotPermittedError,
    SeatToken,
    SeatTokenMissingError,
    SeatTokens,
)
from service.trust.seats import Seating

#: What a seat token lets each RPC do; every RPC of the service is here (a test checks).
RULES: dict[str, str] = {
    "ListGames": "anyone, with or without a token",
    "NewGame": "anyone; the server picks the seed",
    "ApplyAction": "the token's own seat's action, or a bot seat's move with the game's settings",
    "ValidateAction": "the token's own seat's action",
    "ListLegalActions": "the token's own seat's actions",
    "GetView": "the token's own seat's view, or a spectator's",
    "SuggestAction": "a suggestion for the token's own seat, by a policy the server's "
    "suggest_policies list",
    "ReplayGame": "the record of the token's game, watched as its seat or a spectator",
    "WatchGame": "the token's hosted table, watched as its own seat or a spectator",
    "GetRecord": "the record of the token's hosted table, once its game is over",
}


@dataclass(frozen=True, slots=True)
class Asked:
    """What a call asks of a game, as far as who may ask goes."""

    doing: str  # what it does, for a refusal's message: "list the legal actions"
    acts_as: int | None = None  # the seat whose action it validates, applies, lists or suggests
    bot: Any = None  # the ``BotMove`` it asks for, instead of an action
    views_as: int | None = None  # the seat whose view or events it gets; None: a spectator's
    suggests: str | None = None  # the bot policy a suggestion is asked of


def _seat_words(seat: int | None) -> str:
    return "a spectator's" if seat is None else f"{seat_text(seat)}'s"


class Access:
    """The checks of a server that requires seat tokens (see the module's order); its players
    may ask ``SuggestAction`` for the ``suggest_policies`` only."""

    def __init__(self, tokens: SeatTokens, suggest_policies: frozenset[str]) -> None:
        self.tokens = tokens
        self.suggest_policies = suggest_policies

    def admit(self, text: str) -> SeatToken:
        """Step 1: what the seat token ``text`` grants; raises ``SeatTokenMissingError`` or
        ``SeatTokenInvalidError``."""
        if not text:
            raise SeatTokenMissingError
        return self.tokens.open(text)

    @staticmethod
    def holder(granted: SeatToken, seating: Seating) -> int | None:
        """Step 2a: the seat (None: a spectator) that ``granted`` holds in the game of
        ``seating``; raises ``SeatNotPermittedError`` for a token of another game."""
        if granted.match_id != seating.match_id:
            raise SeatNotPermittedError(
                f"this seat token is for another game: send, in {HEADER}, the token NewGame "
                "returned with this game"
            )
        return granted.seat

    def permit(self, granted: SeatToken, seating: Seating, asked: Asked) -> int | None:
        """Steps 2a to 2d: refuse what ``asked`` asks unless the token may; returns the seat the
        token holds (None: a spectator)."""
        holder = self.holder(granted, seating)
        if asked.bot is not None:
            self.bot_move(seating, asked.bot)
        elif asked.acts_as is not None and asked.acts_as != holder:
            raise SeatNotPermittedError(
                f"this seat token is {_seat_words(holder)}: it may {asked.doing} of its own "
                "seat only"
            )
        if asked.views_as is not None and asked.views_as != holder:
            raise SeatNotPermittedError(
                f"this seat token is {_seat_words(holder)}: ask for its own view, or a spectator's"
            )
        if asked.suggests is not None and asked.suggests not in self.suggest_policies:
            given = ", ".join(sorted(self.suggest_policies)) or "none"
            raise SeatNotPermittedError(
                f"this server suggests moves to its players with these policies only: {given} "
                f"(not {asked.suggests})",
                "SUGGEST_POLICY_NOT_PERMITTED",
            )
        return holder

    @staticmethod
    def bot_move(seating: Seating, bot: Any) -> str:
        """Step 2b for a bot move: the policy of ``bot`` (a ``BotMove``), which must be a bot
        seat of the game's, with the game's policy, seed and search budget (all left unset)."""
        policy = seating.bot_policies.get(bot.seat)
        if policy is None:
            raise SeatNotPermittedError(
                f"{seat_text(bot.seat)} is not a bot seat of this game: only the seats NewGame "
                "gave to bots take bot moves; send your own seat's action instead",
                "NOT_A_BOT_SEAT",
            )
        asked_budget = bot.search_iterations or bot.search_time_limit_ms
        if (bot.policy and bot.policy != policy) or bot.seed or asked_budget:
            raise SeatNotPermittedError(
                "a bot of this game plays the game's policy, seed and search budget: leave "
                "bot.policy, bot.seed, bot.search_iterations and bot.search_time_limit_ms unset",
                "BOT_SETTINGS_NOT_PERMITTED",
            )
        return policy

    @staticmethod
    def no_seed(seed: int) -> None:
        """``NewGame``'s rule: refuse a seed chosen by the caller, which would tell every
        hidden card."""
        if seed:
            raise SeatNotPermittedError(
                "this server requires seat tokens and picks every seed itself (a seed tells "
                "every hidden card): leave seed unset",
                "SEED_NOT_PERMITTED",
            )
