"""Compiling the engine ahead of use, in parts, with progress.

numba compiles a kernel on its first call (seconds each on a fresh machine, with an empty
cache) and keeps it in its disk cache (``NUMBA_CACHE_DIR``), from which a new process loads
it in a fraction of a second. The parts come in the order the app needs them: ``FIRST``
is what the default page draws (the default fit and its plane); the rest (other tree
growths, second-order trees, what other pages and regressions draw) the app compiles on
a background thread after its first chart. A fit that needs a part not compiled yet
still works: numba compiles it then (waiting for the background thread's compile in
progress, if any, since numba compiles one thing at a time).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Callable

from .. import boosting
from .grid import make_grid, tree_on_grid
from .summaries import ledger


@dataclass(frozen=True)
class Part:
    name: str  # as the progress line says it
    compile: Callable[[], object]


def _plane():
    """What the default page computes from its fit: F on the plane, residuals, validation loss."""
    trace = boosting.warm_fit()
    make_grid(trace, resolution=8)
    trace.valid_loss


def _views():
    """What the other pages and regressions draw: a tree on the plane, a sample's ledger,
    F along a line (one input), F on the plane in float64 (the exports' check)."""
    trace = boosting.warm_fit()
    tree_on_grid(trace, 1, make_grid(trace, resolution=8))
    ledger(trace, 0)
    make_grid(boosting.warm_fit(features=1, loss="squared_error"), resolution=8)
    trace.staged_decision_grid(trace.X[:3, 0], trace.X[:3, 1])


def _histogram():
    """The histogram engine's fits, and their planes, lines and trees on the plane as the app
    draws them (in float64)."""
    for trace in boosting._uncounted(boosting.warmup_histogram):
        grid = make_grid(trace, resolution=8)
        if trace.X.shape[1] == 2:
            tree_on_grid(trace, 1, grid)


def _fit_part(name):
    if name == "histogram trees":
        return Part(name, _histogram)
    return Part(name, lambda: boosting.warmup((name,)))


PARTS = (_fit_part("depth-first trees"), Part("the plane", _plane),
         *(_fit_part(name) for name in boosting.WARMUP_PARTS if name != "depth-first trees"),
         Part("trees on the plane, ledgers, lines", _views))
FIRST = PARTS[:2]  # the default page: log-loss, depth-first trees, F on the plane
REST = PARTS[2:]

# Seconds each part took to compile from an empty cache, part by part in one process, on
# this project's 2-core machine (2026-11-25, load average below 1; python -m
# benchmarks.bench_app --cold measures them again). The progress messages quote them.
MEASURED = {"depth-first trees": 20.0, "the plane": 4.0, "best-first trees": 9.0,
            "subsampling": 9.0, "second-order trees": 8.0, "multiclass": 17.0,
            "histogram trees": 18.0,
            "trees on the plane, ledgers, lines": 1.0}


def expected_seconds(parts) -> float:
    """How long these parts take to compile with an empty cache, as measured here."""
    return sum(MEASURED.get(part.name, 2.0) for part in parts)


def compile_parts(parts, report: Callable | None = None) -> float:
    """Compile ``parts`` in order; after each, ``report(k, n, part, seconds)``. Returns the
    seconds in all (a fraction of one per part when numba's cache holds them)."""
    start = time.perf_counter()
    for k, part in enumerate(parts, 1):
        began = time.perf_counter()
        part.compile()
        if report is not None:
            report(k, len(parts), part, time.perf_counter() - began)
    return time.perf_counter() - start


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _compile(k: int) -> float:
    """Compile ``PARTS[k]`` (in a worker process of :func:`compile_in_processes`)."""
    return compile_parts([PARTS[k]])


def compile_in_processes(report: Callable | None = None, workers: int | None = None) -> float:
    """Compile every part, a process per core (numba compiles one thing at a time in a
    process), the longest first; after each, ``report(k, n, part, seconds)`` in the order
    they finish. Returns the seconds in all. Parts share kernels, which a process
    compiles unless numba's cache already holds them (:mod:`explorer.kernel` makes that
    safe)."""
    workers = min(workers or cores(), len(PARTS))
    if workers <= 1:
        return compile_parts(PARTS, report)
    start = time.perf_counter()
    order = sorted(range(len(PARTS)), key=lambda k: -MEASURED.get(PARTS[k].name, 2.0))
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(_compile, k): PARTS[k] for k in order}
        for done, future in enumerate(as_completed(futures), 1):
            seconds = future.result()
            if report is not None:
                report(done, len(PARTS), futures[future], seconds)
    return time.perf_counter() - start


class Background:
    """Parts compiled one after another on a daemon thread, with progress to read.

    ``done`` counts the parts finished; ``current`` is the part being compiled (None once
    the thread has stopped); ``error`` is the exception that stopped it, if any (the fits
    that need the rest then compile it themselves, or raise it); ``report`` is called after
    each part, as ``compile_parts`` calls it.
    """

    def __init__(self, parts, report: Callable | None = None):
        self.parts = tuple(parts)
        self.report = report
        self.done = 0
        self.error: BaseException | None = None
        self.stopped = False
        self.seconds: dict[str, float] = {}
        self.began = time.perf_counter()  # when the current part started
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="engine-warmup", daemon=True)

    @property
    def total(self) -> int:
        return len(self.parts)

    @property
    def current(self) -> Part | None:
        return None if self.stopped or self.done == self.total else self.parts[self.done]

    def start(self) -> "Background":
        self.began = time.perf_counter()
        self._thread.start()
        return self

    def _run(self):
        try:
            for part in self.parts:
                part.compile()
                with self._changed:
                    now = time.perf_counter()
                    self.seconds[part.name] = now - self.began
                    self.began = now
                    self.done += 1
                    self._changed.notify_all()
                if self.report is not None:
                    self.report(self.done, self.total, part, self.seconds[part.name])
        except BaseException as error:  # noqa: BLE001 - kept for the page to report
            self.error = error
        finally:
            with self._changed:
                self.stopped = True
                self._changed.notify_all()

    def wait(self, parts: int | None = None, timeout: float | None = None) -> bool:
        """Wait until the first ``parts`` parts (all by default) are compiled or the thread
        has stopped; False if ``timeout`` seconds passed first."""
        target = self.total if parts is None else parts
        with self._changed:
            return self._changed.wait_for(lambda: self.done >= target or self.stopped, timeout)

    def seconds_left(self, parts: int | None = None) -> float:
        """About how long until the first ``parts`` parts (all by default) are compiled:
        their measured times, less what the current part has run (at least 1 s)."""
        todo = self.parts[self.done:self.total if parts is None else parts]
        running = time.perf_counter() - self.began if self.current is not None else 0.0
        return max(1.0, expected_seconds(todo) - running)
