"""Data for the explorer: toy sets and train/validation splits (CSV uploads: ``upload``).

Everything the rest of the app fits or draws is a :class:`Dataset`. Toy sets
come from :func:`make_toy`; uploads go through :func:`read_table` (so the user
can see the columns and choose) and :func:`to_dataset`, or :func:`load_csv` in
one step. Any problem with the user's choices or file raises :class:`DataError`
whose message says what is wrong and what to do, so the app can show it as is.
"""

from __future__ import annotations

import functools
import hashlib
import operator
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

__all__ = [
    "CLASSIFICATION_SETS",
    "DataError",
    "Dataset",
    "IRIS",
    "MULTICLASS_SETS",
    "REGRESSION_SETS",
    "TOY_SETS",
    "dataset_hash",
    "make_toy",
    "split",
]

TASKS = ("classification", "regression")
MIN_ROWS = 10
MAX_ROWS = 50_000
MAX_CLASSES = 10  # one tree per class and round: beyond this, views and fits get unwieldy


class DataError(ValueError):
    """A problem with data or data settings, explained for the person using the app."""


@dataclass(frozen=True, eq=False)
class Dataset:
    """Points ready to fit.

    Attributes
    ----------
    X : ndarray of shape (n, d), float64
        Inputs; d is 2, or 1 for one-input regression.
    y : ndarray of shape (n,), float64
        Targets: the class index 0.0, 1.0, ... (K - 1) for classification, numbers for
        regression.
    feature_names : tuple of str
        One name per column of ``X``.
    target_name : str
        Name of ``y``.
    task : {"classification", "regression"}
    name : str
        Toy set name or uploaded file name.
    classes : tuple of str
        For classification, the original labels of class 0, 1, ... K - 1.
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    target_name: str
    task: str
    name: str
    classes: tuple[str, ...] = ()

    def __post_init__(self):
        X = np.array(self.X, dtype=np.float64, ndmin=2)
        y = np.array(self.y, dtype=np.float64).reshape(-1)
        if len(X) != len(y) or X.shape[1] != len(self.feature_names):
            raise ValueError("X, y and feature_names do not match in size")
        if self.task not in TASKS:
            raise ValueError(f"task must be one of {TASKS}, not {self.task!r}")
        # Read-only so a dataset shared through a cache cannot be changed by a page.
        X.setflags(write=False)
        y.setflags(write=False)
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "feature_names", tuple(self.feature_names))
        object.__setattr__(self, "classes", tuple(self.classes))


def dataset_hash(ds: Dataset) -> str:
    """Return a SHA-1 hex digest of a dataset's numbers and names, for cache keys."""
    h = hashlib.sha1()
    for array in (ds.X, ds.y):
        # The shape is hashed too: (n, 2) and (2n, 1) have the same bytes.
        h.update(repr(array.shape).encode())
        h.update(np.ascontiguousarray(array).tobytes())
    h.update(repr((ds.feature_names, ds.target_name, ds.task, ds.name, ds.classes)).encode())
    return h.hexdigest()


# --------------------------------------------------------------------------
# Toy sets
#
# A classification shape samples ``count`` clean points of one class; make_toy
# adds the noise, the labels and the shuffle, so the shapes stay one idea each.
# Every shape fits in about [-2.5, 2.5] so that all plots look alike.
# --------------------------------------------------------------------------

R = 2.5  # half-width of the square the toy sets live in


def _moons(count, cls, rng):
    t = rng.uniform(0, np.pi, count)
    if cls == 0:
        x, y = np.cos(t), np.sin(t)
    else:
        x, y = 1 - np.cos(t), 0.5 - np.sin(t)
    # Centre the pair of moons on the origin and stretch them to the common square.
    return 1.6 * np.column_stack([x - 0.5, y - 0.25])


def _circles(count, cls, rng):
    angle = rng.uniform(0, 2 * np.pi, count)
    radius = 2.2 if cls == 0 else 1.0
    return radius * np.column_stack([np.cos(angle), np.sin(angle)])


def _spirals(count, cls, rng):
    t = rng.uniform(0, 1, count)
    radius = 0.2 + 2.3 * t
    angle = 3 * np.pi * t + np.pi * cls  # the second arm is the first turned half a turn
    return radius[:, None] * np.column_stack([np.cos(angle), np.sin(angle)])


def _gaussians(count, cls, rng):
    centre = 1.0 if cls == 1 else -1.0
    return rng.normal(centre, 0.6, size=(count, 2))


def _linear(count, cls, rng):
    points = rng.uniform(-R, R, size=(count, 2))
    # Reflecting across the line x1 + x2 = 0 maps the square onto itself, so
    # points on the wrong side are moved over without changing the density.
    wrong_side = (points.sum(axis=1) > 0) != (cls == 1)
    points[wrong_side] = -points[wrong_side][:, ::-1]
    return points


def _grid(cols, rows, label):
    """A shape made of equal cells over the square, each cell labelled label(i, j)."""

    def shape(count, cls, rng):
        cells = [(i, j) for i in range(cols) for j in range(rows) if label(i, j) == cls]
        i, j = np.array(cells)[rng.integers(len(cells), size=count)].T
        width, height = 2 * R / cols, 2 * R / rows
        x = -R + (i + rng.uniform(size=count)) * width
        y = -R + (j + rng.uniform(size=count)) * height
        return np.column_stack([x, y])

    return shape


_SHAPES = {
    "moons": _moons,
    "circles": _circles,
    "xor": _grid(2, 2, lambda i, j: int(i == j)),  # class 1 where x1 * x2 > 0
    "spirals": _spirals,
    "gaussians": _gaussians,
    "linear": _linear,
    "stripes": _grid(6, 1, lambda i, j: i % 2),
    "checkerboard": _grid(4, 4, lambda i, j: (i + j) % 2),
    "tied": _moons,  # rounded to _ROUNDED["tied"] after the noise: many equal values
}
# Sets whose inputs are rounded to a grid of this step (measured data often is).
_ROUNDED = {"tied": 0.5}


def _blobs(count, cls, rng):
    """Three round clouds on a triangle (class cls at angle 90 + 120 cls degrees)."""
    angle = np.pi / 2 + 2 * np.pi * cls / 3
    return rng.normal(1.3 * np.array([np.cos(angle), np.sin(angle)]), 0.55, size=(count, 2))


def _spiral(count, cls, rng):
    """Three arms of one spiral, each turned a third of a turn from the last."""
    t = rng.uniform(0, 1, count)
    radius = 0.2 + 2.3 * t
    angle = 2.5 * np.pi * t + 2 * np.pi * cls / 3
    return radius[:, None] * np.column_stack([np.cos(angle), np.sin(angle)])


# Sets of K >= 3 classes drawn in equal numbers (the class balance applies to two classes).
_MULTI = {"blobs": (_blobs, 3), "spiral": (_spiral, 3)}
IRIS = "iris"  # Fisher's iris flowers: petal length and width, three species (real data)

# A staircase whose levels go up and down, so no single split explains it.
_STEP_LEVELS = np.array([-1.5, 0.5, -0.5, 1.5, 0.0, 1.0])

# Regression sets: (number of inputs, clean target as a function of X).
_CURVES = {
    "sine": (1, lambda X: np.sin(X[:, 0])),
    "steps": (1, lambda X: _STEP_LEVELS[np.clip(np.floor(X[:, 0] + 3), 0, 5).astype(int)]),
    "plane": (2, lambda X: 0.8 * X[:, 0] - 0.5 * X[:, 1]),
}

MULTICLASS_SETS = tuple(_MULTI) + (IRIS,)  # three classes or more
CLASSIFICATION_SETS = tuple(_SHAPES) + MULTICLASS_SETS
REGRESSION_SETS = tuple(_CURVES)


def make_toy(name: str, n: int = 300, noise: float = 0.2, balance: float = 0.5,
             seed: int = 0) -> Dataset:
    """Generate a toy dataset; the same arguments always give the same points.

    Parameters
    ----------
    name : str
        One of :data:`CLASSIFICATION_SETS` or :data:`REGRESSION_SETS`.
    n : int
        Number of points, 10 to 50,000 (iris always has its 150 flowers; its n, noise,
        balance and seed are not used).
    noise : float
        Standard deviation of the Gaussian noise, 0 to 2: added to both inputs
        for classification, to the target for regression.
    balance : float
        Fraction of class 1, 0.05 to 0.95 (ignored for regression and for sets of three
        or more classes, whose classes come in equal numbers).
    seed : int
        Seed of the random generator, a whole number >= 0.

    Returns
    -------
    Dataset

    Raises
    ------
    DataError
        For an unknown name or a parameter out of range.
    """
    if name not in CLASSIFICATION_SETS and name not in _CURVES:
        raise DataError(f"There is no toy dataset called {name!r}. Choose one of: "
                        f"{', '.join(CLASSIFICATION_SETS + REGRESSION_SETS)}.")
    n = _whole_number("The number of points", n, MIN_ROWS, MAX_ROWS)
    seed = _whole_number("The seed", seed, 0, 2**32 - 1)
    _in_range("The noise", noise, 0.0, 2.0)
    _in_range("The class balance", balance, 0.05, 0.95)
    rng = np.random.default_rng(seed)

    if name in _CURVES:
        n_inputs, curve = _CURVES[name]
        X = rng.uniform(-3, 3, size=(n, n_inputs))
        y = curve(X) + noise * rng.normal(size=n)
        names = ("x",) if n_inputs == 1 else ("x1", "x2")
        return Dataset(X, y, names, "y", "regression", name)
    if name == IRIS:
        return _iris()

    # Counts per class rather than a label per point, so the balance is exact;
    # each class keeps at least one point.
    if name in _MULTI:
        shape, K = _MULTI[name]
        counts = tuple(n // K + (k < n % K) for k in range(K))
    else:
        shape, K = _SHAPES[name], 2
        n1 = min(max(round(n * balance), 1), n - 1)
        counts = (n - n1, n1)
    X = np.vstack([shape(count, cls, rng) for cls, count in enumerate(counts)])
    X = X + noise * rng.normal(size=X.shape)
    if name in _ROUNDED:
        X = np.round(X / _ROUNDED[name]) * _ROUNDED[name]
    y = np.repeat(np.arange(K, dtype=np.float64), counts)
    order = rng.permutation(n)  # interleave the classes
    return Dataset(X[order], y[order], ("x1", "x2"), "y", "classification", name,
                   tuple(str(k) for k in range(K)))


@functools.lru_cache(maxsize=1)
def _iris() -> Dataset:
    """scikit-learn's bundled copy of the iris data (nothing is downloaded)."""
    from sklearn.datasets import load_iris
    iris = load_iris()
    X = iris.data[:, 2:4]  # petal length and width (cm): the two that tell the species apart
    names = tuple(iris.feature_names[2:4])
    return Dataset(X, iris.target.astype(np.float64), names, "species", "classification", IRIS,
                   tuple(str(t) for t in iris.target_names))


TOY_SETS: dict[str, Callable[..., Dataset]] = {
    name: functools.partial(make_toy, name) for name in CLASSIFICATION_SETS + REGRESSION_SETS
}


def _whole_number(what, value, low, high):
    try:
        value = operator.index(value)
    except TypeError:
        raise DataError(f"{what} must be a whole number (got {value!r}).") from None
    if not low <= value <= high:
        raise DataError(f"{what} must be between {low:,} and {high:,} (got {value:,}).")
    return value


def _in_range(what, value, low, high):
    try:
        ok = low <= float(value) <= high  # False for NaN
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise DataError(f"{what} must be a number between {low:g} and {high:g} (got {value!r}).")


# --------------------------------------------------------------------------
# Train / validation split
# --------------------------------------------------------------------------

def deepest_row(dataset: Dataset) -> int:
    """The point deepest inside its own class: the farthest from the other class's mean
    and nearest its own (its label flipped makes the most telling outlier)."""
    _two_classes(dataset)
    X, y = dataset.X, dataset.y
    means = {c: X[y == c].mean(axis=0) for c in (0.0, 1.0)}
    own = np.where(y[:, None] == 1.0, means[1.0], means[0.0])
    other = np.where(y[:, None] == 1.0, means[0.0], means[1.0])
    return int(np.argmax(np.linalg.norm(X - other, axis=1) - np.linalg.norm(X - own, axis=1)))


def flip_labels(dataset: Dataset, fraction: float | str, seed: int = 0) -> Dataset:
    """The dataset with some 0/1 labels flipped (label noise, outliers): a random
    ``fraction`` of them, or with ``"deepest"`` the one of :func:`deepest_row`."""
    if dataset.task != "classification":
        raise DataError("Only class labels can be flipped.")
    _two_classes(dataset)
    y = dataset.y.copy()
    if fraction == "deepest":
        i = deepest_row(dataset)
        y[i] = 1.0 - y[i]
        return replace(dataset, y=y, name=f"{dataset.name} (point #{i} flipped)")
    if not 0.0 <= fraction <= 0.5:
        raise DataError(f"The share of flipped labels must be in [0, 0.5]; got {fraction}.")
    flip = np.random.RandomState(seed).permutation(len(y))[:int(round(fraction * len(y)))]
    y[flip] = 1.0 - y[flip]
    return replace(dataset, y=y, name=f"{dataset.name} ({fraction:.0%} labels flipped)")




def _two_classes(dataset):
    if len(dataset.classes) > 2:
        raise DataError(f"Flipping labels swaps two classes; {dataset.name} has "
                        f"{len(dataset.classes)}.")


def sample(dataset: Dataset, n: int, seed: int = 0) -> Dataset:
    """``n`` of the dataset's points, drawn at random (the dataset itself when it has no
    more than ``n``).

    Classification samples are stratified: each class keeps its share of the points
    (largest remainders get the leftover places) and at least one point. The points
    keep their order in the file, and the same dataset, n and seed give the same sample.
    """
    n = _whole_number("The number of points", n, 1, 2**31 - 1)
    seed = _whole_number("The seed", seed, 0, 2**32 - 1)
    total = len(dataset.y)
    if n >= total:
        return dataset
    rng = np.random.default_rng(seed)
    if dataset.task == "classification":
        groups = [np.flatnonzero(dataset.y == c) for c in np.unique(dataset.y)]
    else:
        groups = [np.arange(total)]
    share = np.array([len(g) for g in groups]) * n / total
    counts = np.maximum(np.floor(share).astype(int), 1)
    for k in np.argsort(-(share - np.floor(share)), kind="stable"):  # largest remainders
        if counts.sum() >= n:
            break
        counts[k] += 1
    rows = np.sort(np.concatenate([rng.choice(g, size=min(c, len(g)), replace=False)
                                   for g, c in zip(groups, counts)]))
    return replace(dataset, X=dataset.X[rows], y=dataset.y[rows])


def split(dataset: Dataset, valid_fraction: float = 0.2,
          seed: int = 0) -> tuple[Dataset, Dataset | None]:
    """Split a dataset into training and validation sets.

    Classification splits are stratified: each class gives the same fraction
    of its points (rounded) to the validation set, and keeps at least one for
    training. Points keep their original order within each part.

    Parameters
    ----------
    dataset : Dataset
    valid_fraction : float
        Fraction of points held out, 0 to 0.5.
    seed : int
        Seed of the random choice of points.

    Returns
    -------
    train : Dataset
    valid : Dataset or None
        None when ``valid_fraction`` is 0 or rounds to no point.
    """
    _in_range("The validation fraction", valid_fraction, 0.0, 0.5)
    seed = _whole_number("The seed", seed, 0, 2**32 - 1)
    rng = np.random.default_rng(seed)
    if dataset.task == "classification":
        groups = [np.flatnonzero(dataset.y == c) for c in np.unique(dataset.y)]
    else:
        groups = [np.arange(len(dataset.y))]
    held_out = []
    for group in groups:
        k = min(round(len(group) * valid_fraction), len(group) - 1)
        held_out.append(rng.choice(group, size=k, replace=False))
    held_out = np.sort(np.concatenate(held_out)).astype(int)
    if len(held_out) == 0:
        return dataset, None
    keep = np.ones(len(dataset.y), dtype=bool)
    keep[held_out] = False

    def part(rows):
        return Dataset(dataset.X[rows], dataset.y[rows], dataset.feature_names,
                       dataset.target_name, dataset.task, dataset.name, dataset.classes)

    return part(keep), part(held_out)


# --------------------------------------------------------------------------
