"""Ordo's Python client: ``Client`` calls a GameEngineService (``AsyncClient`` from asyncio),
``OrdoError`` is their one error; ``sealed_info`` tells whether a state is sealed and, when it is,
its game and revision.

The generated messages and stubs of the ``ordo.v1`` contract live in ``ordo.v1``; the command-line
client is ``ordo.cli`` (the ``ordo`` command).
"""

from ordo.aio import AsyncClient
from ordo.client import Client, OrdoError
from ordo.sealed import SealedInfo, sealed_info

__all__ = ["AsyncClient", "Client", "OrdoError", "SealedInfo", "sealed_info"]
