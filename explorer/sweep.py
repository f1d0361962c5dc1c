"""A sweep: one or two settings varied over a few values each, every other setting the
State's, and a fit per cell of the grid of values.

The link names a sweep with the State's own keys: ``sweep=lr:0.05,0.1,0.2`` and
``sweep2=depth:1,3,6``. :func:`plan` reads them (untrusted text) into a :class:`Sweep`:
its axes, its cells (each the State with the cell's values set) and a note for every
value, setting or axis it had to leave out, naming what and why. :func:`fit_cells` fits
the cells on threads (the engine's kernels release the GIL, so both cores fit with no
copy of the data and no new process), through a cache shared by every session and
bounded in bytes.

Plain Python: no Streamlit, no plotly.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from itertools import product

from .data import IRIS, MULTICLASS_SETS
from .state import BY_KEY, ENGINE_SPLIT, State
from .settings import applies

MAX_VALUES = 5  # values per axis: 25 cells at most
GRID = 60  # cells a side of a sweep cell's plane: a map some 250 px wide
MAX_TEXT = 200  # characters of a sweep's text read from a link
# Points x rounds of all the cells together. Measured here with
# ``python -m benchmarks.bench_sweep``: a 4 x 4 sweep of 1,000 training points at 500
# rounds (8,000,000 point-rounds) fits in about 1 s of wall time on 2 cores and binds in
# about as much again; beyond 12,000,000 a sweep's fits alone pass 1.5 s.
MAX_POINT_ROUNDS = 12_000_000
# The cells' fits, grids and records kept for every session: a 4 x 4 sweep at 500 rounds
# of 1,000 points holds about 60 MB, so two such sweeps and many small ones stay, and a
# sweep never pushes the app's own fits (another cache) out.
CACHE_BYTES = 160 * 2**20


@dataclass(frozen=True)
class Axis:
    """A setting the Sweep page can vary: its State key, how a cell names one of its
    values, and the values offered when the user picks it."""

    key: str
    name: str  # as a sentence names the setting
    show: str  # a cell's label of one value: "ν = {}", "depth {}"
    ready: tuple

    @property
    def field(self):
        return BY_KEY[self.key]

    def label(self, value) -> str:
        return self.show.format(self.field.format(value))


AXES: dict[str, Axis] = {a.key: a for a in (
    Axis("lr", "learning rate", "ν = {}", (0.05, 0.1, 0.2, 0.5, 1.0)),
    Axis("depth", "max depth", "depth {}", (1, 2, 3, 6)),
    Axis("leaves", "max leaves", "{} leaves", (2, 4, 8, 16, 31)),
    Axis("minleaf", "min samples per leaf", "min {} per leaf", (1, 5, 20, 50)),
    Axis("subsample", "subsample", "subsample {}", (0.3, 0.5, 0.8, 1.0)),
    Axis("lam", "λ", "λ = {}", (0.0, 1.0, 5.0, 10.0)),
    Axis("gamma", "γ", "γ = {}", (0.0, 0.5, 2.0, 5.0)),
    Axis("mcw", "min child weight", "min child weight {}", (0.0, 1.0, 5.0, 10.0)),
    Axis("bins", "max bins", "{} bins", (4, 16, 64, 255)),
    Axis("leafrule", "leaf rule", "{} leaves", ("newton", "mean", "exact", "line-search")),
    Axis("split", "split rule", "{} splits", ("squared-error", "hessian", "histogram")),
    Axis("loss", "loss", "{}", ("log-loss", "exponential")),
    Axis("noise", "noise", "noise {}", (0.1, 0.25, 0.4, 0.6)),
    Axis("n", "points", "{} points", (100, 400, 1000, 2000)),
)}
DEFAULT = "lr"  # the axis of a page with no sweep in its link


@dataclass(frozen=True)
class Cell:
    """One fit of the sweep: its place (column, row), its values and its State."""

    col: int
    row: int
    values: tuple  # one per axis
    state: State
    label: str  # "ν = 0.1, depth 3"


@dataclass(frozen=True)
class Sweep:
    """The axes (one or two: (Axis, values)), the cells in reading order (the first axis
    across, the second down) and what was left out of the link's text, said as notes."""

    axes: tuple
    cells: tuple[Cell, ...]
    notes: tuple[str, ...]

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns) of the grid of cells."""
        columns = len(self.axes[0][1]) if self.axes else 0
        rows = len(self.axes[1][1]) if len(self.axes) > 1 else 1
        return rows, columns

    @property
    def own_data(self) -> bool:
        """Whether the cells fit different data (the noise or the points swept): each then
        has its own validation points."""
        return any(axis.key in ("noise", "n") for axis, _ in self.axes)


def text(axis: Axis, values) -> str:
    """A sweep as the link writes it: ``lr:0.05,0.1``."""
    return f"{axis.key}:" + ",".join(axis.field.format(v) for v in values)


def applies_to(axis: Axis, state: State) -> str:
    """Why ``axis`` cannot be swept over ``state``'s fit, or "" if it can (the split rule
    itself always can: its cells then say where another axis applies)."""
    if axis.key in ("noise", "n") and (state.own_data or state.data == IRIS):
        return (f"{axis.name} is a toy set's setting, and {state.data} has its own "
                "points")
    if axis.key == "loss" and (state.is_regression or state.data in MULTICLASS_SETS):
        return "the loss is chosen only for two classes"
    param = axis.field.param
    if param and axis.key != "split" and not applies(param, ENGINE_SPLIT[state.split]):
        return f"{state.split} trees do not use the {axis.name}"
    return ""


_BAD = object()


def _values(axis: Axis, raw: list[str], state: State, notes: list) -> tuple:
    """The values of ``raw`` the axis allows on ``state`` (a value the State would change,
    such as depth 0 of second-order trees, is left out), each once, at most
    :data:`MAX_VALUES`; a note for each left out."""
    field = replace(axis.field, default=_BAD, by_rule=())
    kept = []
    for word in raw:
        value = field.parse(word)
        if value is _BAD or getattr(state.changed(**{axis.key: value}), axis.key) != value:
            notes.append(f"{axis.name}: {word!r} is not a value it takes here (ignored)")
        elif value in kept:
            notes.append(f"{axis.name}: {word!r} is there twice (once kept)")
        elif len(kept) == MAX_VALUES:
            notes.append(f"{axis.name}: {word!r} is past the {MAX_VALUES} values an axis "
                         "holds (ignored)")
        else:
            kept.append(value)
    return tuple(kept)


def _axis(source: str, given: str, state: State, taken: set, notes: list):
    """(Axis, values) of one sweep's text, or None with a note saying why."""
    given = given[:MAX_TEXT]
    key, _, rest = given.partition(":")
    axis = AXES.get(key.strip())
    if axis is None:
        notes.append(f"{source}: {key.strip()!r} is not a setting the page sweeps (ignored)")
        return None
    if axis.key in taken:
        notes.append(f"{source}: {axis.name} is swept already (ignored)")
        return None
    why = applies_to(axis, state)
    if why:
        notes.append(f"{source}: {why} (ignored)")
        return None
    raw = [w.strip() for w in rest.split(",") if w.strip()]
    values = _values(axis, raw, state, notes) if raw else axis.ready
    if not values:
        notes.append(f"{source}: no value of the {axis.name} left (ignored)")
        return None
    taken.add(axis.key)
    return axis, values


def plan(state: State) -> Sweep:
    """The sweep ``state`` names (``sweep``, ``sweep2``), every left-out part said in
    ``notes``; the learning rate's ready values when the link names none."""
    notes: list[str] = []
    taken: set = set()
    axes = []
    for source in ("sweep", "sweep2"):
        given = getattr(state, source)
        if given:
            found = _axis(source, given, state, taken, notes)
            if found is not None:
                axes.append(found)
    if not axes:
        axes.append((AXES[DEFAULT], AXES[DEFAULT].ready))
    cells = []
    across = axes[0][1]
    down = axes[1][1] if len(axes) > 1 else (None,)
    skipped = []
    for row, col in product(range(len(down)), range(len(across))):
        values = (across[col],) + ((down[row],) if len(axes) > 1 else ())
        changes = {axis.key: v for (axis, _), v in zip(axes, values)}
        cell = state.changed(**changes)
        label = ", ".join(axis.label(v) for (axis, _), v in zip(axes, values))
        # a rule-specific axis beside the split rule: only the cells whose rule uses it
        if any(getattr(cell, k) != v for k, v in changes.items()) or any(
                applies_to(axis, cell) for axis, _ in axes):
            skipped.append(label)
            continue
        cells.append(Cell(col, row, values, cell, label))
    if skipped:
        notes.append("Left out, where a rule does not use the other setting: "
                     + "; ".join(skipped))
    return Sweep(tuple(axes), tuple(cells), tuple(notes))


# --- fitting ---------------------------------------------------------------------------


class FitCache:
    """Least recently used fits, bounded in bytes (each entry's ``nbytes``): one for every
    session, thread-safe."""

    def __init__(self, max_bytes: int = CACHE_BYTES):
        self.max_bytes = max_bytes
        self._items: OrderedDict = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key, value, size: int):
        with self._lock:
            if key in self._items or size > self.max_bytes:
                return
            self._items[key] = (value, size)
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, (_, old) = self._items.popitem(last=False)
                self._bytes -= old

    @property
    def nbytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._items)


def workers() -> int:
    """Threads that fit cells: one per core."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else os.cpu_count() or 1)


def fit_cells(jobs: list, cache: FitCache, make, progress=None, threads: int | None = None):
    """``make(job)`` for each job not in ``cache``, on threads; returns the results in the
    jobs' order. ``jobs`` are (key, job) pairs; ``make`` returns (value, nbytes), the value
    an exception where the job failed (kept out of the cache).
    ``progress(done, total)`` is called on the calling thread as each job ends (the
    cached ones first)."""
    out = [None] * len(jobs)
    todo = []
    for i, (key, job) in enumerate(jobs):
        found = cache.get(key)
        if found is not None:
            out[i] = found[0]
        else:
            todo.append(i)
    done = len(jobs) - len(todo)
    if progress is not None:
        progress(done, len(jobs))
    if todo:
        with ThreadPoolExecutor(max_workers=min(threads or workers(), len(todo))) as pool:
            futures = {pool.submit(make, jobs[i][1]): i for i in todo}
            for future in as_completed(futures):
                i = futures[future]
                value, size = future.result()
                if not isinstance(value, Exception):  # a setting that failed is tried again
                    cache.put(jobs[i][0], value, size)
                out[i] = value
                done += 1
                if progress is not None:
                    progress(done, len(jobs))
    return out
