"""Points drawn by hand on the plane: their text in the link, an edit, the dataset.

A drawn set is a short text so that a link can carry it: one item per point,
``label_x1_x2`` (the target's value first for a regression), items joined by ``~``,
characters a URL keeps as they are. Every number is rounded to two decimals (about a
pixel of the plane) when it is read, so what the link says is exactly what is fitted.

A link carries the first :data:`LINK_POINTS` points; beyond them its last item is
``more_N``: N more points were drawn, which only the session that drew them holds. A
session that opens such a link (another student, or the same one after its server
process died) fits the points the link has and says how many could not come back.
"""

from __future__ import annotations

import math

import numpy as np

from .data import R, DataError, Dataset
from .upload import MIN_POINTS_PER_CLASS, MIN_POINTS_REGRESSION

MAX_POINTS = 1000  # a hand-drawn set; beyond this, upload a file
LINK_POINTS = 200  # the link carries the points up to this many (about 2.5 kB of address)
_MORE = "more"  # the link's last item "more_N": N more points were drawn than it carries
BOX = np.array([[-R, -R], [R, R]])  # the plane shown before there is any point to frame
PICK_PIXELS = 10  # a click this close to a point removes it
_ITEM, _PART = "~", "_"
_LIMIT = 1e6  # no coordinate or target beyond this: the plane would be unreadable
FEATURES = ("x1", "x2")
TARGET = "label"
CLASSES = ("0", "1")


def parse(text: str, task: str) -> tuple[np.ndarray, np.ndarray]:
    """(X of shape (n, 2), labels of shape (n,)) from a drawn set's text.

    Raises DataError naming the first item that is not a point, or when there are
    more than MAX_POINTS.
    """
    items, _ = _items(text)
    if len(items) > MAX_POINTS:
        raise DataError(f"A drawn set holds at most {MAX_POINTS:,} points; this one has "
                        f"{len(items):,}. Upload them as a CSV file instead.")
    rows = []
    for k, item in enumerate(items, 1):
        parts = item.split(_PART)
        try:
            values = [float(part) for part in parts]
        except ValueError:
            values = []
        if len(values) != 3 or not all(math.isfinite(v) and abs(v) <= _LIMIT for v in values) \
                or task == "classification" and values[0] not in (0.0, 1.0):
            raise DataError(f"Drawn point {k} ({item[:40]!r}) is not a point: it should read "
                            "label_x1_x2 with numbers, the label 0 or 1 for a classification.")
        rows.append(values)
    table = np.round(np.array(rows, dtype=np.float64).reshape(-1, 3), 2)
    return table[:, 1:].copy(), table[:, 0].copy()


def _items(text: str) -> tuple[list[str], int]:
    """The items of a drawn set's text that are points, and the N of its last item
    ``more_N`` (0 without one). A marker that is not ``more_`` and 1 to MAX_POINTS
    ASCII digits stays an item, which :func:`parse` names as not a point."""
    items = [item for item in str(text).split(_ITEM) if item]
    if items and items[-1].startswith(_MORE + _PART):
        n = items[-1][len(_MORE) + 1:]
        if n.isascii() and n.isdigit() and len(n) <= 4 and 0 < int(n) <= MAX_POINTS:
            return items[:-1], int(n)
    return items, 0


def text_of(X: np.ndarray, labels: np.ndarray) -> str:
    """The text of a drawn set (the inverse of :func:`parse`)."""
    return _ITEM.join(_PART.join(_short(v) for v in (label, x1, x2))
                      for (x1, x2), label in zip(np.asarray(X), np.asarray(labels)))


def _short(value: float) -> str:
    return format(round(float(value), 2), ".15g")


def count(text: str) -> int:
    """How many points a drawn set's text holds (without reading them)."""
    return len(_items(text)[0])


def missing(text: str) -> int:
    """How many points were drawn beyond those a link's text holds (its ``more_N``)."""
    return _items(text)[1]


def linked(text: str) -> str:
    """The text a link carries: the first LINK_POINTS points, and ``more_N`` for the
    rest (those left out now and any the text already lacked)."""
    items, more = _items(text)
    if len(items) <= LINK_POINTS:
        return text
    more += len(items) - LINK_POINTS
    return _ITEM.join(items[:LINK_POINTS] + [f"{_MORE}{_PART}{more}"])


def lost_note(text: str) -> str:
    """What the page says when a link's drawn points were more than it holds (plain
    text, "" if none were): this session has only those the link has."""
    more = missing(text)
    return f"{more:,} drawn points could not come back: a link holds {LINK_POINTS}" if more \
        else ""


def lost_message(text: str) -> str:
    """:func:`lost_note`, with why and what to do (the Model page, where points are
    drawn); "" if no point is missing."""
    note = lost_note(text)
    return note and (f"{note} of them, and this server does not have the others (it may "
                     f"have restarted). The fit uses the {count(text):,} the link holds: "
                     "draw the others again, or upload their CSV file.")


def edit(text: str, task: str, x: float, y: float, pixel: tuple[float, float],
         label: float) -> str:
    """The drawn set after a click at (x, y): the point within PICK_PIXELS of it removed
    (``pixel`` is a pixel's size along each axis, in data units), or else a new point
    of ``label`` added there."""
    X, labels = parse(text, task)
    if len(X):
        away = np.hypot((X[:, 0] - x) / pixel[0], (X[:, 1] - y) / pixel[1])
        nearest = int(np.argmin(away))
        if away[nearest] <= PICK_PIXELS:
            keep = np.arange(len(X)) != nearest
            return text_of(X[keep], labels[keep])
    if len(X) >= MAX_POINTS:
        raise DataError(f"A drawn set holds at most {MAX_POINTS:,} points.")
    point = np.round([[x, y]], 2)
    return text_of(np.vstack([X, point]), np.append(labels, label))


def dataset(text: str, task: str) -> Dataset:
    """The drawn points as a dataset; a DataError says what is still missing."""
    X, labels = parse(text, task)
    if task == "regression":
        if len(X) < MIN_POINTS_REGRESSION:
            raise DataError(f"Click the Model page's plane to add points: a regression "
                            f"needs at least {MIN_POINTS_REGRESSION}, and {_have(len(X))} "
                            "drawn.")
        return Dataset(X, labels, FEATURES, "y", task, "drawn points", ())
    counts = np.bincount(labels.astype(int), minlength=2)
    if counts.min() < MIN_POINTS_PER_CLASS:
        raise DataError(f"Click the Model page's plane to add points: the fit needs at "
                        f"least {MIN_POINTS_PER_CLASS} of each class, and there are "
                        f"{counts[0]} of class 0 and {counts[1]} of class 1.")
    return Dataset(X, labels, FEATURES, TARGET, task, "drawn points", CLASSES)


def _have(n: int) -> str:
    return "none is" if n == 0 else "1 is" if n == 1 else f"{n} are"


def csv(text: str, task: str) -> bytes:
    """The drawn set as a CSV file the explorer's upload reads back as the same points."""
    X, labels = parse(text, task)
    lines = [",".join((*FEATURES, TARGET if task == "classification" else "y"))]
    lines += [f"{_short(x1)},{_short(x2)},{_short(label)}" for (x1, x2), label in zip(X, labels)]
    return ("\n".join(lines) + "\n").encode()
