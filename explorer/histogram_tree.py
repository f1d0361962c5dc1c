"""Growing one histogram tree best-first, as scikit-learn's HistGradientBoosting grows it.

    root: histogram of every sample; G, H its sums; value 0
    while some leaf can be split:
        split the leaf with the largest gain (a heap, in Python heapq's order on ties)
        children: G_L, H_L, v_L = -G_L/(H_L + lambda) from the parent's scan (likewise right)
        stop at max_leaves leaves, or at max_depth; a child with fewer than
            2 min_samples_leaf samples is a leaf
        histogram of the smaller child from its samples; the other's = parent - it
        find each new child's best split (histogram.best_split); gain <= 0: a leaf

The checks come in scikit-learn's order (``grower.py``: max leaves, then depth, then the
children's sizes) and the samples are partitioned stably, so each node keeps its samples
in ascending index order and every histogram sums in scikit-learn's order.

The tree is written as ``nodes.NODE`` records in preorder (node 0 the root, then the left
subtree, then the right), the order of scikit-learn's predictor nodes, so the trees can
be compared node by node. Leaves keep their value before the learning rate (the boosting
loop multiplies, as scikit-learn's shrinkage does after growth); inner nodes keep their
own value -G/(H + lambda) (0 at the root, as scikit-learn's). Beside each tree,
``HIST_NODE`` records what the lesson on histograms shows: the split bin, the order of
the splits and how each node's histogram was obtained.
"""

import numpy as np

from .kernel import kernel
from . import histogram
from .summation import pairwise_sum
from .nodes import LEAF, UNDEFINED, copy_into

NO_HISTOGRAM, BUILT, SUBTRACTED = 0, 1, 2  # how a node's histogram was obtained

HIST_NODE = np.dtype(
    [
        ("bin", np.int32),  # the split: bins 0..bin go left; -1 at a leaf
        ("split_order", np.int32),  # 0 for the first node split, 1 the next...; -1 at a leaf
        ("histogram", np.int8),  # BUILT from its samples, SUBTRACTED (parent - sibling) or none
    ]
)


def capacity(n, max_leaves, max_depth, min_samples_leaf):
    """The most nodes one tree can have: 2 leaves - 1, leaves bounded by max_leaves, by
    2^max_depth and by n / min_samples_leaf (each leaf but a lone root holds that many)."""
    leaves = max(1, n // min_samples_leaf)
    if max_leaves > 0:
        leaves = min(leaves, max_leaves)
    if 0 <= max_depth < 40:
        leaves = min(leaves, 2 ** max_depth)
    return 2 * leaves - 1


@kernel
def grow(binned, g, h, constant_hessian, n_bins, thresholds, max_leaves, max_depth,
         min_samples_leaf, reg_lambda, cap, pool, work, nodes, info, k0, leaf_of):
    """Grow one tree on gradients g and hessians h (float32; h unused if constant).

    Parameters
    ----------
    binned : uint8 (d, n); n_bins : int64 (d,) bins per feature; thresholds : float64
        (d, max_bins) the bin thresholds, padded
    max_leaves, max_depth : int, -1 for no limit
    cap : the most nodes this tree can have (``capacity``)
    pool : (G, H, n) histogram pool (``histogram.new_pool``)
    work : (samples, spare) int64 (n,) and (g_node, h_node) float32 (n,) buffers
    nodes, info : NODE and HIST_NODE records of all trees so far; this tree goes at k0
    leaf_of : int32 (n,), receives each sample's leaf (the node id within this tree)

    Returns
    -------
    nodes, info, pool : the arrays, grown when they had no room
    k : the end of this tree in nodes and info
    """
    samples, spare, g_node, h_node = work
    hg, hh, hc = pool
    n = binned.shape[1]
    for i in range(n):
        samples[i] = i
    start = np.empty(cap, dtype=np.int64)
    stop = np.empty(cap, dtype=np.int64)
    depth = np.empty(cap, dtype=np.int64)
    sum_g = np.empty(cap)
    sum_h = np.empty(cap)
    value = np.empty(cap)
    left = np.full(cap, -1, dtype=np.int64)
    right = np.full(cap, -1, dtype=np.int64)
    slot = np.full(cap, -1, dtype=np.int64)
    order = np.full(cap, -1, dtype=np.int64)
    kind = np.zeros(cap, dtype=np.int64)
    splits = np.empty((cap, len(histogram.SPLIT_FIELDS)))
    heap = np.empty(cap, dtype=np.int64)
    # histogram slots not in use. At most (cap + 1) / 2 + 3 are in use at once (one per
    # waiting leaf, the parent being split and its two children); slot ids are handed out
    # only up to free's length, so every id handed out fits back in.
    free = np.empty(cap + 8, dtype=np.int64)
    n_free = 0
    for s in range(min(hg.shape[0], free.shape[0]) - 1, -1, -1):
        free[n_free] = s
        n_free += 1
    next_slot = min(hg.shape[0], free.shape[0])

    # the root
    start[0], stop[0], depth[0] = 0, n, 0
    n_free, s = _take(free, n_free)
    slot[0] = s
    kind[0] = BUILT
    histogram.build(binned, g, h, constant_hessian, samples[:n], g_node, h_node, hg, hh, hc, s)
    sum_g[0] = pairwise_sum(hg[s, 0], hg.shape[2])
    sum_h[0] = float(n) if constant_hessian else pairwise_sum(hh[s, 0], hh.shape[2])
    value[0] = 0.0
    count = 1
    n_final = 0  # leaves so far
    n_heap = 0
    if n < 2 * min_samples_leaf or sum_h[0] < histogram.MIN_HESSIAN:
        n_final += 1
        n_free = _give(free, n_free, slot, 0)
    else:
        gain = histogram.best_split(hg, hh, hc, s, n_bins, n, sum_g[0], sum_h[0], value[0],
                                    constant_hessian, reg_lambda, min_samples_leaf, splits[0])
        if gain <= 0.0:
            n_final += 1
            n_free = _give(free, n_free, slot, 0)
        else:
            n_heap = _push(heap, n_heap, splits, 0)

    n_split = 0
    while n_heap > 0:
        n_heap, p = _pop(heap, n_heap, splits)
        order[p] = n_split
        n_split += 1
        feature, cut = int(splits[p, 1]), int(splits[p, 2])
        n_left = _partition(binned[feature], cut, samples, spare, start[p], stop[p])
        a, b = count, count + 1
        count += 2
        left[p], right[p] = a, b
        start[a], stop[a] = start[p], start[p] + n_left
        start[b], stop[b] = start[p] + n_left, stop[p]
        depth[a] = depth[b] = depth[p] + 1
        sum_g[a], sum_h[a], value[a] = splits[p, 3], splits[p, 4], splits[p, 9]
        sum_g[b], sum_h[b], value[b] = splits[p, 5], splits[p, 6], splits[p, 10]
        leaves_then = n_final + n_heap + 2
        if max_leaves > 0 and leaves_then == max_leaves:
            # every leaf, split or waiting, is final
            n_final += 2 + n_heap
            for j in range(n_heap):
                n_free = _give(free, n_free, slot, heap[j])
            n_heap = 0
            n_free = _give(free, n_free, slot, p)
            continue
        if max_depth >= 0 and depth[a] == max_depth:
            n_final += 2
            n_free = _give(free, n_free, slot, p)
            continue
        leaf_a = stop[a] - start[a] < 2 * min_samples_leaf
        leaf_b = stop[b] - start[b] < 2 * min_samples_leaf
        if not (leaf_a and leaf_b):
            small, large = (a, b) if stop[a] - start[a] < stop[b] - start[b] else (b, a)
            if n_free < 2:  # the pool is full: make room for both children
                hg, hh, hc = histogram.grow_pool(hg, hh, hc, next_slot + 2)
                while next_slot < hg.shape[0] and next_slot < free.shape[0]:
                    free[n_free] = next_slot
                    n_free += 1
                    next_slot += 1
            n_free, slot[small] = _take(free, n_free)
            n_free, slot[large] = _take(free, n_free)
            histogram.build(binned, g, h, constant_hessian, samples[start[small]:stop[small]],
                            g_node, h_node, hg, hh, hc, slot[small])
            histogram.subtract(hg, hh, hc, slot[p], slot[small], slot[large])
            kind[small], kind[large] = BUILT, SUBTRACTED
            for c, is_leaf in ((a, leaf_a), (b, leaf_b)):
                if is_leaf:
                    n_final += 1
                    n_free = _give(free, n_free, slot, c)
                    continue
                gain = histogram.best_split(hg, hh, hc, slot[c], n_bins, stop[c] - start[c],
                                            sum_g[c], sum_h[c], value[c], constant_hessian,
                                            reg_lambda, min_samples_leaf, splits[c])
                if gain <= 0.0:
                    n_final += 1
                    n_free = _give(free, n_free, slot, c)
                else:
                    n_heap = _push(heap, n_heap, splits, c)
        else:
            n_final += 2
        n_free = _give(free, n_free, slot, p)

    nodes, info = _write(nodes, info, k0, count, start, stop, depth, sum_g, sum_h, value, left,
                         right, order, kind, splits, thresholds, samples, leaf_of)
    return nodes, info, (hg, hh, hc), k0 + count


@kernel
def _take(free, n_free):
    return n_free - 1, free[n_free - 1]


@kernel
def _give(free, n_free, slot, node):
    """Return ``node``'s histogram slot (if any) to the free list."""
    if slot[node] >= 0:
        free[n_free] = slot[node]
        n_free += 1
        slot[node] = -1
    return n_free


@kernel
def _partition(row, cut, samples, spare, lo, hi):
    """Samples lo..hi-1 with bin <= cut first, then the others, each side in its former
    order (scikit-learn's partition is stable). Returns how many go left.

    Branch-free: each sample is written to both sides and the side it belongs to advances
    (a branch on the data would be mispredicted half the time).
    """
    n_left = 0
    n_right = 0
    for i in range(lo, hi):
        s = samples[i]
        goes_left = row[s] <= cut
        samples[lo + n_left] = s  # never ahead of i: safe in place
        spare[n_right] = s
        n_left += goes_left
        n_right += 1 - goes_left
    copy_into(samples[lo + n_left:hi], spare[:n_right])
    return n_left


# --- the heap: Python's heapq, with "a < b" meaning a's gain is larger ---------------
# scikit-learn pushes and pops its splittable nodes with heapq; ties in gain are broken
# by heapq's sift order, which these functions repeat step for step.


@kernel
def _before(splits, a, b):
    return splits[a, 0] > splits[b, 0]


@kernel
def _push(heap, size, splits, node):
    heap[size] = node
    _sift_down(heap, 0, size, splits)
    return size + 1


@kernel
def _pop(heap, size, splits):
    size -= 1
    last = heap[size]
    if size == 0:
        return size, last
    top = heap[0]
    heap[0] = last
    _sift_up(heap, 0, size, splits)
    return size, top


@kernel
def _sift_down(heap, startpos, pos, splits):
    item = heap[pos]
    while pos > startpos:
        parentpos = (pos - 1) >> 1
        parent = heap[parentpos]
        if _before(splits, item, parent):
            heap[pos] = parent
            pos = parentpos
            continue
        break
    heap[pos] = item


@kernel
def _sift_up(heap, pos, end, splits):
    startpos = pos
    item = heap[pos]
    child = 2 * pos + 1
    while child < end:
        other = child + 1
        if other < end and not _before(splits, heap[child], heap[other]):
            child = other
        heap[pos] = heap[child]
        pos = child
        child = 2 * pos + 1
    heap[pos] = item
    _sift_down(heap, startpos, pos, splits)


@kernel
def _write(nodes, info, k0, count, start, stop, depth, sum_g, sum_h, value, left, right,
           order, kind, splits, thresholds, samples, leaf_of):
    """The grown tree as records in preorder at nodes[k0:], and each sample's leaf."""
    if k0 + count > nodes.shape[0]:
        size = max(k0 + count, 2 * nodes.shape[0])
        grown = np.empty(size, dtype=nodes.dtype)
        copy_into(grown[:k0], nodes[:k0])
        nodes = grown
        grown_info = np.empty(size, dtype=info.dtype)
        copy_into(grown_info[:k0], info[:k0])
        info = grown_info
    pre = np.empty(count, dtype=np.int64)
    stack = np.empty(count, dtype=np.int64)
    stack[0] = 0
    top = 1
    c = 0
    while top > 0:
        top -= 1
        u = stack[top]
        pre[u] = c
        c += 1
        if left[u] >= 0:  # right below left: the left subtree is numbered first
            stack[top] = right[u]
            stack[top + 1] = left[u]
            top += 2
    for u in range(count):
        node = nodes[k0 + pre[u]]
        extra = info[k0 + pre[u]]
        node["n"] = stop[u] - start[u]
        node["depth"] = depth[u]
        node["impurity"] = 0.0
        node["sum_r"] = -sum_g[u]  # the residuals are -g
        node["sum_h"] = sum_h[u]
        node["value"] = value[u]
        extra["split_order"] = order[u]
        extra["histogram"] = kind[u]
        if left[u] >= 0:
            f, b = int(splits[u, 1]), int(splits[u, 2])
            node["feature"] = f
            node["threshold"] = thresholds[f, b]
            node["left"] = pre[left[u]]
            node["right"] = pre[right[u]]
            node["improvement"] = splits[u, 0]
            extra["bin"] = b
        else:
            node["feature"] = UNDEFINED
            node["threshold"] = -2.0
            node["left"] = LEAF
            node["right"] = LEAF
            node["improvement"] = 0.0
            extra["bin"] = -1
            for i in range(start[u], stop[u]):
                leaf_of[samples[i]] = pre[u]
    return nodes, info
