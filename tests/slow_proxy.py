"""A TCP proxy on a free loopback port that can hold back the replies of the server behind it:
a slow network, or a slow store, as a client sees one. Requests go through at once (the server
does the work); while ``reply_delay`` is set, each reply waits that long before it goes on."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import suppress

HOST = "127.0.0.1"
CHUNK_BYTES = 65_536


class SlowProxy:
    """Forwards connections on its own port to ``HOST:upstream_port``."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.reply_delay = 0.0
        self._listener = socket.create_server((HOST, 0))
        self.port: int = self._listener.getsockname()[1]
        self._sockets: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self._closed = False
        self._start(self._accept)

    @property
    def url(self) -> str:
        """The proxy's address as a redis URL."""
        return f"redis://{HOST}:{self.port}/0"

    def close(self) -> None:
        """Stop accepting, close every connection, and wait for the proxy's threads."""
        self._closed = True
        with suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept
        self._listener.close()
        for each in list(self._sockets):
            with suppress(OSError):
                each.shutdown(socket.SHUT_RDWR)
            each.close()
        for thread in list(self._threads):
            thread.join()

    def _start(self, target: object, *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)  # type: ignore[arg-type]
        self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection((HOST, self.upstream_port))
            self._sockets += [client, upstream]
            self._start(self._pump, client, upstream, False)
            self._start(self._pump, upstream, client, True)

    def _pump(self, source: socket.socket, target: socket.socket, replies: bool) -> None:
        """Copy ``source`` to ``target`` until either closes; replies wait ``reply_delay``."""
        try:
            while data := source.recv(CHUNK_BYTES):
                if replies and self.reply_delay:
                    time.sleep(self.reply_delay)  # the slowness under test, not a wait
                target.sendall(data)
        except OSError:
            pass
        finally:
            for each in (source, target):
                with suppress(OSError):
                    each.shutdown(socket.SHUT_RDWR)
