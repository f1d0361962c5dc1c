"""How a chart follows the round in the browser: its template, its bindings and the
per-round tables, all made here from the figure function's own figures.

A figure function draws round m (``draw(trace, m, ...)``). :func:`bind` draws it at
every round as plain dicts (:func:`.panels.plain`: the same figure, not validated) and
compares them: what is the same at every round is the *template*; each property that
changes with the round is a *binding*, whose value at round m comes either

- from a *term*: an array the browser computes from the fit's record with the engine's
  arithmetic (:mod:`explorer.numbers.terms`: F, p, the residuals on the grid or at the
  points), chosen only where it equals the figure's array at every round; or
- from a *table* made here: the figure's own value at each round (titles, labels,
  boxes, colours, the boundary's lines), stored once per distinct value, with numeric
  arrays in binary and repeated values (a few marker sizes, a few class names over a
  map) stored as a dictionary and codes.

So the browser draws exactly the server's figure at every round, and no layout,
formatting or colour rule is written twice: the browser only fills in values.

Round 0 is often another figure (f0, no tree yet); where it is not the template with
other values in its bindings, it is sent whole (``zero``).

The payload (:attr:`Bound.tables`) has the layout of the fit's record
(:func:`explorer.numbers.record.pack`): a JSON header, then the arrays.

Plain Python and numpy: no Streamlit; plotly only to validate the template.
"""

from __future__ import annotations

import base64
import copy
import gc
import hashlib
from contextlib import contextmanager
from dataclasses import dataclass
from operator import attrgetter, itemgetter

import numpy as np
import orjson

from ..numbers import terms as vocabulary
from ..numbers.record import pack, unpack
from .presenter import presented
from .panels import plain

# Beyond these the chart steps through the server (a page says so): the tables of one
# chart, and the rounds drawn to make them (drawing costs 2-5 ms a round).
MAX_TABLE_BYTES = 8 * 2**20
MAX_ROUNDS = 1000
# Where a chart may pass MAX_TABLE_BYTES, its tables are foreseen from its first PROBE
# rounds, and refused at once when they would pass it twice over: drawing every round of
# such a chart only to refuse it took 20 s (a 500-round spiral of depth 8, Tree page).
PROBE = 10
_DICT_MAX = 65535  # distinct values a dictionary-coded array may have


class TooLarge(Exception):
    """The chart's tables would pass the budget: it steps through the server."""


@dataclass(frozen=True)
class Bound:
    """A chart that follows the round in the browser.

    Attributes
    ----------
    template : dict
        The figure at round ``at`` as a plain dict (the bound properties hold that
        round's values).
    at : int
        The template's round.
    bindings : list of dict
        ``{"path": [...], "table": i}`` or ``{"path": [...], "term": [name, k, shift],
        "domain": ..., "dtype": ..., "shape": [...], "gather": i or None}``, and for a
        numeric array whose columns come from different places, ``"columns"``.
    zero : dict or None
        Round 0's whole figure, where it is not the template with other values.
    tables : bytes
        The per-round tables and the arrays they refer to.
    """

    template: dict
    at: int
    bindings: list
    zero: dict | None
    tables: bytes


def draw_rounds(draw, before: tuple, after: tuple, kwargs: dict, rounds,
                present: bool = False) -> list[dict]:
    """``draw(*before, m, *after, **kwargs)`` at each round m, as plain dicts."""
    out = []
    with plain():
        for m in rounds:
            spec = draw(*before, m, *after, **kwargs)
            out.append(presented(spec) if present else spec)
    return out


def bind(draw, trace, grid, before: tuple | None = None, after: tuple = (),
         kwargs: dict | None = None, *, present: bool = False) -> Bound:
    """The template, bindings and tables of ``draw(*before, m, *after, **kwargs)`` for
    every round m of ``trace`` (``before`` is ``(trace,)`` by default), with the terms of
    ``trace`` on ``grid``; raises :class:`TooLarge` beyond the budget."""
    M = trace.n_rounds
    if M > MAX_ROUNDS:
        raise TooLarge(f"its {M} rounds")
    with _collector_paused():
        return _bind(draw, trace, grid, (trace,) if before is None else tuple(before),
                     tuple(after), kwargs or {}, present)


@contextmanager
def _collector_paused():
    """Python's cyclic garbage collector paused (for every thread) while a chart is bound:
    the rounds' figures are hundreds of thousands of dicts, lists and arrays, alive until
    the tables are made, and each full pass of the collector went over all of them (one
    pass, 80-240 ms, in 1 of 3 charts at 500 rounds: 236 ms of the 1,790 ms of a
    2,000-point Tree page's regions). They hold no cycles: reference counting frees them.
    Only the thread that paused it starts it again."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _bind(draw, trace, grid, before: tuple, after: tuple, kwargs: dict,
          present: bool) -> Bound:
    """:func:`bind`'s work, the collector paused."""
    M = trace.n_rounds
    drawn = _foresee(draw, trace, grid, before, after, kwargs, present)
    rest = [m for m in range(M + 1) if m not in drawn]
    drawn.update(zip(rest, draw_rounds(draw, before, after, kwargs, rest, present)))
    figs = [drawn[m] for m in range(M + 1)]
    at = 1 if M >= 1 else 0
    rounds = list(range(at, M + 1))
    paths = _changes(figs, rounds)
    zero = None
    if at == 1:  # round 0 follows the bindings when it differs from round 1 only there
        covered = all(any(_under(p, q) for q, _ in paths) for p, _ in _changes(figs, [1, 0]))
        if covered:
            rounds = list(range(M + 1))
            paths = _with_round_zero(figs, paths)
            if paths is None:
                paths = _changes(figs, rounds)
        else:
            zero = figs[0]
    bindings, payload = _tables(trace, grid, rounds, figs, paths)
    return Bound(template=figs[at], at=at, bindings=bindings, zero=zero, tables=payload)


def _tables(trace, grid, rounds, figs, paths) -> tuple[list, bytes]:
    """The bindings of ``paths`` (the properties that change over ``rounds``) and the
    payload of their tables."""
    builder = _Tables(trace, grid, rounds, figs)
    bindings = [builder.binding(path, values) for path, values in paths]
    return bindings, builder.payload()


def _foresee(draw, trace, grid, before, after, kwargs, present) -> dict:
    """Raise :class:`TooLarge` now if the chart's tables, foreseen from its first
    :data:`PROBE` rounds, would pass twice the budget. Only where the last round's figure,
    counted at every round, passes the budget: elsewhere the tables cannot. Returns the
    figures it drew, by round, for :func:`bind` to keep."""
    M = trace.n_rounds
    if M <= 2 * PROBE:
        return {}
    drawn = {M: draw_rounds(draw, before, after, kwargs, [M], present)[0]}
    if _size(drawn[M]) * (M + 1) <= MAX_TABLE_BYTES:
        return drawn
    drawn.update(enumerate(draw_rounds(draw, before, after, kwargs, range(PROBE + 1),
                                       present)))
    rounds = list(range(1, PROBE + 1))
    foreseen = len(_tables(trace, grid, rounds, drawn, _changes(drawn, rounds))[1]) * M / PROBE
    if foreseen > 2 * MAX_TABLE_BYTES:
        raise TooLarge(f"its tables of about {foreseen / 2**20:.0f} MB (foreseen from its "
                       f"first {PROBE} rounds)")
    return drawn


def _size(node) -> int:
    """About how many bytes a plain figure holds: arrays, strings, 8 a number."""
    if isinstance(node, np.ndarray):
        return node.nbytes
    if isinstance(node, dict):
        return sum(_size(v) for v in node.values())
    if isinstance(node, (list, tuple)):
        return sum(_size(v) for v in node)
    return len(node) if isinstance(node, str) else 8


def _changes(figs, rounds) -> list:
    """(path, values over ``rounds``) of each property of the figures that changes."""
    paths = []
    _diff([figs[m] for m in rounds], [], paths)
    return paths


def _with_round_zero(figs, paths) -> list | None:
    """:func:`_changes` over every round from ``paths``, the changes over rounds 1 to M,
    where round 0 differs from round 1 only below those paths: the same paths, each with
    round 0's value first (rounds compared once, not twice). None where a dict above a
    path lists its keys in another order at round 0 (the paths would come in its order)."""
    out = []
    for path, values in paths:
        zero, one = figs[0], figs[1]
        for key in path:
            if isinstance(one, dict) and not (isinstance(zero, dict) and list(zero) == list(one)):
                return None
            if isinstance(one, list) and not (isinstance(zero, list) and len(zero) == len(one)):
                return None
            zero, one = zero[key], one[key]
        out.append((path, [zero] + values))
    return out


def _under(path, prefix) -> bool:
    return list(path[:len(prefix)]) == list(prefix)


# --- comparing the rounds -------------------------------------------------------------


_SCALARS = (str, int, float, bool, type(None))


def _same(a, b) -> bool:
    if type(a) is type(b) and type(a) in _SCALARS:  # most values: the last line, at once
        return a == b
    a = a.item() if isinstance(a, np.generic) else a
    b = b.item() if isinstance(b, np.generic) else b
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return False
        if type(a) is list and type(b) is list:  # scalars: their types, then the lists' ==
            types = list(map(type, a))
            if all(t in _SCALARS for t in set(types)) and types == list(map(type, b)):
                return a == b
        return all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _diff(values: list, path: list, out: list) -> None:
    """The paths below which ``values`` (one per round) differ, as (path, values); as
    deep as the structure is the same at every round. Each value is compared once, where
    the structure ends: a branch whose children are all the same adds nothing."""
    first = values[0]
    # the types, key sets and items of hundreds of rounds, each taken in one C loop
    kinds = set(map(type, values))
    if all(issubclass(t, dict) for t in kinds):
        if all(map(first.keys().__eq__, map(dict.keys, values))):
            for key in first:
                _diff(list(map(itemgetter(key), values)), path + [key], out)
            return
    elif all(issubclass(t, list) for t in kinds) and first and all(
            len(v) == len(first) and all(issubclass(t, dict) for t in set(map(type, v)))
            for v in values):
        for i in range(len(first)):
            _diff(list(map(itemgetter(i), values)), path + [i], out)
        return
    if not _all_same(values):
        out.append((path, values))


_SHAPE_AND_DTYPE = attrgetter("shape", "dtype")
_STACKED_BYTES = 4 * 2**20  # the rounds of an array compared at once


def _all_same(values: list) -> bool:
    """Whether each value is :func:`_same` as the first, the common cases at once."""
    first = values[0]
    kinds = set(map(type, values))
    if type(first) in _SCALARS and kinds == {type(first)}:
        return values.count(first) == len(values)  # most leaves
    if kinds == {np.ndarray} and first.dtype.kind in "biufc" and len(values) > 2 and len(
            set(map(_SHAPE_AND_DTYPE, values))) == 1:
        # an array that follows the round mostly differs at once; one that does not is
        # compared with the rounds a few MB at a time (np.array_equal round by round cost
        # a third of a chart's diff), with np.array_equal's ==, NaN never equal
        step = max(1, _STACKED_BYTES // max(first.nbytes, 1))
        return _same(first, values[1]) and all(
            bool((np.stack(values[i:i + step]) == first).all())
            for i in range(2, len(values), step))
    if type(first) is list:  # the element types of the first list, once
        types = list(map(type, first))
        if all(t in _SCALARS for t in set(types)):
            return all(v == first if type(v) is list and len(v) == len(first)
                       and list(map(type, v)) == types else _same(first, v)
                       for v in values[1:])
    return all(_same(first, v) for v in values[1:])


# --- the tables -----------------------------------------------------------------------


def _numeric(value) -> np.ndarray | None:
    """A numeric array (None kept as NaN in a list of numbers), or None if not one."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "fiub":
        return value
    # the element types, not the elements, are checked: lists of thousands of numbers
    if isinstance(value, list) and len(value) > 8 and all(
            t is type(None) or (issubclass(t, (int, float)) and not issubclass(t, bool))
            for t in set(map(type, value))):
        return np.array(value, dtype=np.float64)  # None becomes NaN
    return None


class _Tables:
    """Builds the bindings of one chart and its payload."""

    def __init__(self, trace, grid, rounds, figs):
        self.trace, self.grid, self.rounds, self.figs = trace, grid, rounds, figs
        self.terms = vocabulary.available(trace, grid)
        self.cache = {}
        self.arrays: list[np.ndarray] = []
        self.tables: list[dict] = []
        self.size = 0

    # a term's values at round m, computed once per chart
    def term(self, term, m):
        key = (term, m)
        if key not in self.cache:
            self.cache[key] = vocabulary.value(term, self.trace, self.grid, m,
                                               self._probabilities)
        return self.cache[key]

    # the grid's probabilities at round r, which several terms take apart
    def _probabilities(self, r):
        if ("P", r) not in self.cache:
            self.cache["P", r] = vocabulary.grid_probabilities(self.trace, self.grid.F[r])
        return self.cache["P", r]

    def binding(self, path, values) -> dict:
        if all(isinstance(v, np.ndarray) and v.dtype.kind in "fiub" for v in values):
            found = self._from_terms(path, values)
            if found is not None:
                return found
        return dict(path=path, table=self._table(values))

    # --- terms ---
    def _from_terms(self, path, values) -> dict | None:
        shape, dtype = values[0].shape, values[0].dtype
        if any(v.shape != shape or v.dtype != dtype for v in values) or dtype.kind != "f":
            return None
        grid_shape = self.grid.F.shape[1:3] if self.trace.is_multiclass else self.grid.F.shape[1:]
        if shape == tuple(grid_shape) or (len(shape) == 1 and self.grid.is_line
                                           and shape[0] == len(self.grid.xs)):
            term = self._match([v.ravel() for v in values], "grid", None)
            return None if term is None else dict(path=path, term=list(term[:3]),
                                                  domain="grid", dtype=dtype.name,
                                                  shape=list(shape), gather=None)
        n = len(self.trace.y)
        columns = [values] if len(shape) == 1 else (
            [[v[:, j] for v in values] for j in range(shape[1])] if len(shape) == 2 else None)
        if columns is None:
            return None
        gathers = self._gathers(path, shape[0], n)
        parts = []
        for col in columns:
            if all(np.array_equal(col[0], c) for c in col[1:]):
                parts.append(None)  # the template's
                continue
            found = None
            for gather in gathers:
                at = None if gather is None else self.arrays[gather]
                term = self._match(col, "points", at)
                if term is not None:
                    found = dict(term=list(term[:3]), gather=gather)
                    break
            if found is None:
                return None
            parts.append(found)
        if len(shape) == 1:
            return dict(path=path, domain="points", dtype=dtype.name, shape=list(shape),
                        **parts[0])
        return dict(path=path, domain="points", dtype=dtype.name, shape=list(shape),
                    columns=parts)

    def _gathers(self, path, length, n) -> list:
        """The index arrays a points term may be gathered by: all n points, or the
        training indices a trace carries in a column of its customdata."""
        if length == n:
            return [None]
        found = []
        if len(path) >= 2 and path[0] == "data":
            custom = self.figs[self.rounds[0]]["data"][path[1]].get("customdata")
            custom = np.asarray(custom) if custom is not None else None
            if custom is not None and custom.ndim == 2 and custom.shape[0] == length:
                for j in range(custom.shape[1]):
                    col = custom[:, j]
                    if np.all(np.mod(col, 1) == 0) and col.min(initial=0) >= 0 and \
                            col.max(initial=0) < n:
                        found.append(self._array(col.astype("<i4")))
                        break
        return found

    def _match(self, columns, domain, gather) -> tuple | None:
        dtype = columns[0].dtype
        for term in self.terms:
            if term[3] != domain:
                continue
            for m, col in zip(self.rounds, columns):
                v = self.term(term, m)
                if v is None:
                    break
                if gather is not None:
                    v = v[gather]
                if v.shape != col.shape or not np.array_equal(v.astype(dtype), col):
                    break
            else:
                return term
        return None

    # --- tables ---
    def _array(self, a: np.ndarray) -> int:
        a = np.ascontiguousarray(a)
        self.arrays.append(a)
        self.size += a.nbytes
        if self.size > MAX_TABLE_BYTES:
            raise TooLarge(f"its tables of more than {self.size / 2**20:.1f} MB")
        return len(self.arrays) - 1

    def _encode(self, value):
        """A value as JSON, its numeric arrays and long lists of strings moved to binary."""
        if type(value) in _SCALARS:
            return value
        # most of a table's values are scalars in dicts (a tree's boxes and labels), taken
        # as they are where they are met: half the calls
        if isinstance(value, dict):
            return {k: v if type(v) in _SCALARS else self._encode(v) for k, v in value.items()}
        if isinstance(value, np.generic):
            return value.item()
        a = _numeric(value)
        if a is not None:
            kind = "list" if isinstance(value, list) else a.dtype.name
            if a.dtype.kind in "iub":
                a = a.astype("<i4") if a.dtype.kind != "b" else a.astype("u1")
            elif a.dtype not in (np.float32, np.float64):
                a = a.astype(np.float64)
            uniq, codes = np.unique(a, return_inverse=True) if a.size > 64 else (None, None)
            if uniq is not None and len(uniq) <= _DICT_MAX and len(uniq) * 4 < a.size:
                code = codes.astype("u1" if len(uniq) <= 255 else "<u2").reshape(a.shape)
                return {"$": self._array(code.ravel()), "dict": self._array(uniq),
                        "kind": kind, "shape": list(a.shape)}
            return {"$": self._array(a.ravel()), "kind": kind, "shape": list(a.shape)}
        strings = _strings(value)
        if strings is not None:
            flat, shape = strings
            uniq, codes = np.unique(np.array(flat, dtype=object).astype(str), return_inverse=True)
            code = codes.astype("u1" if len(uniq) <= 255 else "<u2")
            return {"$": self._array(code), "words": uniq.tolist(), "shape": shape}
        if isinstance(value, (list, tuple)):
            return [v if type(v) in _SCALARS else self._encode(v) for v in value]
        return value

    def _table(self, values) -> int:
        """One table: each distinct value once, and each round's value by its number."""
        keys, distinct, ids = {}, [], []
        for v in values:
            key = _key(v)
            if key not in keys:
                keys[key] = len(distinct)
                distinct.append(self._encode(v))
            ids.append(keys[key])
        self.tables.append(dict(values=distinct, rounds=ids))
        return len(self.tables) - 1

    def payload(self) -> bytes:
        """The tables (each round's value id, from round ``first`` on) and their arrays."""
        header = dict(first=self.rounds[0], tables=self.tables)
        out = pack(header, {str(i): a for i, a in enumerate(self.arrays)})
        if len(out) > MAX_TABLE_BYTES:
            raise TooLarge(f"its tables of {len(out) / 2**20:.1f} MB")
        return out


def _strings(value):
    """(flat list, shape) of a long list (or list of lists) of strings, else None."""
    if not isinstance(value, list) or not value:
        return None
    if len(value) > 16 and _all_str(value):
        return value, [len(value)]
    width = len(value[0]) if isinstance(value[0], list) else 0
    if len(value) * width > 16 and all(isinstance(row, list) and len(row) == width
                                       for row in value):
        flat = [v for row in value for v in row]
        if _all_str(flat):
            return flat, [len(value), width]
    return None


def _all_str(values: list) -> bool:
    return all(issubclass(t, str) for t in set(map(type, values)))


def _key(value) -> bytes:
    """Equal values, equal keys (numpy arrays by dtype, shape and a digest of their bytes).
    orjson writes NaN as null, as it does None: a figure has neither NaN nor inf in it
    (:func:`.panels.finite`), and in a numeric array the digest tells them apart."""
    return orjson.dumps(value, default=_key_of_numpy,
                        option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def _key_of_numpy(o):
    if isinstance(o, np.generic):  # most: a figure's numbers taken from numpy arrays
        return o.item()
    if isinstance(o, np.ndarray):
        digest = hashlib.sha1(np.ascontiguousarray(o).tobytes()).hexdigest()
        return {"__a": [o.dtype.str, list(o.shape), digest]}
    raise TypeError(type(o))


# --- the browser's side, in Python (tests, and files that step offline) ----------------


def apply(bound: Bound, trace, grid, m: int) -> dict:
    """The figure at round m from the template, the bindings and the tables, as
    ``explorer/browser/bindings.js`` makes it (the terms from :mod:`explorer.numbers.terms`)."""
    return figure_at(bound.template, bound.bindings, bound.tables, bound.zero, trace, grid, m)


def figure_at(template: dict, bound: list, tables: bytes, zero, trace, grid, m: int) -> dict:
    """:func:`apply` from the parts as the browser gets them (``template`` and ``zero``
    may be plotly's JSON, with its typed arrays)."""
    if m == 0 and zero is not None:
        return zero
    header, arrays = unpack(tables)
    arrays = [arrays[str(i)] for i in range(len(arrays))]
    fig = copy.deepcopy(template)
    for b in bound:
        node = fig
        for key in b["path"][:-1]:
            node = node[key]
        last = b["path"][-1]
        node[last] = _value(b, node[last], header, arrays, trace, grid, m)
    return fig


def _value(b, before, header, arrays, trace, grid, m):
    """A binding's value at round m (``before``: the template's)."""
    if "table" in b:
        table = header["tables"][b["table"]]
        return _decode(table["values"][table["rounds"][m - header["first"]]], arrays)
    dtype, shape = np.dtype(b["dtype"]), tuple(b["shape"])
    if b["domain"] == "grid":
        return _term(b, trace, grid, m).astype(dtype).reshape(shape)
    if "columns" not in b:
        return _points(b, arrays, trace, grid, m).astype(dtype)
    out = np.array(_typed(before), dtype=dtype)
    for j, part in enumerate(b["columns"]):
        if part is not None:
            out[:, j] = _points(part, arrays, trace, grid, m).astype(dtype)
    return out


def _typed(value):
    """plotly's JSON of a typed array ({dtype, bdata, shape}) as numpy; else as it is."""
    if isinstance(value, dict) and "bdata" in value:
        a = np.frombuffer(base64.b64decode(value["bdata"]), np.dtype(value["dtype"]))
        shape = value.get("shape")
        return a.reshape([int(k) for k in str(shape).split(",")]) if shape else a
    return value


def _term(part, trace, grid, m):
    return vocabulary.value(tuple(part["term"]) + (None,), trace, grid, m)


def _points(part, arrays, trace, grid, m):
    v = _term(part, trace, grid, m)
    return v if part.get("gather") is None else v[arrays[part["gather"]]]


def _decode(value, arrays):
    """A table's value with its arrays back from binary (bindings.js's decoding)."""
    if isinstance(value, dict) and "$" in value:
        codes = arrays[value["$"]]
        if "words" in value:
            words = np.array(value["words"], dtype=object)[codes]
            return words.reshape(value["shape"]).tolist()
        a = arrays[value["dict"]][codes] if "dict" in value else codes
        a = a.reshape(value["shape"])
        if value["kind"] == "list":
            return [None if np.isnan(v) else v.item() for v in a]
        return a.astype(value["kind"])
    if isinstance(value, dict):
        return {k: _decode(v, arrays) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v, arrays) for v in value]
    return value
