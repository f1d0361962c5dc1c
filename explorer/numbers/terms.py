"""What the browser computes from a fit's record at round m: the terms of record.js.

A chart that follows the round in the browser gets its round-dependent arrays either
from a per-round table made here in Python (:mod:`explorer.figures.bindings`), or, where
they are too large to ship for every round (a map over the plane, a value per point),
from one of these terms, which ``explorer/browser/record.js`` computes from the record with
the engine's arithmetic. Each term below is the Python value of the same quantity,
exactly as the figures compute it; a chart's array is bound to a term only where the two
are equal at every round, so nothing the browser draws differs from the server's figure.

Terms, as (name, k, shift): class k (0 below three classes), round m + shift.

========  ======================================================================
gF        F on the grid (float32, clipped to +-1e30: ``Grid.F``)
gT        nu * tree m on the grid (:func:`..grid.tree_on_grid`)
gp        p(class 1) on the grid: the link of F (two classes)
gpk       p_k on the grid: the softmax of the clipped F (K >= 3)
gtop      the largest p_k on the grid (K >= 3)
gshade    the class map's value: the most probable class plus how sure (K >= 3)
pF        F at the training points (float64)
pp        p at the training points (p_k with K >= 3)
pr        the pseudo-residual at the training points (log-loss, squared error, K >= 3)
========  ======================================================================

Plain numpy: no Streamlit, no plotly.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

import numpy as np

from .grid import tree_on_grid

BIG = 1e6  # figures.panels.finite's clip: the class probabilities are taken of F within it
SURE = 0.999  # the class map: z = class + 0.999 * certainty, below the next class


def class_shade(P: np.ndarray) -> np.ndarray:
    """The class map's value of each cell: its most probable class k plus 0.999 times
    how sure the model is there (0 at p_k = 1/K, 1 at p_k = 1), so that one colour scale
    gives each class a band from pale to full."""
    K = P.shape[-1]
    best = np.argmax(P, axis=-1)
    top = np.take_along_axis(P, best[..., None], axis=-1)[..., 0]
    sure = np.clip((top - 1.0 / K) / (1.0 - 1.0 / K), 0.0, 1.0)
    return best + SURE * sure


# grid_probabilities by what decides them (the link and F): with K >= 3 classes the class
# map draws each round's p_k and its binding then matches its terms against the same p_k
# (the softmax over the last axis, numpy's slow reduction, was a third of that chart)
_KEPT: OrderedDict = OrderedDict()
_KEPT_BYTES = 64 * 2**20  # a 100 x 100 grid's p_k of 3 classes for 280 rounds
_KEPT_LOCK = threading.Lock()
_kept = [0]  # the bytes kept


def grid_probabilities(trace, F32: np.ndarray) -> np.ndarray:
    """p (two classes) or the p_k (K >= 3) of one round's grid F, as the maps draw them
    (a new array each time: the caller's own)."""
    F32 = np.ascontiguousarray(F32)
    key = (trace.is_multiclass, trace.loss, F32.dtype.str, F32.shape,
           hashlib.blake2b(F32.tobytes(), digest_size=20).digest())
    with _KEPT_LOCK:
        P = _KEPT.get(key)
        if P is not None:
            _KEPT.move_to_end(key)
    if P is None:
        P = _probabilities(trace, F32)
        with _KEPT_LOCK:
            if key not in _KEPT:
                _KEPT[key] = P
                _kept[0] += P.nbytes
            while _kept[0] > _KEPT_BYTES and _KEPT:
                _kept[0] -= _KEPT.popitem(last=False)[1].nbytes
    return P.copy()


def _probabilities(trace, F32: np.ndarray) -> np.ndarray:
    """:func:`grid_probabilities`, computed."""
    # NaN as 0 and every value within +-BIG, as np.nan_to_num then np.clip made them (a
    # third of the time in np.nan_to_num, which first made the infinities the largest floats)
    F = np.array(F32, dtype=np.float64)
    np.clip(F, -BIG, BIG, out=F)
    F[np.isnan(F)] = 0.0
    return trace.link(F)


def available(trace, grid) -> list[tuple]:
    """The terms record.js computes for this fit, each with its domain ("grid" or
    "points"), as (name, k, shift, domain)."""
    K = trace.n_classes if trace.is_multiclass else 1
    found = []
    for k in range(K):
        for shift in (0, -1):
            found += [("gF", k, shift, "grid"), ("pF", k, shift, "points")]
            if _residuals_in_browser(trace):
                found.append(("pr", k, shift, "points"))
        found.append(("gT", k, 0, "grid"))
        if trace.is_classifier:
            found += [("gpk" if K > 1 else "gp", k, 0, "grid"), ("pp", k, 0, "points")]
    if K > 1:
        found += [("gtop", 0, 0, "grid"), ("gshade", 0, 0, "grid")]
    return found


def _residuals_in_browser(trace) -> bool:
    """record.js computes the residuals of these losses (scikit-learn's arithmetic); the
    others' (second-order and histogram trees' float32 gradients, the exponential loss)
    come as tables."""
    return not (trace.second_order or trace.histogram) and (
        trace.is_multiclass or trace.loss in ("log_loss", "squared_error"))


def value(term: tuple, trace, grid, m: int, probabilities=None) -> np.ndarray | None:
    """The term's values at round m, flat (float64), or None where it has none (a round
    before 0, or no tree at round 0). ``probabilities(r)``, where given, is round r's
    :func:`grid_probabilities` kept by the caller, who asks for several terms of one
    round."""
    name, k, shift, _ = term
    r = m + shift
    if r < 0 or (name == "gT" and m < 1):
        return None
    multi = trace.is_multiclass
    if name == "gF":
        F = grid.F[r]
        return np.asarray(F[..., k] if multi else F, dtype=np.float64).ravel()
    if name == "gT":
        return np.asarray(tree_on_grid(trace, m, grid, k), dtype=np.float64).ravel()
    if name in ("gp", "gpk", "gtop", "gshade"):
        P = probabilities(r) if probabilities else grid_probabilities(trace, grid.F[r])
        if name == "gp":
            return P.ravel()
        if name == "gpk":
            return P[..., k].ravel()
        return (P.max(axis=-1) if name == "gtop" else class_shade(P)).ravel()
    if name == "pF":
        F = trace.raw[r]
        return np.asarray(F[:, k] if multi else F, dtype=np.float64)
    if name == "pp":
        p = trace.proba(r)
        return p[:, k] if multi else p
    if name == "pr":
        res = trace.residual(r)
        return res[:, k] if multi else res
    raise ValueError(f"no term named {name!r}")

