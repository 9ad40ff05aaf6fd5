"""A game's options as the environments take them: a mapping of option names to values, with
the names and values ``ListGames`` (and ``ordo games``) shows, e.g. ``{"threshold": 33,
"too_low_rule": "TAKE_CHEAPEST_ROW"}``; the options left out keep their defaults.

The same mapping becomes the engine's options for an environment in this process and the
``GameOptions`` message of ``NewGame`` for one over gRPC, so both deal the same game.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from enum import Enum
from typing import Any

from engines.base import GameEngine
from ordo.cli import UsageError, set_option
from ordo.client import game_options
from ordo.v1 import common_pb2 as common

OptionValue = str | int | bool
Options = Mapping[str, OptionValue]
TRUE, FALSE = "true", "false"


def option_text(value: OptionValue) -> str:
    """An option's value as ``ListGames`` writes it: flags as ``true`` and ``false``."""
    if isinstance(value, bool):
        return TRUE if value else FALSE
    return str(value)


def check_names(engine: GameEngine[Any, Any, Any, Any], options: Options) -> None:
    """Raise ``ValueError`` for a name that is no option of the game, or that the environments
    do not take (custom question cards: the built-in bank only)."""
    defaults = engine.default_options()
    names = {
        option.name
        for option in engine.info.options
        if not isinstance(getattr(defaults, option.name), tuple)
    }
    for name in options:
        if name not in names:
            raise ValueError(
                f"{engine.info.id} has no option {name!r} for the environments; "
                f"choose from {', '.join(sorted(names))}"
            )


def engine_options(engine: GameEngine[Any, Any, Any, Any], options: Options) -> Any:
    """The engine's options of ``options`` (the game's defaults for the rest); raises
    ``ValueError`` for an unknown name or a value that is not of the option's kind. The
    engine itself refuses values out of range when it deals."""
    check_names(engine, options)
    defaults = engine.default_options()
    changes: dict[str, Any] = {}
    for name, value in options.items():
        current = getattr(defaults, name)
        text = option_text(value)
        try:
            if isinstance(current, Enum):
                changes[name] = type(current)[text.upper()]
            elif isinstance(current, bool):
                changes[name] = {TRUE: True, FALSE: False}[text.lower()]
            else:
                changes[name] = int(text)
        except (KeyError, ValueError):
            raise ValueError(f"option {name}: {value!r} is not a value it takes") from None
    return dataclasses.replace(defaults, **changes)


def wire_options(engine: GameEngine[Any, Any, Any, Any], options: Options) -> common.GameOptions:
    """The ``GameOptions`` of ``options`` for ``NewGame`` (unset fields: the game's defaults);
    raises ``ValueError`` as ``engine_options`` does."""
    check_names(engine, options)
    message = game_options(engine.info.id)
    for name, value in options.items():
        try:
            set_option(getattr(message, engine.info.id), f"{name}={option_text(value)}")
        except UsageError as error:
            raise ValueError(str(error)) from None
    return message
