"""A worker's readiness: whether it can serve every call, which a server with a revision store
cannot while the store is out of reach (``ApplyAction`` refuses every move then).

The worker checks its store as it starts and then every ``CHECK_SECONDS``. While the store does
not answer, the service's gRPC health (``ordo.v1.GameEngineService``, the readiness probe's) and
``/readyz`` say NOT_SERVING, so that load balancers send calls to the replicas that can serve
them; the server's overall health (``""``, the liveness probe's) and ``/healthz`` stay SERVING:
a restart would not bring the store back. Each change is logged, and
``ordo_revision_store_up`` follows it (the alert ``OrdoRevisionStoreErrors`` reads it).
"""

from __future__ import annotations

import threading
from typing import Any

import structlog
from grpc_health.v1 import health, health_pb2

from service.calls.call_path import SERVICE_NAME
from service.doors.http_door import Health
from service.trust.revision_fence import (
    RevisionFence,
    RevisionStoreUnavailableError,
    store_address,
)

CHECK_SECONDS = 2.0  # how often a worker looks whether its revision store answers

log = structlog.get_logger("ordo.server")


class StoreWatch:
    """Keeps a worker's readiness in step with its revision store (see the module)."""

    def __init__(
        self,
        fence: RevisionFence,
        health_servicer: health.HealthServicer,
        door: Health | None,
        worker: int,
        reached: Any,
    ) -> None:
        self.fence = fence
        self.health_servicer = health_servicer
        self.door = door
        self.worker = worker
        self.reached = reached  # told the store's address and the outcome of each check
        self.ready: bool | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="store-watch", daemon=True)

    def check(self) -> bool:
        """Check the store once, and make the worker ready or not accordingly."""
        try:
            self.fence.check()
            ready = True
        except RevisionStoreUnavailableError:
            ready = False
        if ready != self.ready:
            status = health_pb2.HealthCheckResponse.SERVING
            if not ready:
                status = health_pb2.HealthCheckResponse.NOT_SERVING
            # The HTTP door first: whoever sees the gRPC health change finds the door agreeing.
            if self.door is not None:
                self.door.ready = ready
            self.health_servicer.set(SERVICE_NAME, status)
            address = store_address(self.fence.url)
            if ready and self.ready is not None:
                log.info("revision store reached again", worker=self.worker, store=address)
            elif not ready:
                log.warning(
                    "revision store out of reach: not ready, moves refused",
                    worker=self.worker,
                    store=address,
                )
            self.ready = ready
        self.reached(store_address(self.fence.url), ready)
        return ready

    def start(self) -> None:
        """Check every ``CHECK_SECONDS`` until ``stop``."""
        self._thread.start()

    def stop(self) -> None:
        """Stop checking (the worker drains: its health says NOT_SERVING for good)."""
        self._stop.set()

    def _watch(self) -> None:
        while not self._stop.wait(CHECK_SECONDS):
            self.check()
