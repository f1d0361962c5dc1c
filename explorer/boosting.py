"""Gradient boosting, fitted the way scikit-learn's GradientBoostingClassifier
(and GradientBoostingRegressor) fits it, recording every round.

Algorithm (Friedman's TreeBoost with one Newton step per leaf):
    F_0 = f0, the best constant
    for m = 1..M:
        r_i = -dL/dF at F_(m-1)(x_i)                    (pseudo-residuals; y - p for log-loss)
        fit a squared-error regression tree to r       (regions R_jm)
        gamma_jm = sum r / sum h over the leaf         (Newton step; the mean r for squared error)
        F_m = F_(m-1) + nu * gamma_j(x)

The whole loop runs in one compiled call; Python only checks the input, draws
scikit-learn's random numbers and wraps the record in a Trace.
"""

import numbers
import threading

import numpy as np
from numba import njit

from . import losses
from .losses import SQUARED_ERROR
from .trace import Trace
from .tree import NODE, apply, grow_best_first, grow_depth_first, presort, restrict_order

FLOAT32_MAX = float(np.finfo(np.float32).max)
MAX_ROUNDS = 5000
_NO_LIMIT = np.iinfo(np.int32).max  # scikit-learn's depth for max_depth=None


def fit(X, y, *, loss="log_loss", n_rounds=100, learning_rate=0.1, max_depth=3,
        max_leaves=None, min_samples_leaf=1, min_samples_split=2, subsample=1.0,
        random_state=0, X_valid=None, y_valid=None):
    """Fit gradient boosting and record every round.

    Builds the model scikit-learn's GradientBoostingClassifier (loss "log_loss" or
    "exponential") or GradientBoostingRegressor (loss "squared_error") builds with
    n_estimators=n_rounds, max_leaf_nodes=max_leaves and the same other parameters:
    the same trees and the same raw scores at every round.

    Parameters
    ----------
    X : array-like of shape (n, d)
    y : array-like of shape (n,)
        Two distinct labels for classification (the larger one is class 1), numbers
        for regression.
    loss : {"log_loss", "exponential", "squared_error"}
    n_rounds : int in 1..5000
    learning_rate : float in (0, 10]
    max_depth : int >= 1 or None (unlimited)
    max_leaves : int >= 2 or None; when set, trees grow best-first
    min_samples_leaf : int >= 1
    min_samples_split : int >= 2
    subsample : float in (0, 1]; each tree sees this fraction of the samples
    random_state : int in 0..2**32 - 1
    X_valid, y_valid : optional validation data, for the validation loss

    Returns
    -------
    Trace

    Raises
    ------
    ValueError
        Naming the parameter or problem, the value given and what is allowed.
    """
    if loss not in losses.CODES:
        raise ValueError(f"loss must be one of {sorted(losses.CODES)}; got {loss!r}.")
    code = losses.CODES[loss]
    n_rounds = _int_param("n_rounds", n_rounds, 1, MAX_ROUNDS)
    learning_rate = _float_param("learning_rate", learning_rate, 0.0, 10.0, "(0, 10]")
    max_depth = _NO_LIMIT if max_depth is None else _int_param("max_depth", max_depth, 1, 1000)
    if max_leaves is not None:
        max_leaves = _int_param("max_leaves", max_leaves, 2, 1_000_000)
    min_samples_leaf = _int_param("min_samples_leaf", min_samples_leaf, 1, 1_000_000_000)
    min_samples_split = _int_param("min_samples_split", min_samples_split, 2, 1_000_000_000)
    subsample = _float_param("subsample", subsample, 0.0, 1.0, "(0, 1]")
    random_state = _int_param("random_state", random_state, 0, 2**32 - 1)

    X = _features("X", X)
    y, classes = _targets("y", y, X.shape[0], code)
    if (X_valid is None) != (y_valid is None):
        raise ValueError("X_valid and y_valid must be given together; got only one of them.")
    if X_valid is not None:
        X_valid = _features("X_valid", X_valid)
        if X_valid.shape[1] != X.shape[1]:
            raise ValueError(f"X_valid has {X_valid.shape[1]} features; X has {X.shape[1]}.")
        y_valid = _encode_valid(y_valid, X_valid.shape[0], classes)

    # scikit-learn's random numbers: per round, the bag's uniforms, then the tree's seed.
    n = X.shape[0]
    rng = np.random.RandomState(random_state)
    n_in_bag = max(1, int(subsample * n))
    uniforms = np.empty((n_rounds if subsample < 1.0 else 0, n))
    seeds = np.empty(n_rounds, dtype=np.int64)
    for m in range(n_rounds):
        if subsample < 1.0:
            uniforms[m] = rng.uniform(size=n)
        seeds[m] = rng.randint(0, 2**31 - 1)

    X32 = np.ascontiguousarray(X, dtype=np.float32)
    f0 = losses.initial_score(code, y)
    with _fits_lock:
        _fits["started"] += 1
    raw, leaf, in_bag, nodes, offsets = _boost(
        X32, y, code, f0, learning_rate, max_depth, -1 if max_leaves is None else max_leaves,
        min_samples_leaf, min_samples_split, n_in_bag, uniforms, seeds, presort(X32))
    params = dict(loss=loss, n_rounds=n_rounds, learning_rate=learning_rate,
                  max_depth=None if max_depth == _NO_LIMIT else max_depth,
                  max_leaves=max_leaves, min_samples_leaf=min_samples_leaf,
                  min_samples_split=min_samples_split, subsample=subsample,
                  random_state=random_state)
    return Trace(params=params, classes=classes, X=X, y=y, X_valid=X_valid, y_valid=y_valid,
                 f0=f0, raw=raw, leaf=leaf, in_bag=in_bag if subsample < 1.0 else None,
                 nodes=nodes, offsets=offsets)


_fits = {"started": 0}
_fits_lock = threading.Lock()


def fit_count():
    """How many fits this process has started (one fit should serve every user of the same settings)."""
    return _fits["started"]


# --- input checks -------------------------------------------------------------


def _int_param(name, value, low, high):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer in {low}..{high}; got {value!r}.")
    if not low <= value <= high:
        raise ValueError(f"{name} must be in {low}..{high}; got {value}.")
    return int(value)


def _float_param(name, value, low, high, allowed):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number in {allowed}; got {value!r}.")
    if not (low < value <= high):  # NaN fails this too
        raise ValueError(f"{name} must be in {allowed}; got {value}.")
    return float(value)


def _features(name, X):
    try:
        X = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric; could not read it as numbers ({exc}).") from None
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (samples x features); got {X.ndim}-D.")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} is empty: shape {X.shape}; need at least one sample and feature.")
    if not np.isfinite(X).all():
        raise ValueError(f"{name} contains NaN or infinite values; remove or fill them first.")
    if np.abs(X).max() > FLOAT32_MAX:
        raise ValueError(f"{name} has values beyond float32's range (|x| > {FLOAT32_MAX:.3g}); "
                         "rescale the data.")
    return X


def _targets(name, y, n, code):
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got shape {y.shape}.")
    if y.shape[0] != n:
        raise ValueError(f"X and {name} have different lengths: {n} and {y.shape[0]}.")
    if code == SQUARED_ERROR:
        try:
            y = y.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be numeric for squared_error.") from None
        if not np.isfinite(y).all():
            raise ValueError(f"{name} contains NaN or infinite values.")
        if np.abs(y).max() > FLOAT32_MAX:
            raise ValueError(f"{name} has values beyond float32's range; rescale it.")
        return y, None
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError(f"{name} contains NaN or infinite labels.")
    classes = np.unique(y)
    if classes.shape[0] != 2:
        raise ValueError(f"{name} must hold exactly two classes for classification; "
                         f"found {classes.shape[0]}: {classes[:5].tolist()}.")
    return (y == classes[1]).astype(np.float64), classes


def _encode_valid(y, n, classes):
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(f"y_valid must be 1-D with one label per row of X_valid ({n}); "
                         f"got shape {y.shape}.")
    if classes is None:
        return _targets("y_valid", y, n, SQUARED_ERROR)[0]
    unknown = np.setdiff1d(np.unique(y), classes)
    if unknown.size:
        raise ValueError(f"y_valid has labels not in y: {unknown[:5].tolist()}.")
    return (y == classes[1]).astype(np.float64)


# --- the compiled loop ---------------------------------------------------------


@njit(cache=True, nogil=True)
def _boost(X, y, code, f0, learning_rate, max_depth, max_leaves, min_samples_leaf,
           min_samples_split, n_in_bag, uniforms, seeds, order):
    n = X.shape[0]
    n_rounds = seeds.shape[0]
    raw = np.empty((n_rounds + 1, n))
    raw[0, :] = f0
    leaf = np.full((n_rounds + 1, n), -1, dtype=np.int32)
    bagging = uniforms.shape[0] > 0
    in_bag = np.ones((n_rounds + 1 if bagging else 0, n), dtype=np.bool_)
    nodes = np.empty(64 * n_rounds, dtype=NODE)
    offsets = np.zeros(n_rounds + 1, dtype=np.int64)
    r = np.empty(n)
    h = np.empty(n)
    buffer = np.empty(n)
    members = np.empty(n, dtype=np.int64)
    rng = np.zeros(1, dtype=np.int64)
    everyone = np.empty(0, dtype=np.bool_)
    k = 0
    for m in range(1, n_rounds + 1):
        losses.negative_gradient(code, y, raw[m - 1], r)
        if bagging:
            _bag(uniforms[m - 1], n_in_bag, in_bag[m])
            samples = np.flatnonzero(in_bag[m])
            tree_order = restrict_order(order, in_bag[m])
        else:
            samples = np.arange(n)
            tree_order = order.copy()
        rng[0] = seeds[m - 1]
        k0 = k
        if max_leaves > 0:
            nodes, k = grow_best_first(X, r, samples, tree_order, nodes, k0, max_depth, max_leaves,
                                       min_samples_split, min_samples_leaf, rng)
        else:
            nodes, k = grow_depth_first(X, r, samples, tree_order, nodes, k0, max_depth,
                                        min_samples_split, min_samples_leaf, rng)
        offsets[m] = k
        tree = nodes[k0:k]
        apply(tree, X, leaf[m])
        if code != SQUARED_ERROR:  # squared error keeps the tree's own means
            losses.hessian(code, y, r, h)
            _newton_leaves(tree, leaf[m], in_bag[m] if bagging else everyone, r, h, buffer, members)
        _sum_up(tree)
        for i in range(n):
            raw[m, i] = raw[m - 1, i] + learning_rate * tree[leaf[m, i]].value
    return raw, leaf, in_bag, nodes[:k].copy(), offsets


@njit(cache=True, nogil=True)
def _bag(uniforms, n_in_bag, mask):
    """scikit-learn's _random_sample_mask: exactly n_in_bag samples, each equally likely."""
    n = uniforms.shape[0]
    taken = 0
    for i in range(n):
        mask[i] = uniforms[i] * (n - i) < (n_in_bag - taken)
        if mask[i]:
            taken += 1


@njit(cache=True, nogil=True)
def _newton_leaves(tree, leaf_of, in_bag, r, h, buffer, members):
    """Set every leaf to mean(r) / mean(h) over its in-bag samples.

    The samples of a leaf are taken in ascending index order and summed pairwise,
    as numpy sums them for scikit-learn, so the value matches to the last bit.
    """
    n_nodes = tree.shape[0]
    start = np.zeros(n_nodes + 1, dtype=np.int64)
    bagging = in_bag.shape[0] > 0
    for i in range(leaf_of.shape[0]):
        if not bagging or in_bag[i]:
            start[leaf_of[i] + 1] += 1
    for j in range(n_nodes):
        start[j + 1] += start[j]
    fill = start[:-1].copy()
    for i in range(leaf_of.shape[0]):
        if not bagging or in_bag[i]:
            members[fill[leaf_of[i]]] = i
            fill[leaf_of[i]] += 1
    for j in range(n_nodes):
        count = start[j + 1] - start[j]
        if tree[j].left != -1 or count == 0:
            continue
        for q in range(count):
            buffer[q] = r[members[start[j] + q]]
        sum_r = losses.pairwise_sum(buffer, count)
        for q in range(count):
            buffer[q] = h[members[start[j] + q]]
        sum_h = losses.pairwise_sum(buffer, count)
        tree[j].sum_r = sum_r
        tree[j].sum_h = sum_h
        tree[j].value = losses.newton_step(sum_r, sum_h, count)


@njit(cache=True, nogil=True)
def _sum_up(tree):
    """An inner node's sums are its children's (children always follow their parent)."""
    for j in range(tree.shape[0] - 1, -1, -1):
        if tree[j].left != -1:
            tree[j].sum_r = tree[tree[j].left].sum_r + tree[tree[j].right].sum_r
            tree[j].sum_h = tree[tree[j].left].sum_h + tree[tree[j].right].sum_h


def warmup():
    """Compile every kernel once, with the dtypes the app uses (cached on disk by numba)."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(float)
    for loss in ("log_loss", "exponential"):
        tr = fit(X, y, loss=loss, n_rounds=2, subsample=0.8, X_valid=X, y_valid=y)
        fit(X, y, loss=loss, n_rounds=2, max_leaves=3)
    tr.staged_decision_function(X)
    fit(X, X[:, 1], loss="squared_error", n_rounds=2).decision_function(X)
