"""``python -m service`` (or ``ordo-server``): start the server with settings from flags and env."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from service import config
from service.process.supervisor import serve


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the settings and serve until SIGTERM."""
    sys.exit(serve(config.load(argv)))


if __name__ == "__main__":
    main()
