"""The numbers of the lessons on histogram trees, computed again from the Trace.

A fit keeps no histograms (one per node, feature and bin would outweigh the record);
these functions give a node's histograms exactly as the engine had them when it split
the node, and the scan along its bins (MATH.md section 6b):

    G_b, H_b, n_b    sums of g and h, and the count, of the node's samples in bin b
                     (a regression's h is 1: H_b counts)
    G_L, H_L, n_L    running sums over bins 0..b; G_R = G - G_L, H_R = H - H_L
    gain_b           G_L^2/(H_L + lambda) + G_R^2/(H_R + lambda) - G^2/(H + lambda),
                     computed as scikit-learn computes it; NaN where a constraint
                     (min_samples_leaf, H >= 1e-3) rules the boundary out

"Exactly as the engine had them": a histogram built from its samples is summed in
sample order (np.bincount adds in input order); a subtracted one is its parent's minus
its sibling's, as the engine subtracted it. So the scan's best gain is the node's
recorded gain, bit for bit, and its boundary the recorded split.

Plain numpy; for fits with split="histogram".
"""

import numpy as np

from ..binning import bin_columns
from ..histogram import MIN_HESSIAN
from ..histogram_tree import BUILT, SUBTRACTED


def node_histograms(trace, m, node, k=0):
    """G, H, n of ``node`` of tree m (class k): arrays (features, max_bins + 1).

    Raises ValueError if the node had no histogram (a node made a leaf without one: at
    the depth or leaf limit, or too small to split).
    """
    _check(trace)
    extra = trace.tree_histograms(m, k)
    if extra[node]["histogram"] not in (BUILT, SUBTRACTED):
        raise ValueError(f"node {node} of tree {m} had no histogram: it became a leaf "
                         "without being searched for a split.")
    tree = trace.tree(m, k)
    parent = _parents(tree)
    binned = bin_columns(trace.X, trace.bin_thresholds)
    g, h = _gradients(trace, m, k)
    width = trace.params["max_bins"] + 1

    def histograms(u):
        if extra[u]["histogram"] == BUILT:
            mine = np.flatnonzero(_passes(trace, m, k, tree, u))  # ascending: sample order
            G = np.array([np.bincount(row[mine], weights=g[mine], minlength=width)
                          for row in binned])
            H = np.array([np.bincount(row[mine], weights=h[mine], minlength=width)
                          for row in binned])
            n = np.array([np.bincount(row[mine], minlength=width) for row in binned])
            return G, H, n
        p = parent[u]
        sibling = tree[p]["left"] + tree[p]["right"] - u
        Gp, Hp, n_p = histograms(p)
        Gs, Hs, n_s = histograms(sibling)
        return Gp - Gs, Hp - Hs, n_p - n_s

    G, H, n = histograms(node)
    if not trace.is_classifier:  # constant hessian: scikit-learn counts instead of summing
        H = n.astype(np.float64)
    return G, H, n


def scan(trace, m, node, k=0):
    """The left-to-right scan of ``node`` of tree m (class k) over every feature's bins.

    Returns a dict of arrays (features, max_bins + 1), entry [f, b] for the boundary after
    bin b: G_L, H_L, n_L, G_R, H_R, gain (NaN where the boundary is ruled out or past the
    feature's last bin); and G, H, the node's sums, as the engine had them.
    """
    G_b, H_b, n_b = node_histograms(trace, m, node, k)
    node_rec = trace.tree(m, k)[node]
    total_g, total_h, n = -node_rec["sum_r"], node_rec["sum_h"], node_rec["n"]
    lam = trace.params["reg_lambda"]
    msl = trace.params["min_samples_leaf"]
    value = 0.0 if node == 0 else node_rec["value"]  # the root's own value is taken as 0
    # np.cumsum adds left to right, as the engine's running sums
    G_L, H_L, n_L = np.cumsum(G_b, axis=1), np.cumsum(H_b, axis=1), np.cumsum(n_b, axis=1)
    G_R, H_R = total_g - G_L, total_h - H_L
    v_L = -G_L / (H_L + lam + 1e-15)
    v_R = -G_R / (H_R + lam + 1e-15)
    gain = total_g * value - G_L * v_L - G_R * v_R
    used = np.array([len(t) for t in trace.bin_thresholds])  # boundaries per feature
    allowed = ((np.arange(G_b.shape[1])[None, :] < used[:, None]) & (n_L >= msl)
               & (n - n_L >= msl) & (H_L >= MIN_HESSIAN) & (H_R >= MIN_HESSIAN))
    return dict(G_L=G_L, H_L=H_L, n_L=n_L, G_R=G_R, H_R=H_R,
                gain=np.where(allowed, gain, np.nan), G=total_g, H=total_h)


def _check(trace):
    if not trace.histogram:
        raise ValueError("histograms are for split='histogram' fits; this fit has "
                         f"split={trace.params.get('split')!r}.")


def _gradients(trace, m, k):
    """g and h (float32 values, as float64) of tree m's fit: at F_(m-1)."""
    r, h = trace.residual(m - 1), trace.hessian(m - 1)
    if trace.is_multiclass:
        r, h = r[:, k], h[:, k]
    return -r, h


def _parents(tree):
    parent = np.full(len(tree), -1)
    for u in np.flatnonzero(tree["left"] >= 0):
        parent[tree["left"][u]] = parent[tree["right"][u]] = u
    return parent


def _passes(trace, m, k, tree, u):
    """Mask of the training samples whose path in tree m passes through node u: the
    nodes are in preorder, so u's subtree is the ids u..u + size - 1."""
    size = _subtree_size(tree, u)
    leaf = trace.leaf[m] if not trace.is_multiclass else trace.leaf[m][:, k]
    return (leaf >= u) & (leaf < u + size)


def _subtree_size(tree, u):
    if tree[u]["left"] < 0:
        return 1
    return 1 + _subtree_size(tree, tree[u]["left"]) + _subtree_size(tree, tree[u]["right"])
