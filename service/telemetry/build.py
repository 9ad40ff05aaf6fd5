"""What is running: Ordo's version, and the versions of what it runs on.

The server logs them as it starts, ``ordo-server --version`` prints Ordo's, and ``/metrics``
exports them all as the labels of ``ordo_build_info`` (always 1), so a dashboard or an alert can
tell which version each replica runs while a rollout is under way.
"""

from __future__ import annotations

import platform
from importlib import metadata

DISTRIBUTION = "ordo-server"
UNKNOWN = "unknown"  # the version of a distribution that is not installed (code run in place)


def version(distribution: str = DISTRIBUTION) -> str:
    """The installed version of ``distribution``, Ordo's by default."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return UNKNOWN


def build_info() -> dict[str, str]:
    """Ordo's version and those of Python, grpcio and protobuf, by label name."""
    return {
        "version": version(),
        "python": platform.python_version(),
        "grpcio": version("grpcio"),
        "protobuf": version("protobuf"),
    }
