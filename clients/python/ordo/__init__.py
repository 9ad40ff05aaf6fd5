"""Ordo's Python client: ``Client`` calls a GameEngineService (``AsyncClient`` from asyncio),
``OrdoError`` is their one error; ``sealed_info`` tells whether a state is sealed and, when it is,
its game and revision.

The generated messages and stubs of the ``ordo.v1`` contract live in ``ordo.v1``; the command-line
client is ``ordo.cli`` (the ``ordo`` command).

The three names are imported on first use: a program that needs only the generated messages
(the server does) does not pay for the clients, nor for asyncio.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ordo.aio import AsyncClient
    from ordo.client import Client, OrdoError
    from ordo.sealed import SealedInfo, sealed_info

__all__ = ["AsyncClient", "Client", "OrdoError", "SealedInfo", "sealed_info"]

_MODULES = {
    "AsyncClient": "ordo.aio",
    "Client": "ordo.client",
    "OrdoError": "ordo.client",
    "SealedInfo": "ordo.sealed",
    "sealed_info": "ordo.sealed",
}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
