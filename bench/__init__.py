"""Ordo's benchmarks: engine speed in-process and RPC throughput against a bare gRPC baseline.

Run them all with ``make bench`` (``python -m bench``). They print their results, assert nothing
and are never collected as tests.
"""
