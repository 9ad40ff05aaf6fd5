"""Server reflection on threads of its own, so that its streams never hold a call's thread.

A reflection stream (``grpcurl``, ``buf curl``, Postman) holds a thread for as long as it stays
open, waiting for the client's next request: on the worker's call pool a handful of idle streams
would leave no thread for the calls and the health probes. gRPC runs a method on the pool its
handler names (``experimental_thread_pool``): reflection gets one of its own, of
``MAX_REFLECTION_STREAMS`` threads and one more, and a stream opened while that many are open
is refused at once with RESOURCE_EXHAUSTED on the spare thread. Health ``Watch`` streams hold no
thread at all (grpc_health's non-blocking ``Watch``) and need nothing of the kind.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent import futures
from types import SimpleNamespace
from typing import Any

import grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2_grpc

MAX_REFLECTION_STREAMS = 8  # reflection streams open at once per worker


class ReflectionStreams:
    """The reflection method's behaviour: the library's, counted and capped, on its own pool."""

    def __init__(self, behaviour: Callable[..., Any], most: int) -> None:
        self._behaviour = behaviour
        self._most = most
        self._open = 0
        self._lock = threading.Lock()
        # Read by gRPC: the pool it runs this method on (it must be a ThreadPoolExecutor).
        self.experimental_thread_pool = futures.ThreadPoolExecutor(
            most + 1, thread_name_prefix="reflection"
        )

    def __call__(self, requests: Iterator[Any], context: grpc.ServicerContext) -> Iterator[Any]:
        with self._lock:
            full = self._open >= self._most
            if not full:
                self._open += 1
        if full:
            context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"{self._most} reflection streams are open on this worker: try again later",
            )
        return self._stream(requests, context)

    def _stream(self, requests: Iterator[Any], context: grpc.ServicerContext) -> Iterator[Any]:
        try:
            yield from self._behaviour(requests, context)
        finally:
            with self._lock:
                self._open -= 1


def enable_reflection(server: grpc.Server, service_names: Sequence[str]) -> None:
    """Serve reflection of ``service_names`` on ``server``, on a pool of its own."""
    servicer = reflection.ReflectionServicer(service_names)
    behaviour = ReflectionStreams(servicer.ServerReflectionInfo, MAX_REFLECTION_STREAMS)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(
        SimpleNamespace(ServerReflectionInfo=behaviour), server
    )
