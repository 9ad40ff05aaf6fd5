"""The process: the supervising parent, its worker processes and their thread pools.

- ``server``: a worker's gRPC server and HTTP door, the supervisor that starts and stops workers;
- ``pool``: a worker's thread pool, which runs what a call leaves behind after its answer.
"""
