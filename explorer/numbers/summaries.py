"""The numbers the views show, derived from a trace: f0 with its counts, a leaf's sums
and value, a node table, a sample's ledger, the metrics of a round.

Plain numpy, no Streamlit and no plotly. Every number here is read from the trace or
computed with the formulas of MATH.md, so what the app prints is what the engine did.
"""

from __future__ import annotations

import math
import weakref

import numpy as np

from .. import losses
from ..text import bracketed, number

def f0_summary(trace) -> dict:
    """f0 with its counts, in the 0/1 form and in the +-1 form (MATH.md sections 1, 2 and 6).

    Keys: n_pos, n_neg, n, pbar, ybar (mean of the +-1 labels), f0 (the engine's),
    from_counts (log(N+/N-), halved for the exponential loss), from_pm
    (log((1 + ybar)/(1 - ybar)), halved likewise), half (True for exponential),
    p0 (the probability at f0). A regression's f0 is its mean target (regression_f0).
    """
    if not trace.is_classifier:
        return regression_f0(trace)
    if trace.is_multiclass:
        return multiclass_f0(trace)
    y = trace.y
    n = int(len(y))
    n_pos = int(np.count_nonzero(y == 1.0))
    n_neg = n - n_pos
    half = losses.of(trace).half
    factor = 0.5 if half else 1.0
    pbar = n_pos / n
    ybar = float(np.mean(2.0 * y - 1.0))
    from_counts = factor * math.log(n_pos / n_neg) if n_pos and n_neg else float(trace.f0)
    from_pm = (factor * math.log((1.0 + ybar) / (1.0 - ybar))
               if -1.0 < ybar < 1.0 else float(trace.f0))
    return dict(n_pos=n_pos, n_neg=n_neg, n=n, pbar=pbar, ybar=ybar, f0=float(trace.f0),
                from_counts=from_counts, from_pm=from_pm, half=half,
                p0=float(trace.link(np.array([trace.f0]))[0]))


def multiclass_f0(trace) -> dict:
    """f0 with K >= 3 classes. Keys: counts (per class), n, f0 (the engine's, per class),
    p0 (softmax of f0: the class shares, clipped), classes (the labels as text)."""
    counts = np.bincount(trace.y.astype(np.int64), minlength=trace.n_classes)
    f0 = np.asarray(trace.f0, dtype=np.float64)
    return dict(counts=[int(c) for c in counts], n=int(len(trace.y)), f0=f0.tolist(),
                p0=trace.link(f0).tolist(), classes=[str(c) for c in trace.classes])


def regression_f0(trace) -> dict:
    """f0 of squared error: the mean target. Keys: n, sum_y, mean (sum_y / n, recomputed),
    f0 (the engine's)."""
    y = np.asarray(trace.y, dtype=np.float64)
    return dict(n=int(len(y)), sum_y=float(y.sum()), mean=float(y.sum() / len(y)),
                f0=float(trace.f0))


def leaves_of(trace, m: int, k: int = 0) -> np.ndarray:
    """Node ids of the leaves of tree m (of class k), in node order."""
    tree = trace.tree(m, k)
    return np.flatnonzero(tree["left"] < 0)


def most_leaves(trace, k: int = 0) -> int:
    """The most leaves a tree of the fit (of class k) has: (nodes + 1) / 2 in a binary tree."""
    offsets = trace.offsets[k] if trace.is_multiclass else trace.offsets
    return int(np.diff(offsets).max() + 1) // 2


def resolve_leaf(trace, m: int, leaf: int, sample: int, k: int = 0) -> tuple[int, bool]:
    """The leaf of tree m (of class k) to show: ``leaf`` if it is one, else the selected
    sample's leaf.

    Returns (node id, followed) where followed is True when the sample's leaf was used.
    """
    tree = trace.tree(m, k)
    if 0 <= leaf < len(tree) and tree["left"][leaf] < 0:
        return int(leaf), False
    sample = min(max(int(sample), 0), len(trace.y) - 1)
    return int(point_leaves(trace, m, k)[sample]), True


def point_leaves(trace, m: int, k: int = 0) -> np.ndarray:
    """The leaf of every training point in tree m (of class k)."""
    return trace.leaf[m, :, k] if trace.is_multiclass else trace.leaf[m]


def node_scales(trace, m: int, k: int = 0) -> np.ndarray:
    """Σ|r| over each node of tree m (of class k): the sum of the magnitudes of the terms
    of the node's Σr (its in-bag points), the scale below which Σr is rounding noise
    (:func:`explorer.text.settled`)."""
    tree = trace.tree(m, k)
    r = trace.residual(m - 1)
    if trace.is_multiclass:
        r = r[:, k]
    where = point_leaves(trace, m, k).astype(np.int64)
    weight = np.abs(r)
    if trace.in_bag is not None:
        weight = weight * trace.in_bag[m]
    sums = np.bincount(where[where >= 0], weight[where >= 0], minlength=len(tree))
    parent = np.full(len(tree), -1)
    for j in range(len(tree)):
        if tree["left"][j] >= 0:
            parent[tree["left"][j]] = parent[tree["right"][j]] = j
    total = np.zeros(len(tree))
    for j in np.flatnonzero(tree["left"] < 0):  # each leaf's sum adds to its ancestors'
        a = j
        while a >= 0:
            total[a] += sums[j]
            a = parent[a]
    return total


def leaf_summary(trace, m: int, node: int, k: int = 0) -> dict:
    """The numbers of the Newton step of one leaf: sum r / sum h = gamma, times nu.

    Keys: node, n, sum_r, sum_h, gamma (the engine's value), ratio (sum_r / sum_h as
    printed), nu, step (nu * gamma), floored (True when the hessian sum was too small
    and the engine took no step), depth, members (indices of the in-bag training
    samples in the leaf).
    """
    tree = trace.tree(m, k)
    rec = tree[node]
    sum_r, sum_h, n = float(rec["sum_r"]), float(rec["sum_h"]), int(rec["n"])
    ratio = sum_r / sum_h if sum_h != 0 else 0.0
    in_leaf = point_leaves(trace, m, k) == node
    if trace.in_bag is not None:
        in_leaf &= trace.in_bag[m]
    floored = n > 0 and abs(sum_h / n) < losses.HESSIAN_FLOOR
    gamma = float(rec["value"])
    return dict(node=int(node), n=n, sum_r=sum_r, sum_h=sum_h, gamma=gamma, ratio=ratio,
                nu=float(trace.learning_rate), step=float(trace.learning_rate) * gamma,
                floored=bool(floored), depth=int(rec["depth"]),
                members=np.flatnonzero(in_leaf))


def leaf_rule(trace) -> str:
    """How the fit's leaf values were made: "newton", "second_order" (xgboost's
    −G/(H + λ)), "histogram" (scikit-learn's histogram trees, −G/(H + λ)), "mean", or the
    engine's name of another rule ("exact", "line_search")."""
    params = getattr(trace, "params", {}) or {}
    if params.get("split") == "hessian":
        return "second_order"
    if params.get("split") == "histogram":
        return "histogram"
    return str(params.get("leaf", "newton"))


# How losses.line_minimum ends Newton's method on an exact leaf (its three rules)
CONVERGED, STEPS, FLOOR = "converged", "steps", "floor"
MAX_STEPS, STEP_TOLERANCE = 50, 1e-12  # losses.line_minimum's
STOP_WORDS = {  # how each rule reads after "stopped"
    CONVERGED: f"when a step was at most {STEP_TOLERANCE:g} of max(1, |γ|) (converged)",
    STEPS: f"at its limit of {MAX_STEPS} steps",
    FLOOR: f"when the hessian sum Σh fell below its floor {losses.HESSIAN_FLOOR:g}",
}
STOP_MARK = "†"  # on the Tree page's label of a leaf whose Newton's method stopped short
_stops: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # trace -> {m: {node: stop}}


def exact_stop(trace, m: int, node: int) -> dict | None:
    """How Newton's method ended on an exact leaf (leaf="exact"), and where.

    The engine keeps only the value; this runs losses.line_minimum's iterations again on
    the leaf's in-bag points, with the engine's own residual and hessian kernels and its
    order of addition, so it ends where the engine ended and says by which rule. Keys:
    rule (CONVERGED: the last step was at most 1e-12 of max(1, |γ|), a minimiser; STEPS:
    50 steps; FLOOR: Σh below losses.HESSIAN_FLOOR, so no step could be taken), steps
    (Newton steps taken), value (where it stopped), same (value is the recorded leaf
    value, bit for bit), pure (all the leaf's points in one class: no finite
    minimiser), side (+1: its loss falls as γ → +∞, −1: as γ → −∞, 0). None for the
    other leaf rules and for squared error, whose exact leaf is the mean residual.
    """
    if leaf_rule(trace) != "exact" or not trace.is_classifier or trace.is_multiclass:
        return None
    per_round = _stops.setdefault(trace, {}).setdefault(m, {})
    if node not in per_round:
        per_round[node] = _exact_stop(trace, m, node)
    return per_round[node]


def _exact_stop(trace, m, node):
    rec = trace.tree(m)[node]
    mine = point_leaves(trace, m, 0) == node
    if trace.in_bag is not None:
        mine &= trace.in_bag[m]
    mine = np.flatnonzero(mine)  # ascending, as the engine takes a leaf's points
    y, raw = trace.y[mine], trace.raw[m - 1][mine]
    start = float(losses.newton_step(float(rec["sum_r"]), float(rec["sum_h"]),
                                     max(len(mine), 1)))
    stop = newton_iterations(losses.CODES[trace.loss], y, raw, start)
    pure = bool(len(y) and y.min() == y.max())
    return dict(stop, same=stop["value"] == float(rec["value"]), pure=pure,
                side=(1 if y[0] == 1 else -1) if pure else 0)


def newton_iterations(code: int, y, raw, t: float) -> dict:
    """losses.line_minimum along a leaf (direction 1) from t, in Python, saying how it
    ended: dict(value, rule, steps) with rule CONVERGED, STEPS or FLOOR.

    The engine's own residual and hessian kernels, and its order of addition (term by
    term from 0, not numpy's pairwise sum), so that it stops where the engine stops, at
    the same value to the last bit."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    raw = np.ascontiguousarray(raw, dtype=np.float64)
    r, h = np.empty_like(raw), np.empty_like(raw)
    rule, steps = STEPS, 0
    for _ in range(MAX_STEPS):
        losses.negative_gradient(code, y, raw + t, r)
        losses.hessian(code, y, r, h)
        num = float(np.add.accumulate(r)[-1]) if len(r) else 0.0
        den = float(np.add.accumulate(h)[-1]) if len(h) else 0.0
        if abs(den) < losses.HESSIAN_FLOOR:
            rule = FLOOR
            break
        step = num / den
        t += step
        steps += 1
        if abs(step) <= STEP_TOLERANCE * max(1.0, abs(t)):
            rule = CONVERGED
            break
    return dict(value=float(t), rule=rule, steps=steps)


def exact_stops(trace, m: int) -> dict:
    """{leaf node: exact_stop} for every leaf of tree m that stopped short of a minimiser
    (by 50 steps or the hessian's floor); empty for the other leaf rules."""
    if leaf_rule(trace) != "exact" or not trace.is_classifier or trace.is_multiclass:
        return {}
    out = {}
    for node in leaves_of(trace, m):
        stop = exact_stop(trace, m, int(node))
        if stop is not None and stop["rule"] != CONVERGED:
            out[int(node)] = stop
    return out


def stop_note(stop: dict, symbol: str = "γ") -> str:
    """Where and why Newton's method stopped on an exact leaf, for a leaf that stopped
    short of a minimiser: the rule that ended it, and no argmin claimed."""
    n = stop["steps"]
    when = "" if stop["rule"] == STEPS else \
        " before any step" if n == 0 else f" after {n} step{'s' if n != 1 else ''}"
    why = (f"the loss keeps falling as {symbol} → {'+∞' if stop['side'] > 0 else '−∞'}, "
           "so there is none" if stop["pure"] else "none was reached")
    return (f"the point where Newton's method on Σ L(y, F + {symbol}) over the leaf "
            f"stopped{when}{', ' if when else ' '}{STOP_WORDS[stop['rule']]} (not an "
            f"argmin: {why})")


def leaf_formula(trace, m: int, node: int, k: int = 0) -> dict:
    """The rule that gave the leaf its value, with its numbers: what the fit used.

    Keys: rule (see leaf_rule), symbol ("w" for second-order trees, as xgboost's
    documentation writes a leaf weight; else "γ"), numerator, denominator, factor (value
    = factor * numerator / denominator: (K - 1)/K for K >= 3 classes' Newton leaves, ρ_m
    for line search, else 1; numerator and denominator are None for the exact minimiser,
    which has no closed form), value (the engine's), lam (λ of the rules with one), rho
    (line search's ρ_m, else None), n, sum_r, sum_h, and the text: formula (the rule in
    letters: "γ = Σr / Σh"), numbers (the same with the leaf's numbers, "49 / 24.5", which
    evaluates to the value at the printed precision once × and − are read as * and -)
    and derivation ("γ = Σr / Σh = 49 / 24.5 = 2"). The rule is checked against the
    recorded value; a mismatch (a floored hessian) gives no numbers.
    """
    rec = trace.tree(m, k)[node]
    sum_r, sum_h, n = float(rec["sum_r"]), float(rec["sum_h"]), int(rec["n"])
    value = float(rec["value"])
    rule = leaf_rule(trace)
    params = getattr(trace, "params", {}) or {}
    lam = float(params.get("reg_lambda", 0.0)) if rule in ("second_order", "histogram") else 0.0
    K = trace.n_classes or 2
    symbol = "w" if rule == "second_order" else "γ"
    regression = not trace.is_classifier
    factor, factor_text, rho = 1.0, "", None
    if rule in ("second_order", "histogram"):
        den, formula = sum_h + lam, "−G / (H + λ) = Σr / (Σh + λ)"
        shown = f"{_n(sum_r)} / ({_n(sum_h)} + {_n(lam)})"
    elif rule == "mean" or (regression and rule in ("newton", "exact")):
        den, formula = float(n), "Σr / n"
        shown = f"{_n(sum_r)} / {n}"
    elif rule == "line_search":
        rho = float(trace.rho[m]) if trace.rho is not None else 1.0
        den, factor, formula = float(n), rho, f"ρ{str(m).translate(_SUB)} · Σr / n"
        shown = f"{_n(rho)} × ({_n(sum_r)} / {n})"
    elif rule == "newton":
        den, formula = sum_h, "Σr / Σh"
        shown = f"{_n(sum_r)} / {_n(sum_h)}"
        if trace.is_multiclass:
            factor, factor_text = (K - 1) / K, f"{K - 1}/{K}"
            formula = f"{factor_text} · Σr / Σh"
            shown = f"{factor_text} × {_bracketed(sum_r)} / {_n(sum_h)}"
    else:  # the exact minimiser: no closed form, and not always a minimiser
        den, formula, shown = None, "argmin_γ Σ L(y, F + γ) over the leaf", None
        stop = exact_stop(trace, m, node)
        if stop is not None and stop["rule"] != CONVERGED:
            formula = stop_note(stop, symbol)
    numerator = sum_r if den is not None else None
    if den is not None:
        ratio = factor * sum_r / den if den != 0 else 0.0
        tol = 1e-9 if rule in ("newton", "mean") else 1e-6  # float32 trees, ρ's iterations
        if not math.isclose(ratio, value, rel_tol=tol, abs_tol=tol):
            numerator = den = shown = None
    result = _n(value)
    derivation = f"{symbol} = {formula} = " + (f"{shown} = {result}" if shown else result)
    return dict(rule=rule, symbol=symbol, numerator=numerator, denominator=den, value=value,
                lam=lam, rho=rho, n=n, sum_r=sum_r, sum_h=sum_h, factor=factor,
                formula=f"{symbol} = {formula}", numbers=shown, derivation=derivation)


_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _n(x) -> str:
    return number(x).replace("-", "−")


def _bracketed(x) -> str:
    return bracketed(x).replace("-", "−")


def node_table(trace, m: int, feature_names=("x1", "x2"), k: int = 0) -> list[dict]:
    """One row per node of tree m (of class k), for a table: split, n, sums, improvement,
    value."""
    tree = trace.tree(m, k)
    rows = []
    for k, rec in enumerate(tree):
        is_leaf = rec["left"] < 0
        rows.append({
            "node": k,
            "depth": int(rec["depth"]),
            "kind": "leaf" if is_leaf else "split",
            "split": "" if is_leaf else
            f"{feature_names[int(rec['feature'])]} ≤ {float(rec['threshold']):.6g}",
            "n": int(rec["n"]),
            "Σ r": float(rec["sum_r"]),
            "Σ h": float(rec["sum_h"]),
            "improvement": float(rec["improvement"]),
            "value γ": float(rec["value"]) if is_leaf else None,
            "ν·γ": float(trace.learning_rate * rec["value"]) if is_leaf else None,
        })
    return rows


def ledger(trace, i: int) -> dict:
    """Sample i's account, one entry per round m = 0..M (arrays of length M + 1).

    round; leaf (node id in tree m, -1 at round 0); in_bag (None without subsampling);
    residual (r fitted by tree m, that is r at F_(m-1); NaN-free: 0 at round 0);
    gamma (its leaf's value; 0 at round 0); update (nu * gamma); F (F_m); p (p_m; None
    for a regression). With K >= 3 classes leaf, residual, gamma, update, F and p have a
    last axis of K classes: (M + 1, K), the sample in each of the round's K trees.
    """
    if trace.is_multiclass:
        return _class_ledger(trace, i)
    M = trace.n_rounds
    rounds = np.arange(M + 1)
    leaf = np.asarray(trace.leaf[:, i], dtype=np.int64).copy()
    leaf[0] = -1
    gamma = np.zeros(M + 1)
    # tree m is nodes[offsets[m - 1]:offsets[m]], so its node k is nodes[offsets[m - 1] + k]
    gamma[1:] = trace.nodes["value"][np.asarray(trace.offsets[:M], dtype=np.int64) + leaf[1:]]
    r = trace.sample_residuals(i)  # the trace's own: float32 for second-order trees
    fitted = np.zeros(M + 1)
    fitted[1:] = r[:-1]
    F = np.asarray(trace.raw[:, i], dtype=np.float64)
    in_bag = None if trace.in_bag is None else np.asarray(trace.in_bag[:, i], dtype=bool)
    return dict(round=rounds, leaf=leaf, in_bag=in_bag, residual=fitted, gamma=gamma,
                update=trace.learning_rate * gamma, F=F,
                p=trace.link(F) if trace.is_classifier else None,
                y=float(trace.y[i]), x=np.asarray(trace.X[i], dtype=np.float64))


def _class_ledger(trace, i: int) -> dict:
    """ledger() with K >= 3 classes: one column per class."""
    M, K = trace.n_rounds, trace.n_classes
    leaf = np.asarray(trace.leaf[:, i, :], dtype=np.int64).copy()
    leaf[0] = -1
    gamma = np.zeros((M + 1, K))
    for k in range(K):  # tree (m, k) is nodes[offsets[k, m - 1]:offsets[k, m]]
        gamma[1:, k] = trace.nodes["value"][np.asarray(trace.offsets[k, :M], dtype=np.int64)
                                            + leaf[1:, k]]
    r = trace.sample_residuals(i)
    fitted = np.zeros((M + 1, K))
    fitted[1:] = r[:-1]
    F = np.asarray(trace.raw[:, i, :], dtype=np.float64)
    in_bag = None if trace.in_bag is None else np.asarray(trace.in_bag[:, i], dtype=bool)
    return dict(round=np.arange(M + 1), leaf=leaf, in_bag=in_bag, residual=fitted, gamma=gamma,
                update=trace.learning_rate * gamma, F=F, p=trace.link(F), y=float(trace.y[i]),
                x=np.asarray(trace.X[i], dtype=np.float64))


def round_metrics(trace, m: int) -> dict:
    """Loss and accuracy at round m (None where there is no validation set)."""
    def at(a):
        return None if a is None else float(a[m])
    return dict(train_loss=at(trace.train_loss), valid_loss=at(trace.valid_loss),
                train_accuracy=at(trace.train_accuracy), valid_accuracy=at(trace.valid_accuracy))

