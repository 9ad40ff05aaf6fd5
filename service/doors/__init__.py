"""The doors: how requests come off the network and answers go back.

- ``grpc_door``: every method as a gRPC handler on the shared call path;
- ``reflection``: gRPC server reflection, on threads of its own;
- ``http_door``: the HTTP port (Connect, gRPC-Web, gRPC over HTTP, ``/healthz``, the playground);
- ``http_guard``: what the HTTP door bounds and refuses before the Connect library reads a body;
- ``connect``: the Connect, gRPC-Web and JSON codecs of the HTTP door, on the shared call path.

A door adds transport, never rules: both call ``service.calls.call_path`` with the request's
bytes and give the same answers, errors, logs and metrics.
"""
