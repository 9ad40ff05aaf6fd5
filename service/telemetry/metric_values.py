"""Prometheus multiprocess values that record many samples under one lock, without a syscall.

prometheus-client keeps every sample of a metric child (a counter's ``_total``, a histogram's
``_sum`` and each of its buckets) in a value object made by ``prometheus_client.values.ValueClass``.
Its multiprocess value takes a lock, asks the kernel for the process id and packs a record into
the process's file on every update. ``MappedValue`` keeps the same samples in the same files,
made through prometheus-client's own ``MmapedDict`` and ``mmap_key``, so that
``MultiProcessCollector`` reads them unchanged, but:

- an update adds to the sample's double in place, through a view of the mapped file as doubles;
- the process id is read at import, not per update; a fork is noted by ``os.register_at_fork``
  and the child's first update moves every sample to files of the child's own id, as
  prometheus-client moves them;
- ``Batch`` applies a fixed set of counter increments and histogram observations under one
  acquisition of the lock.

A sample's double is the only copy of its value: it must have one writer, so ``MappedValue`` has
to be the value class of every metric of the process (installed before the first metric child
exists). It relies on internals of prometheus-client: ``MmapedDict``'s mapping ``_m`` and
``_positions`` (the offset of each key's value in the file), a counter child's ``_value``, a
histogram child's ``_sum``, ``_buckets`` and ``_upper_bounds``.
tests/service/test_metric_values.py compares what both write, sample for sample;
tests/service/test_newest_prometheus_client.py runs it against the newest release.
"""

from __future__ import annotations

import os
import threading
import weakref
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from typing import Any

from prometheus_client import Counter, Histogram
from prometheus_client.mmap_dict import MmapedDict, mmap_key

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
DOUBLE_BYTES = 8  # a sample's value and its timestamp are doubles at 8-byte aligned offsets

# One lock for every sample of the process, as prometheus-client's: an update is a read, an
# addition and a write, which threads must not interleave.
_lock = threading.Lock()


class _File:
    """One file of this process (one per metric type), viewed as an array of doubles."""

    __slots__ = ("_data", "_mapping", "_views", "doubles")

    def __init__(self, path: str) -> None:
        self._data = MmapedDict(path)  # type: ignore[no-untyped-call]
        self._views: list[memoryview[float]] = []
        self._mapping: Any = None
        self.doubles = self._view()

    def _view(self) -> memoryview[float]:
        """A view of the current mapping as doubles."""
        self._mapping = self._data._m
        view = memoryview(self._mapping).cast("d")
        self._views.append(view)
        return view

    def index_of(self, key: str) -> int:
        """The index in ``doubles`` of the value of ``key``, which is added as 0 when new."""
        self._data.read_value(key)  # type: ignore[no-untyped-call]
        if self._data._m is not self._mapping:
            # The file grew and was mapped again. Earlier views still map its first part, so
            # the batches that hold them go on writing to the file itself.
            self.doubles = self._view()
        position: int = self._data._positions[key]
        if position % DOUBLE_BYTES:
            raise RuntimeError(f"a value of prometheus-client's file at {position}: not aligned")
        return position // DOUBLE_BYTES

    def close(self) -> None:
        """Release every view, then the mapping and the file."""
        for view in self._views:
            view.release()
        self._views.clear()
        self._mapping = None
        self._data.close()  # type: ignore[no-untyped-call]


_pid = os.getpid()
_forked = False  # set in a forked child until its first use of the samples
_files: dict[str, _File] = {}
_values: list[MappedValue] = []
_batches: weakref.WeakSet[Batch] = weakref.WeakSet()


def _move_to_own_files() -> None:
    """Move every sample from the files of the parent to files of this process. The lock is held.

    A child that wrote to its parent's files would overwrite its parent's counts; instead its
    samples start from what its own files hold (nothing, unless an earlier process had the same
    id), as in prometheus-client.
    """
    global _pid, _forked  # noqa: PLW0603 - the process id of this module's files
    _pid = os.getpid()
    for file in _files.values():
        file.close()
    _files.clear()
    for value in _values:
        value._attach()
    for batch in _batches:
        batch._compile()
    _forked = False


def _file(prefix: str) -> _File:
    """This process's file of one metric type, opened at its first use. The lock is held."""
    file = _files.get(prefix)
    if file is None:
        folder = os.environ.get(MULTIPROC_ENV)
        if not folder:
            raise RuntimeError(f"{MULTIPROC_ENV} must name the folder of the metrics files")
        file = _files[prefix] = _File(os.path.join(folder, f"{prefix}_{_pid}.db"))
    return file


class MappedValue:
    """One sample of this process, kept in its file: prometheus-client's ``ValueClass`` protocol.

    Timestamps are written as prometheus-client writes them: 0 on ``inc``, the one given (or 0)
    on ``set``. Exemplars are not kept in multiprocess mode, as in prometheus-client.
    """

    _multiprocess = True

    __slots__ = ("_file", "_index", "_key", "_prefix")

    def __init__(
        self,
        typ: str,
        metric_name: str,
        name: str,
        labelnames: Sequence[str],
        labelvalues: Sequence[str],
        help_text: str,
        multiprocess_mode: str = "",
        **kwargs: object,
    ) -> None:
        """Find (or add, as 0) the sample in this process's file of its metric type."""
        self._prefix = f"{typ}_{multiprocess_mode}" if typ == "gauge" else typ
        self._key = mmap_key(metric_name, name, list(labelnames), list(labelvalues), help_text)
        with _lock:
            if _forked:
                _move_to_own_files()
            self._attach()
            _values.append(self)

    def _attach(self) -> None:
        """Locate the sample in this process's files. The lock is held."""
        self._file = _file(self._prefix)
        self._index = self._file.index_of(self._key)

    def inc(self, amount: float) -> None:
        """Add ``amount``."""
        with _lock:
            if _forked:
                _move_to_own_files()
            doubles, index = self._file.doubles, self._index
            doubles[index] += amount
            doubles[index + 1] = 0.0

    def set(self, value: float, timestamp: float | None = None) -> None:
        """Replace the value."""
        with _lock:
            if _forked:
                _move_to_own_files()
            doubles, index = self._file.doubles, self._index
            doubles[index] = value
            doubles[index + 1] = timestamp or 0.0

    def set_exemplar(self, exemplar: object) -> None:
        """Nothing: exemplars are not kept in multiprocess mode."""

    def get(self) -> float:
        """The current value."""
        with _lock:
            if _forked:
                _move_to_own_files()
            value: float = self._file.doubles[self._index]
            return value

    def get_exemplar(self) -> None:
        """None: exemplars are not kept in multiprocess mode."""


def _value_of(value: object) -> MappedValue:
    """``value``, which must be a ``MappedValue``."""
    if not isinstance(value, MappedValue):
        raise TypeError(
            f"a {type(value).__name__} is not a MappedValue: install MappedValue as "
            "prometheus_client.values.ValueClass before the first metric child is made"
        )
    return value


class Batch:
    """Increments of fixed counters and observations of fixed histograms, under one lock.

    ``apply`` adds 1 to each counter and observes one amount in each histogram, as ``inc()``
    and ``observe()`` would: the histogram's sum grows by the amount and its first bucket whose
    upper bound is at least the amount counts one more (no bucket counts a NaN). The children
    must be made by ``labels()`` (or be unlabelled) while ``MappedValue`` is the value class.
    """

    __slots__ = ("__weakref__", "_counters", "_counts", "_histograms", "_observations")

    def __init__(
        self, counters: Iterable[Counter] = (), histograms: Iterable[tuple[Histogram, int]] = ()
    ) -> None:
        """``histograms`` pairs each histogram with the index of its amount in ``apply``."""
        self._counters = tuple(_value_of(counter._value) for counter in counters)
        self._histograms = tuple(
            (
                which,
                _value_of(histogram._sum),
                tuple(_value_of(bucket) for bucket in histogram._buckets),
                tuple(histogram._upper_bounds),
            )
            for histogram, which in histograms
        )
        with _lock:
            if _forked:
                _move_to_own_files()
            self._compile()
            _batches.add(self)

    def _compile(self) -> None:
        """Resolve every sample to a view of its file and an index in it. The lock is held."""
        self._counts = tuple((value._file.doubles, value._index) for value in self._counters)
        observations = []
        for which, total, buckets, bounds in self._histograms:
            if any(bucket._file is not total._file for bucket in buckets):
                raise RuntimeError("a histogram's samples are in different files")
            indexes = tuple(bucket._index for bucket in buckets)
            observations.append((which, total._file.doubles, total._index, bounds, indexes))
        self._observations = tuple(observations)

    def apply(self, amounts: Sequence[float] = ()) -> None:
        """Count every counter once and observe ``amounts[which]`` in each histogram."""
        with _lock:
            if _forked:
                _move_to_own_files()
            for doubles, index in self._counts:
                doubles[index] += 1.0
            for which, doubles, total, bounds, buckets in self._observations:
                amount = amounts[which]
                doubles[total] += amount
                bucket = bisect_left(bounds, amount)
                if amount <= bounds[bucket]:  # false only for NaN (the last bound is +Inf)
                    doubles[buckets[bucket]] += 1.0


def _before_fork() -> None:
    """Hold the lock across the fork: the child must not inherit it held by another thread."""
    _lock.acquire()


def _after_fork_in_parent() -> None:
    """Let the parent's threads go on."""
    _lock.release()


def _after_fork_in_child() -> None:
    """Note the fork: the samples move to the child's own files at its first use of them."""
    global _forked  # noqa: PLW0603 - read under the lock by every use of the samples
    _forked = True
    _lock.release()


os.register_at_fork(
    before=_before_fork, after_in_parent=_after_fork_in_parent, after_in_child=_after_fork_in_child
)
