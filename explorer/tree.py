"""Regression trees grown exactly as scikit-learn 1.9 grows them.

Gradient boosting fits one such tree per round to the pseudo-residuals. The
aim here is not only the same predictions on the training points but the same
tree, split for split, so that the regions drawn on the plane and the numbers
shown for every node are scikit-learn's own (see ../shared/REFERENCE.md):

- features are visited in scikit-learn's random order (a 32-bit xorshift
  generator seeded once per tree, Fisher-Yates draws, constant features
  remembered down the tree), and a later feature wins only when strictly better;
- every feature is sorted once per fit; each tree partitions those sorted rows
  (sample ids and their float32 values) stably at every split, so a node reads its
  sorted values without sorting;
- where a node holds equal values of a feature, scikit-learn's introsort still
  runs on the node's own sample order, because the order it leaves equal values
  in decides the order in which the running sums are added, and the last bits of
  those sums decide near-ties; only the parts holding equal values are sorted, the
  rest is copied from the sorted rows;
- values closer than 1e-7 (in float32) count as equal; thresholds are midpoints
  in float64 of float32 values; samples go left when float32(x) <= threshold;
- depth-first growth pushes the right child before the left one; best-first
  growth (max_leaves) uses the C++ standard library's binary heap.

Here: growing the tree, depth-first or best-first, from the split search of
exact_split.py; the tree is written as nodes.py's records (node 0 the root, children
after their parent).
"""

import numpy as np

from .kernel import kernel
from .exact_split import best_split, node_sums
from .nodes import LEAF, UNDEFINED, add_node

EPSILON = np.finfo(np.float64).eps  # scikit-learn's tolerance for "pure" and "no gain"


# --- growing a tree ----------------------------------------------------------


@kernel
def _set_split(node, feature, threshold, improvement):
    node["feature"] = feature
    node["threshold"] = threshold
    node["improvement"] = improvement



@kernel
def _scratch(n_samples, n_features):
    """A splitter's working arrays: feature values, feature order, constant features, buffers
    (partition, tie counts, sort keys)."""
    return (np.empty(n_samples, dtype=np.float32), np.arange(n_features),
            np.empty(n_features, dtype=np.int64), np.empty(n_samples, dtype=np.int64),
            np.empty(n_samples, dtype=np.float32), np.empty(n_samples, dtype=np.int64),
            np.empty(n_samples, dtype=np.uint64))


def reciprocals(n):
    """1/k for k = 0..n (entry 0 unused): the split scan's cheap bound."""
    return 1.0 / np.maximum(np.arange(n + 1, dtype=np.float64), 1.0)


@kernel
def grow_depth_first(X, r, samples, order, vals, side, inverse, memo, memo_ready, nodes, k0,
                     max_depth, min_samples_split, min_samples_leaf, rng):
    """Grow one tree into nodes[k0:], as scikit-learn's DepthFirstTreeBuilder.

    Returns (nodes, k): nodes may have been reallocated; the tree is nodes[k0:k].
    """
    n_samples = samples.shape[0]
    n_root = float(n_samples)
    fvalues, features, constant, tmp, tmp_vals, tie_count, keys = _scratch(n_samples, X.shape[1])
    # stack rows: start, end, depth, parent, is_left, n_constant_features; impurity apart.
    # Right is pushed before left, so the stack never holds more than a path's worth.
    height = min(n_samples, max_depth) + 2
    stack = np.empty((height, 6), dtype=np.int64)
    stack_impurity = np.empty(height)
    zero = np.int64(0)  # typed constants: a literal argument compiles a callee once more
    _push(stack, stack_impurity, zero, zero, n_samples, zero, zero - 1, zero + 1, zero, np.inf)
    top = 1
    k = k0
    while top > 0:
        top -= 1
        start, end, depth = stack[top, 0], stack[top, 1], stack[top, 2]
        parent, is_left, n_constant = stack[top, 3], stack[top, 4] == 1, stack[top, 5]
        impurity = stack_impurity[top]
        n = end - start
        total, sq_total = node_sums(r, samples, start, end)
        is_leaf = depth >= max_depth or n < min_samples_split or n < 2 * min_samples_leaf
        if parent < 0:
            impurity = sq_total / n - (total / n) ** 2
        is_leaf = is_leaf or impurity <= EPSILON
        pos, feature, threshold, imp_left, imp_right, improvement = end, UNDEFINED, -2.0, 0.0, 0.0, 0.0
        if not is_leaf:
            pos, feature, threshold, imp_left, imp_right, improvement, n_constant = best_split(
                X, r, samples, fvalues, features, constant, n_constant,
                start, end, impurity, total, sq_total, n_root, min_samples_leaf, rng, order, vals,
                side, inverse, tmp, tmp_vals, tie_count, keys, memo, memo_ready)
            is_leaf = pos >= end or improvement + EPSILON < 0.0
        nodes = add_node(nodes, k, parent + k0 if parent >= 0 else -1, is_left,
                          depth, n, impurity, total)
        if not is_leaf:
            _set_split(nodes[k], feature, threshold, improvement)
            _push(stack, stack_impurity, top, pos, end, depth + 1, k - k0, zero, n_constant,
                  imp_right)
            _push(stack, stack_impurity, top + 1, start, pos, depth + 1, k - k0, zero + 1,
                  n_constant, imp_left)
            top += 2
        k += 1
    _localise(nodes, k0, k)
    return nodes, k


@kernel
def _push(stack, stack_impurity, top, start, end, depth, parent, is_left, n_constant, impurity):
    stack[top, 0] = start
    stack[top, 1] = end
    stack[top, 2] = depth
    stack[top, 3] = parent
    stack[top, 4] = is_left
    stack[top, 5] = n_constant
    stack_impurity[top] = impurity


@kernel
def _localise(nodes, k0, k):
    """Child links were written as global rows; store them relative to the tree's root."""
    for j in range(k0, k):
        if nodes[j]["left"] != LEAF:
            nodes[j]["left"] -= k0
            nodes[j]["right"] -= k0


# The C++ standard library's binary heap (libstdc++ push_heap / pop_heap),
# ordered by improvement: equal improvements leave in the same order as there.


@kernel
def _heap_up(heap, key, hole, top, item):
    parent = (hole - 1) // 2
    while hole > top and key[heap[parent]] < key[item]:
        heap[hole] = heap[parent]
        hole = parent
        parent = (hole - 1) // 2
    heap[hole] = item


@kernel
def _heap_push(heap, size, key, item):
    heap[size] = item
    _heap_up(heap, key, size, 0, item)
    return size + 1


@kernel
def _heap_pop(heap, size, key):
    """Remove and return the largest item, as std::pop_heap then back() and pop_back()."""
    last = size - 1
    if last > 0:
        item = heap[last]
        heap[last] = heap[0]
        hole = 0
        child = 0
        while child < (last - 1) // 2:
            child = 2 * (child + 1)
            if key[heap[child]] < key[heap[child - 1]]:
                child -= 1
            heap[hole] = heap[child]
            hole = child
        if (last & 1) == 0 and child == (last - 2) // 2:
            child = 2 * (child + 1)
            heap[hole] = heap[child - 1]
            hole = child - 1
        _heap_up(heap, key, hole, 0, item)
    return heap[last], last


@kernel
def grow_best_first(X, r, samples, order, vals, side, inverse, memo, memo_ready, nodes, k0,
                    max_depth, max_leaves, min_samples_split, min_samples_leaf, rng):
    """Grow one tree with at most max_leaves leaves, as scikit-learn's BestFirstTreeBuilder.

    Every node's split is searched when the node is created; the frontier then
    expands the node with the largest improvement. Returns (nodes, k).
    """
    n_samples = samples.shape[0]
    n_root = float(n_samples)
    fvalues, features, constant, tmp, tmp_vals, tie_count, keys = _scratch(n_samples, X.shape[1])
    work = (order, vals, side, inverse, memo, memo_ready, tmp, tmp_vals, tie_count, keys,
            fvalues, features, constant)
    cap = 2 * max_leaves
    # per node: start, end, split position, depth, is_leaf; improvement, child impurities
    rec = np.empty((cap, 5), dtype=np.int64)
    gain = np.empty(cap)
    child_impurity = np.empty((cap, 2))
    heap = np.empty(cap, dtype=np.int64)
    zero = np.int64(0)  # typed constants: a literal argument compiles a callee once more
    nodes, k = _add_split_node(X, r, samples, work, nodes, k0, k0,
                               zero, n_samples, zero, zero - 1, zero == zero, np.inf, n_root,
                               max_depth, min_samples_split, min_samples_leaf, rng, rec, gain,
                               child_impurity)
    size = _heap_push(heap, zero, gain, zero)
    split_budget = max_leaves - 1
    while size > 0:
        j, size = _heap_pop(heap, size, gain)
        if rec[j, 4] == 1 or split_budget <= 0:
            _set_split(nodes[k0 + j], UNDEFINED, -2.0, 0.0)
            continue
        split_budget -= 1
        depth = rec[j, 3] + 1
        bounds = (rec[j, 0], rec[j, 2], rec[j, 1])
        for child in range(2):  # left, then right
            nodes, k = _add_split_node(X, r, samples, work, nodes, k0, k,
                                       bounds[child], bounds[child + 1], depth, j, child == 0,
                                       child_impurity[j, child], n_root, max_depth,
                                       min_samples_split, min_samples_leaf, rng, rec, gain,
                                       child_impurity)
        size = _heap_push(heap, size, gain, k - 2 - k0)
        size = _heap_push(heap, size, gain, k - 1 - k0)
    _localise(nodes, k0, k)
    return nodes, k


@kernel
def _add_split_node(X, r, samples, work, nodes, k0, k, start, end,
                    depth, parent, is_left, impurity, n_root, max_depth, min_samples_split,
                    min_samples_leaf, rng, rec, gain, child_impurity):
    """Create a node and search its split at once (scikit-learn's _add_split_node)."""
    (order, vals, side, inverse, memo, memo_ready, tmp, tmp_vals, tie_count, keys, fvalues,
     features, constant) = work
    n = end - start
    total, sq_total = node_sums(r, samples, start, end)
    if parent < 0:
        impurity = sq_total / n - (total / n) ** 2
    is_leaf = (depth >= max_depth or n < min_samples_split or n < 2 * min_samples_leaf
               or impurity <= EPSILON)
    pos, feature, threshold, imp_left, imp_right, improvement = end, UNDEFINED, -2.0, 0.0, 0.0, 0.0
    if not is_leaf:
        # best-first search forgets constant features between nodes
        pos, feature, threshold, imp_left, imp_right, improvement, _ = best_split(
            X, r, samples, fvalues, features, constant, np.int64(0),
            start, end, impurity, total, sq_total, n_root, min_samples_leaf, rng, order, vals,
            side, inverse, tmp, tmp_vals, tie_count, keys, memo, memo_ready)
        is_leaf = pos >= end or improvement + EPSILON < 0.0
    nodes = add_node(nodes, k, parent + k0 if parent >= 0 else -1, is_left, depth, n,
                      impurity, total)
    j = k - k0
    rec[j, 0] = start
    rec[j, 1] = end
    rec[j, 3] = depth
    if is_leaf:
        rec[j, 2] = end
        rec[j, 4] = 1
        gain[j] = 0.0
        child_impurity[j, 0] = child_impurity[j, 1] = impurity
    else:
        _set_split(nodes[k], feature, threshold, improvement)
        rec[j, 2] = pos
        rec[j, 4] = 0
        gain[j] = improvement
        child_impurity[j, 0] = imp_left
        child_impurity[j, 1] = imp_right
    return nodes, k + 1


