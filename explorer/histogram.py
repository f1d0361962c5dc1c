"""Gradient histograms and the split search on them (histogram trees, MATH.md section 6b).

Per node and feature, bin b of the histogram holds G_b (the sum of the gradients g of
the node's samples in bin b), H_b (likewise for the hessians h) and the count n_b.
A split after bin b sends bins 0..b left; the running sums G_L, H_L, n_L over the bins
give every candidate's gain at once:

    gain = G_L^2/(H_L + lambda) + G_R^2/(H_R + lambda) - G^2/(H + lambda)

computed as scikit-learn computes it, from the node values v = -G/(H + lambda + 1e-15):
``G v - G_L v_L - G_R v_R`` (no 1/2; the root's own v is taken as 0).

Everything follows scikit-learn's HistGradientBoosting to the last bit:

* g and h are float32; a histogram sums them in float64, in the node's sample order
  (ascending sample index), bin by bin;
* of two children, the smaller one's histogram is built from its samples (the right one
  on equal counts) and its sibling's is the parent's minus it, bin by bin
  (the subtraction trick);
* the root's G and H are numpy's pairwise sum over feature 0's histogram (all
  ``max_bins + 1`` entries), which ``summation.pairwise_sum`` reproduces;
* squared error has a constant hessian (1): H is the count, as scikit-learn counts it;
* the scan is left to right; candidates with n_L or n_R below min_samples_leaf, or H_L or
  H_R below 1e-3, are skipped; a candidate must beat the best so far and 0 strictly, so
  the lowest bin of the lowest feature wins ties.

Histograms live in a pool of slots, ``(slots, features, max_bins + 1)`` arrays for G, H
and n; ``grow_pool`` makes room when a tree needs more.
"""

import numpy as np

from .kernel import kernel
from .nodes import copy_into

MIN_HESSIAN = 1e-3  # scikit-learn's min_hessian_to_split
_EPS_VALUE = 1e-15  # scikit-learn's guard in the node value's denominator
_NO_SPLIT = -1.0  # the gain of a node without a valid split (scikit-learn's)


@kernel
def node_value(sum_g, sum_h, reg_lambda):
    """-G / (H + lambda + 1e-15), summed in that order as scikit-learn does."""
    return -sum_g / (sum_h + reg_lambda + _EPS_VALUE)


@kernel
def new_pool(slots, n_features, width):
    """An empty pool of ``slots`` histograms of ``width`` bins per feature: G, H, n."""
    return (np.zeros((slots, n_features, width)), np.zeros((slots, n_features, width)),
            np.zeros((slots, n_features, width), dtype=np.uint32))


@kernel
def grow_pool(hg, hh, hc, slots):
    """The pool with room for at least ``slots`` histograms, its contents kept."""
    if slots <= hg.shape[0]:
        return hg, hh, hc
    size = max(slots, 2 * hg.shape[0])
    g2, h2, c2 = new_pool(size, hg.shape[1], hg.shape[2])
    # element by element: numba's slice assignment of 3-d arrays takes seconds to compile
    copy_into(g2.reshape(-1)[:hg.size], hg.reshape(-1))
    copy_into(h2.reshape(-1)[:hh.size], hh.reshape(-1))
    copy_into(c2.reshape(-1)[:hc.size], hc.reshape(-1))
    return g2, h2, c2


@kernel
def build(binned, g, h, constant_hessian, samples, g_node, h_node, hg, hh, hc, slot):
    """Histogram of the samples ``samples`` (in that order) into pool slot ``slot``.

    The gradients are first gathered into node order (``g_node``, float32, as scikit-learn's
    ordered gradients), so that each feature's pass reads them contiguously; every bin then
    adds its samples' float32 values in float64, in sample order.
    """
    n = samples.shape[0]
    for i in range(n):
        g_node[i] = g[samples[i]]
    if not constant_hessian:
        for i in range(n):
            h_node[i] = h[samples[i]]
    for f in range(binned.shape[0]):
        row = binned[f]
        G = hg[slot, f]
        H = hh[slot, f]
        C = hc[slot, f]
        for b in range(G.shape[0]):
            G[b] = 0.0
            H[b] = 0.0
            C[b] = 0
        if constant_hessian:  # scikit-learn does not sum a constant hessian: H is the count
            for i in range(n):
                b = row[samples[i]]
                G[b] += g_node[i]
                C[b] += 1
        else:
            for i in range(n):
                b = row[samples[i]]
                G[b] += g_node[i]
                H[b] += h_node[i]
                C[b] += 1


@kernel
def subtract(hg, hh, hc, parent, child, out):
    """Histogram of ``out`` = parent's minus child's, bin by bin (the subtraction trick)."""
    for f in range(hg.shape[1]):
        for b in range(hg.shape[2]):
            hg[out, f, b] = hg[parent, f, b] - hg[child, f, b]
            hh[out, f, b] = hh[parent, f, b] - hh[child, f, b]
            hc[out, f, b] = hc[parent, f, b] - hc[child, f, b]


@kernel
def best_split(hg, hh, hc, slot, n_bins, n, sum_g, sum_h, value, constant_hessian, reg_lambda,
               min_samples_leaf, split):
    """The best split of a node from its histogram (pool slot ``slot``), into ``split``.

    ``n_bins[f]`` is the number of bins feature f uses; ``value`` the node's own value
    (0 at the root). ``split`` (float64 array of 10) receives gain, feature, bin, G_L,
    H_L, G_R, H_R, n_L, n_R, v_L, v_R... in that order; gain is -1 when no candidate
    passes the constraints. Returns the gain.
    """
    loss_node = sum_g * value
    best = _NO_SPLIT
    split[0] = _NO_SPLIT
    for f in range(hg.shape[1]):
        G, H, C = hg[slot, f], hh[slot, f], hc[slot, f]
        g_left = 0.0
        h_left = 0.0
        n_left = 0
        for b in range(n_bins[f] - 1):  # the last bin never goes left: the right side would be empty
            n_left += C[b]
            n_right = n - n_left
            if constant_hessian:
                h_left += C[b]
            else:
                h_left += H[b]
            h_right = sum_h - h_left
            g_left += G[b]
            g_right = sum_g - g_left
            if n_left < min_samples_leaf:
                continue
            if n_right < min_samples_leaf:
                break  # only fewer on the right from here on
            if h_left < MIN_HESSIAN:
                continue
            if h_right < MIN_HESSIAN:
                break  # hessians are >= 0: H_R only shrinks from here on
            v_left = node_value(g_left, h_left, reg_lambda)
            v_right = node_value(g_right, h_right, reg_lambda)
            gain = loss_node
            gain -= g_left * v_left
            gain -= g_right * v_right
            # strictly better than the best so far (of any feature) and than 0
            if gain > best and gain > 0.0:
                best = gain
                split[0] = gain
                split[1] = f
                split[2] = b
                split[3] = g_left
                split[4] = h_left
                split[5] = g_right
                split[6] = h_right
                split[7] = n_left
                split[8] = n_right
                split[9] = v_left
                split[10] = v_right
    return best


SPLIT_FIELDS = ("gain", "feature", "bin", "sum_g_left", "sum_h_left", "sum_g_right",
                "sum_h_right", "n_left", "n_right", "value_left", "value_right")
