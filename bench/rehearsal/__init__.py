"""A rehearsal of production on one machine: ``python -m bench.rehearsal`` (``make rehearsal``)."""
