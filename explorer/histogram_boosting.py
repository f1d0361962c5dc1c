"""Histogram boosting: the model scikit-learn's HistGradientBoostingClassifier and
HistGradientBoostingRegressor build (``early_stopping=False``), round by round.

Algorithm (MATH.md section 6b):
    bin every feature once (binning.py)
    F_0 = f0, the baseline
    for m = 1..M:
        g, h = the loss's gradient and hessian at F_(m-1), float32 (all K classes first)
        for each class k (one tree for 2 classes or a regression):
            grow a histogram tree best-first on (g_k, h_k)      (histogram_tree.py)
            F_mk = F_(m-1)k + nu * v_leaf(x)

The gradients are scikit-learn's formulas, computed in double and stored as float32:
log-loss from e = exp(-F) with its branch below -37, the softmax with the row's maximum
subtracted, squared error F - y with a constant hessian. The baselines are computed in
Python with numpy and scipy, as scikit-learn computes them.

The rounds run in one compiled call; Python bins the data, computes the baseline and
wraps the record.
"""

import math

import numpy as np

from .kernel import kernel
from . import binning, histogram, histogram_tree
from .histogram_tree import HIST_NODE
from .losses import softmax_row
from .nodes import NODE

BINARY, MULTINOMIAL, SQUARED = 0, 1, 2  # the losses of histogram boosting, as kernel codes


def baseline(kind, y, n_classes):
    """F_0 as scikit-learn's HistGradientBoosting computes it, as array (K,) (K = 1 for
    two classes or a regression).

    Two classes: logit of the mean label clipped to [10 eps, 1 - 10 eps]; K classes: the
    class shares clipped to [eps, 1 - eps], then log(p_k / geometric mean of p); squared
    error: the mean of y.
    """
    if kind == SQUARED:
        return np.array([np.average(y)])
    if kind == BINARY:
        from scipy.special import logit  # scikit-learn's; imported late, as the app starts faster
        eps = 10 * np.finfo(np.float64).eps
        return np.array([logit(np.clip(np.average(y), eps, 1 - eps))])
    from scipy.stats import gmean
    eps = np.finfo(np.float64).eps
    shares = np.array([np.clip(np.average(y == k), eps, 1 - eps) for k in range(n_classes)])
    return np.log(shares[None, :] / gmean(shares[None, :], axis=1)[:, None]).reshape(-1)


def boost(X, y, kind, n_classes, *, max_bins, n_rounds, learning_rate, max_leaves, max_depth,
          min_samples_leaf, reg_lambda, random_state):
    """Bin X, then run every round. ``y`` holds class indices (float64) or targets.

    Returns
    -------
    dict with f0 ((K,) array), raw ((M + 1, n, K) float64), leaf ((M + 1, n, K) int32),
    nodes (NODE), info (HIST_NODE) and offsets ((M K + 1,), trees in round order, the K
    trees of a round in class order), and cuts (the bin thresholds, one array a feature).
    """
    cuts = binning.thresholds(X, max_bins, random_state)
    binned = binning.bin_columns(X, cuts)
    n_bins = binning.n_bins(cuts)
    padded = np.zeros((X.shape[1], max(1, max_bins)))
    for f, thr in enumerate(cuts):
        padded[f, :len(thr)] = thr
    K = n_classes if kind == MULTINOMIAL else 1
    f0 = baseline(kind, y, n_classes)
    ml = -1 if max_leaves is None else max_leaves
    md = -1 if max_depth is None else max_depth
    cap = histogram_tree.capacity(X.shape[0], ml, md, min_samples_leaf)
    # leaf ids in the smallest integer that holds them (1 byte a point-round up to 127 nodes)
    small = np.int8 if cap < 127 else np.int16 if cap < 32767 else np.int32
    leaf = np.empty((n_rounds + 1, X.shape[0], K), dtype=small)
    leaf[0] = -1
    raw, nodes, info, offsets = _boost(
        binned, n_bins, padded, y, kind, K, f0, learning_rate, n_rounds, ml, md,
        min_samples_leaf, reg_lambda, cap, max_bins + 1, leaf)
    return dict(f0=f0, raw=raw, leaf=leaf, nodes=nodes, info=info, offsets=offsets, cuts=cuts)


@kernel
def _boost(binned, n_bins, thresholds, y, kind, K, f0, learning_rate, n_rounds, max_leaves,
           max_depth, min_samples_leaf, reg_lambda, cap, width, leaf):
    n = binned.shape[1]
    raw = np.empty((n_rounds + 1, n, K))
    for i in range(n):
        raw[0, i, :] = f0
    g = np.empty((K, n), dtype=np.float32)
    h = np.empty((K, n), dtype=np.float32)
    constant_hessian = kind == SQUARED
    start_size = min(cap, 64) * n_rounds * K + 1
    nodes = np.empty(start_size, dtype=NODE)
    info = np.empty(start_size, dtype=HIST_NODE)
    offsets = np.zeros(n_rounds * K + 1, dtype=np.int64)
    pool = histogram.new_pool(min(cap + 3, 64), binned.shape[0], width)
    work = (np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64),
            np.empty(n, dtype=np.float32), np.empty(n, dtype=np.float32))
    leaf_k = np.empty(n, dtype=np.int32)
    steps = np.empty(cap)
    t = 0
    k_end = np.int64(0)
    for m in range(1, n_rounds + 1):
        gradients(kind, y, raw[m - 1], g, h)
        for k in range(K):
            nodes, info, pool, end = histogram_tree.grow(
                binned, g[k], h[k], constant_hessian, n_bins, thresholds, max_leaves,
                max_depth, min_samples_leaf, reg_lambda, cap, pool, work, nodes, info, k_end,
                leaf_k)
            tree = nodes[k_end:end]
            for j in range(end - k_end):
                # scikit-learn shrinks the leaf (value * nu), then adds it to F
                steps[j] = learning_rate * tree[j]["value"]
            for i in range(n):
                j = leaf_k[i]
                leaf[m, i, k] = j
                raw[m, i, k] = raw[m - 1, i, k] + steps[j]
            k_end = end
            t += 1
            offsets[t] = end
    return raw, nodes[:k_end].copy(), info[:k_end].copy(), offsets


@kernel
def gradients(kind, y, raw, g, h):
    """g, h (float32 (K, n)) of the loss at raw scores ``raw`` (n, K), in double first."""
    n = raw.shape[0]
    if kind == BINARY:
        for i in range(n):
            F = raw[i, 0]
            if F > -37.0:
                e = math.exp(-F)
                g[0, i] = ((1.0 - y[i]) - y[i] * e) / (1.0 + e)
                h[0, i] = e / ((1.0 + e) * (1.0 + e))
            else:  # exp(-F) would overflow: first order in e^F
                e = math.exp(F)
                g[0, i] = e - y[i]
                h[0, i] = e
    elif kind == SQUARED:
        for i in range(n):
            g[0, i] = raw[i, 0] - y[i]
            h[0, i] = 1.0
    else:
        K = raw.shape[1]
        p = np.empty(K)
        for i in range(n):
            total = softmax_row(raw, i, p)
            for k in range(K):
                p[k] /= total
                g[k, i] = p[k] - (1.0 if y[i] == k else 0.0)
                h[k, i] = p[k] * (1.0 - p[k])
