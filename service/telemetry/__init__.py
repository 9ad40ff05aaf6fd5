"""Telemetry: what the server tells its operators.

- ``observe``: the record of one call and the observers that hear of it;
- ``logs``: structured logs and the access log;
- ``metrics`` and ``metric_values``: Prometheus metrics, exact across worker processes;
- ``build``: the versions the server runs.
"""
