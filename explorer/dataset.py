"""The data of one setting: what the State's data fields (and an upload) make, within
the points budget.

:func:`make` takes the :class:`~explorer.state.State` (and, for an upload, the file read
with :func:`read` and the columns chosen) and gives the training and validation sets and
what the sidebar says beside its controls: the points used, the note that says the
budget cut the data, the validation split left out, or the message that says why there is
nothing to fit. The points budget, :func:`budget`, is what one setting may fit.

The sidebar (``explorer.app.controls``) draws the widgets and caches what is read and
made; there is no Streamlit here. Any problem with the user's file or choices comes back
as the message of a :class:`~explorer.data.DataError`, said as is (it may quote the
user's text: escape it before any markdown).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .data import MULTICLASS_SETS, Dataset, dataset_hash, make_toy, sample, split
from .drawn import dataset as drawn_points, lost_note
from .state import ENGINE_SPLIT, State
from .upload import Table, read_table, to_dataset

MAX_UPLOAD_MB = 5  # the same as server.maxUploadSize in .streamlit/config.toml (a test checks)
MAX_FILE_ROWS = 1_000_000  # 5 MB of the shortest rows; the budget decides what is fitted
# What one setting may fit: points x rounds. Measured here at this budget: the fit, its
# grid and curves take 0.3-0.4 s, and a cached fit holds about 30 MB (9 bytes a
# point-round of record, a 4-10 MB grid), 60-65 MB at its peak.
MAX_POINT_ROUNDS = 2_000_000
# Histogram trees (split="histogram") fit the same record, 9-10 bytes a point-round, in
# less time: memory, not time, sets their budget. Measured here on 2026-11-25 with
# ``python -m benchmarks.bench_budget`` (fit, grid and curves, best of 3, the machine
# shared with other work):
#   exact at 2,000,000:     0.30-0.45 s, kept 18-27 MB (moons 20,000 x 100, 4,000 x 500,
#                           sine 20,000 x 100; blobs 6,666 x 100 x 3 trees 0.36 s, 27 MB)
#   histogram at 2,000,000: 0.21-0.25 s, kept 22 MB (moons 20,000 x 100)
#   histogram at 3,000,000: 0.14-0.36 s, kept 27-37 MB (moons 30,000 x 100, 6,000 x 500,
#                           sine 30,000 x 100; blobs 10,000 x 100 x 3 trees 0.36 s, 37 MB)
# At 3,000,000 a histogram fit takes no longer than an exact fit at its budget, and holds
# about 1.4 times its memory; beyond, the memory grows with the point-rounds.
MAX_POINT_ROUNDS_BY_SPLIT = {"histogram": 3_000_000}
MIN_VALIDATION_POINTS = 20  # fewer: a held-out set of 1-3 points says nothing
# The State's fields that make reads: what it makes is the same while these are
# (the app's cache of toy sets is keyed on them).
READS = ("task", "data", "n", "noise", "balance", "points", "pts", "dseed", "valid",
         "rounds", "split")
NO_FILE = ("Upload a CSV file in the sidebar (a header row, then one row per point), "
           "or choose a toy dataset.")
# A link that says data=upload opened where no file has been read: a shared link, or a
# browser moved to another server process or to a restarted one. A file lives only in
# the memory of the process that read it, and a link never carries it nor its name
# (links are shared).
LOST_FILE = ("This link uses an uploaded file, which this server does not have (it may "
             "have restarted): upload it again.")


def point_rounds(split: str = "squared-error") -> int:
    """What one setting may fit, in point-rounds, under the split rule ``split``."""
    return MAX_POINT_ROUNDS_BY_SPLIT.get(ENGINE_SPLIT.get(split, split), MAX_POINT_ROUNDS)


def budget(rounds: int, trees: int = 1, split: str = "squared-error") -> int:
    """The most points one setting fits at this many rounds of this many trees (one per
    class with three classes or more: the record grows with each) under the split rule
    ``split``."""
    return max(point_rounds(split) // (rounds * trees), 2)


@dataclass(frozen=True, eq=False)
class Upload:
    """The user's file, read (:func:`read`), and the columns chosen from it."""

    table: Table
    features: tuple[str, ...]
    label: str


@dataclass(frozen=True, eq=False)
class Data:
    """The points one setting fits and holds out, and what is said about them; or, in
    ``message``, why there are none (what was said before it still is)."""

    train: Dataset | None = None
    valid: Dataset | None = None
    key: str = ""  # identifies the data: "draw:" or "upload:" and the points' hashes
    note: str = ""  # the points the budget (or the user) left out, if any
    split_note: str = ""  # no validation split: too few points
    message: str = ""  # why there is nothing to fit
    total: int = 0  # an upload's points ("Points used" goes up to it); 0 otherwise
    used: int = 0  # how many of them are fitted

    @property
    def notes(self) -> tuple[str, ...]:
        """What the sidebar says under the data controls, in order."""
        return tuple(note for note in (self.note, self.split_note) if note)


def read(raw: bytes, name: str) -> Table:
    """An upload's bytes read into a table, within the app's limits (:data:`MAX_UPLOAD_MB`,
    :data:`MAX_FILE_ROWS`); a DataError says what is wrong with the file."""
    return read_table(_Named(raw, name), max_rows=MAX_FILE_ROWS,
                      max_bytes=MAX_UPLOAD_MB * 2**20)


class _Named:  # read_table takes the file name from the object
    def __init__(self, raw, name):
        self._raw, self.name = raw, name

    def read(self, k=-1):
        return self._raw if k < 0 else self._raw[:k]


def make(state: State, upload: Upload | None = None) -> Data:
    """The data ``state`` chooses: a toy set (at most as many points as the budget fits),
    the drawn points, or ``upload`` (a sample of its points within the budget, as many
    as the State's ``points`` asks for), split for validation by the data seed (no split
    below :data:`MIN_VALIDATION_POINTS` points)."""
    if state.is_upload and upload is None:
        return Data(message=NO_FILE)
    made = Data()
    try:
        if state.is_drawn:
            points, kind = drawn_points(state.pts, state.task), "draw:"
            made = Data(note=lost_note(state.pts))  # a link's points beyond its limit
        elif state.is_upload:
            points, kind = to_dataset(upload.table, list(upload.features), upload.label,
                                      task=state.task), "upload:"
            made = _sampled(points, state)
            if made.used < made.total:
                points = sample(points, made.used, state.dseed)
        else:
            trees = 3 if state.data in MULTICLASS_SETS else 1
            n = min(state.n, budget(state.rounds, trees, state.split))
            if n < state.n:
                made = Data(note=f"Using {n:,} points, not {state.n:,}: "
                                 + _over_budget(state.n, state, trees))
            points, kind = make_toy(state.data, n=n, noise=state.noise,
                                    balance=state.balance, seed=state.dseed), ""
        valid = state.valid
        if len(points.y) < MIN_VALIDATION_POINTS and valid > 0:
            valid = 0.0
            made = replace(made, split_note=f"No validation split below "
                                            f"{MIN_VALIDATION_POINTS} points: every point "
                                            "trains.")
        train, held = split(points, valid, state.dseed)
    except ValueError as error:  # DataError and the toy sets' own checks
        return replace(made, message=str(error))
    key = kind + dataset_hash(train) + (dataset_hash(held) if held is not None else "")
    return replace(made, train=train, valid=held, key=key)


def _sampled(points: Dataset, state: State) -> Data:
    """An upload's points to fit: all of them, or a seeded random sample of as many as
    asked for (0: as many as the budget allows), never more than the budget; with a note
    that says what was used."""
    total = len(points.y)
    trees = len(points.classes) if len(points.classes) > 2 else 1  # one per class and round
    limit = min(budget(state.rounds, trees, state.split), total)
    wanted = min(state.points or limit, total)
    used = min(wanted, limit)
    if used == total:
        return Data(total=total, used=used)
    note = f"Using {used:,} of {total:,} points (random sample, seed {state.dseed})."
    if used < wanted:
        note += " " + _over_budget(wanted, state, trees)
    return Data(note=note, total=total, used=used)


def _over_budget(wanted: int, state: State, trees: int) -> str:
    """The budget note: why fewer than ``wanted`` points are fitted."""
    return (f"{wanted:,} × {state.rounds} rounds{f' × {trees} trees' if trees > 1 else ''} "
            f"is more than this server fits for one setting "
            f"({point_rounds(state.split):,} point-rounds).")
