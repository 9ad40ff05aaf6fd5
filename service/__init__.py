"""Ordo's server: the wire around the engines, in rooms.

- ``process``: the supervising parent, the worker processes and their thread pools;
- ``doors``: gRPC and HTTP (Connect, gRPC-Web, JSON), one call path behind both;
- ``calls``: the call path and the servicer (decode, engine, encode), replay, the caches;
- ``trust``: sealed states, seat tokens, seating, the revision fence;
- ``tables``: the table store of hosted games, and the watchers of a worker;
- ``codecs``: one codec per game, and the protocol-buffers framing;
- ``telemetry``: the call record, logs, metrics, the build;
- ``config``: every setting, in one place; ``errors``: the one table of status codes.

Each layer imports only those below it, in this order: process, doors, calls, errors and
config, trust and codecs and tables, telemetry (``[tool.importlinter]`` in ``pyproject.toml``).
"""
