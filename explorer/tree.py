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

A tree is one numpy structured array of nodes (``NODE``); node 0 is the root
and children always come after their parent.
"""

import numpy as np
from numba import njit

NODE = np.dtype(
    [
        ("feature", np.int32),  # -2 at a leaf
        ("threshold", np.float64),  # go left when float32(x[feature]) <= threshold
        ("left", np.int32),  # -1 at a leaf
        ("right", np.int32),
        ("n", np.int32),  # in-bag training samples in the node
        ("depth", np.int32),
        ("impurity", np.float64),  # variance of the residuals
        ("improvement", np.float64),  # weighted impurity decrease of the split; 0 at a leaf
        ("sum_r", np.float64),  # sum of the residuals (y - p for log-loss)
        ("sum_h", np.float64),  # sum of the hessians (p(1 - p) for log-loss)
        ("value", np.float64),  # leaf: its value before the learning rate; inside: mean residual
    ]
)
LEAF = -1
UNDEFINED = -2
EPSILON = np.finfo(np.float64).eps  # scikit-learn's tolerance for "pure" and "no gain"
_SORT_SMALL = 15  # introsort hands segments of this size or less to insertion sort


# --- scikit-learn's random feature order ------------------------------------


@njit(cache=True, nogil=True)
def _rand_int(low, high, state):
    """Integer in [low, high) from scikit-learn's xorshift generator (``our_rand_r``)."""
    s = state[0]
    if s == 0:
        s = 1
    s = (s ^ (s << 13)) & 0xFFFFFFFF
    s ^= s >> 17
    s = (s ^ (s << 5)) & 0xFFFFFFFF
    state[0] = s
    return low + (s % 0x80000000) % (high - low)


# --- scikit-learn's introsort (3-way partition, insertion sort below 16) -----
#
# The sort runs on one array of 64-bit keys: the value's bits in an order-preserving
# form above, the sample below, so that every move is a single swap. Comparisons
# read only the upper half, so equal values compare equal, as in scikit-learn.

_LOW = np.uint64(0xFFFFFFFF)
_SHIFT = np.uint64(32)


@njit(cache=True, nogil=True)
def _pack(values, samples, keys, lo, n):
    """keys[p] = (ordered bits of values[p]) << 32 | samples[p] for p in lo..lo+n-1."""
    bits = values.view(np.uint32)
    for p in range(lo, lo + n):
        values[p] += np.float32(0.0)  # -0.0 becomes 0.0: equal values, equal keys
        u = np.uint64(bits[p])
        u = (u ^ _LOW) if u >> np.uint64(31) else (u | np.uint64(0x80000000))
        keys[p] = (u << _SHIFT) | np.uint64(samples[p])


@njit(cache=True, nogil=True)
def _median3(keys, lo, n):
    a = keys[lo] >> _SHIFT
    b = keys[lo + n // 2] >> _SHIFT
    c = keys[lo + n - 1] >> _SHIFT
    if a < b:
        if b < c:
            return b
        elif a < c:
            return c
        return a
    elif b < c:
        if a < c:
            return a
        return c
    return b


@njit(cache=True, nogil=True)
def _sift_down(keys, lo, start, end):
    """scikit-learn's sift-down, bottom-up: its root moves down the path of larger children
    (the left one on ties) while the child is larger than the root. Values fall along that
    path, so the place it stops at is found from the path's end, climbing while values are
    not larger: the same moves, with about half the comparisons (it usually goes deep).
    As in heapsort, the subtrees below ``start`` must be heaps already."""
    root = keys[lo + start]
    v = root >> _SHIFT
    node = start
    child = 2 * node + 1
    while child < end:
        if child + 1 < end and (keys[lo + child] >> _SHIFT) < (keys[lo + child + 1] >> _SHIFT):
            child += 1
        node = child
        child = 2 * node + 1
    while node != start and (keys[lo + node] >> _SHIFT) <= v:
        node = (node - 1) // 2
    while node != start:  # the path above node moves up one place; the root goes to node
        keys[lo + node], root = root, keys[lo + node]
        node = (node - 1) // 2
    keys[lo + start] = root


@njit(cache=True, nogil=True)
def _heapsort(keys, lo, n):
    start = (n - 2) // 2
    while True:
        _sift_down(keys, lo, start, n)
        if start == 0:
            break
        start -= 1
    end = n - 1
    while end > 0:
        keys[lo], keys[lo + end] = keys[lo + end], keys[lo]
        _sift_down(keys, lo, np.int64(0), end)  # typed: a literal compiles it twice
        end -= 1


@njit(cache=True, nogil=True)
def _insertion_sort(keys, lo, n):
    for i in range(lo + 1, lo + n):
        key = keys[i]
        v = key >> _SHIFT
        j = i
        while j > lo and (keys[j - 1] >> _SHIFT) > v:
            keys[j] = keys[j - 1]
            j -= 1
        keys[j] = key


@njit(cache=True, nogil=True)
def sort_segment(values, samples, lo, n, ties, known, keys):
    """Sort samples[lo:lo+n] by values, as scikit-learn's simultaneous_sort orders them.

    The recursion on the left part is kept on an explicit stack; the parts are
    disjoint, so the order in which they are finished does not change the result.
    ``values`` is scratch afterwards; ``keys`` is a scratch array as long as samples.

    Only the order of equal values is unknown in advance: ``known[p]`` is the sample
    at sorted position p whenever its value is unique, and ``ties[p]`` counts the
    positions q <= p holding the same value as q - 1. The 3-way partition keeps equal
    values in one part and each part holds the values of its own sorted positions,
    so a part without two equal values is finished by copying ``known``.
    """
    if n == 0:
        return
    first = lo
    size = n
    _pack(values, samples, keys, lo, n)
    stack = np.empty((2 * 64 + 8, 3), dtype=np.int64)
    stack[0, 0] = lo
    stack[0, 1] = n
    stack[0, 2] = 2 * int(np.log2(n))
    top = 1
    while top > 0:
        top -= 1
        lo = stack[top, 0]
        n = stack[top, 1]
        maxd = stack[top, 2]
        while n > _SORT_SMALL:
            if ties[lo + n - 1] == ties[lo]:
                for p in range(lo, lo + n):
                    keys[p] = known[p]
                n = 0
                break
            if maxd <= 0:
                _heapsort(keys, lo, n)
                n = 0
                break
            maxd -= 1
            pivot = _median3(keys, lo, n)
            i = 0
            left = 0
            right = n
            while i < right:
                key = keys[lo + i]
                v = key >> _SHIFT
                if v < pivot:
                    keys[lo + i] = keys[lo + left]
                    keys[lo + left] = key
                    i += 1
                    left += 1
                elif v > pivot:
                    right -= 1
                    keys[lo + i] = keys[lo + right]
                    keys[lo + right] = key
                else:
                    i += 1
            stack[top, 0] = lo
            stack[top, 1] = left
            stack[top, 2] = maxd
            top += 1
            lo += right
            n -= right
        if n > 1 and ties[lo + n - 1] == ties[lo]:
            for p in range(lo, lo + n):
                keys[p] = known[p]
        else:
            _insertion_sort(keys, lo, n)
    for p in range(first, first + size):
        samples[p] = keys[p] & _LOW


@njit(cache=True, nogil=True)
def copy_into(dst, src):
    """dst[:] = src for two arrays of one length, element by element. Numba's slice
    assignment brings a shape-mismatch message whose string code takes 1-2 s to compile."""
    for p in range(src.shape[0]):
        dst[p] = src[p]


@njit(cache=True, nogil=True)
def workspace(X, order, bagging):
    """What the growers share across a fit's trees: each feature's values in sorted order,
    a side mask, the memo of the root's first sorts (they repeat at every tree when every
    sample is in the bag), and without bagging the arrays each tree starts from (see
    :func:`restart`)."""
    n, d = X.shape
    memo = np.empty(((d + 1) * d if not bagging and d <= 4 else 0, n), dtype=np.int64)
    return (sorted_values(X, order), np.empty(n, dtype=np.bool_), memo,
            np.zeros(memo.shape[0], dtype=np.bool_),
            np.empty(0 if bagging else n, dtype=np.int64),
            np.empty((d, 0 if bagging else n), dtype=np.int64),
            np.empty((d, 0 if bagging else n), dtype=np.float32))


@njit(cache=True, nogil=True)
def restart(order, vals, all_samples, all_order, all_vals):
    """Refill a tree's starting arrays without bagging: every sample, each feature sorted
    (the growers reorder them in place)."""
    for i in range(all_samples.shape[0]):
        all_samples[i] = i
    for f in range(order.shape[0]):
        copy_into(all_order[f], order[f])
        copy_into(all_vals[f], vals[f])


# --- one node: sums, impurity and the best split -----------------------------


@njit(cache=True, nogil=True)
def _node_sums(r, samples, start, end):
    """Sum and sum of squares of the residuals, added in the node's current sample order."""
    s = 0.0
    sq = 0.0
    for p in range(start, end):
        v = r[samples[p]]
        s += v
        sq += v * v
    return s, sq


@njit(cache=True, nogil=True)
def _left_sum(r, samples, start, end, pos, left, pos_prev, total):
    """Running left sum moved to ``pos`` from the nearer side, as scikit-learn's Criterion.update."""
    if pos - pos_prev <= end - pos:
        for p in range(pos_prev, pos):
            left += r[samples[p]]
        return left
    left = total
    for p in range(end - 1, pos - 1, -1):
        left -= r[samples[p]]
    return left


@njit(cache=True, nogil=True)
def best_split(X, r, samples, fvalues, features, constant, n_known_constants,
               start, end, impurity, total, sq_total, n_root, min_samples_leaf, rng, order, vals,
               side, inverse, tmp, tmp_vals, tie_count, keys, memo, memo_ready):
    """Find, apply and measure the best squared-error split of samples[start:end].

    ``order[f, start:end]`` holds the node's samples sorted by feature f and
    ``vals[f, start:end]`` their values; both are partitioned stably at every split,
    so a node reads its sorted values without sorting or gathering. When the node has
    no two equal values of f, that is the order introsort would leave, so the scan
    reads it directly. With ties, introsort itself must run on ``samples`` (the order
    scikit-learn's splitter holds): the order it leaves equal values in depends on its
    moves, and decides sums' last bits. At the root, every round's first two sorts
    start from the same order (all samples ascending, then the first sort's result),
    so their results are kept in ``memo`` (row (previous feature + 1) * n_features +
    feature; none when memo has no rows).

    ``samples`` must hold scikit-learn's order of the node when the search ends (the
    last visited feature's sorted order): the children add their sums in that order.
    While it equals ``order[f]`` for the last visited feature f, it is only copied when
    needed (``virtual``).

    Returns (pos, feature, threshold, impurity_left, impurity_right, improvement,
    n_constant_features); pos == end means no valid split.
    """
    tol = np.float32(1e-7)
    n_features = features.shape[0]
    n_node = float(end - start)
    best_proxy = -np.inf
    best_pos = end
    best_feature = UNDEFINED
    best_threshold = -2.0
    f_i = n_features
    n_visited = 0
    n_found = 0
    n_drawn = np.int64(0)  # typed: a literal would compile _rand_int twice
    n_total = n_known_constants
    previous = -1
    virtual = -1  # samples[start:end] stands for order[virtual, start:end]
    n_sorted = 0
    while f_i > n_total and (n_visited < n_features or n_visited <= n_found + n_drawn):
        n_visited += 1
        f_j = _rand_int(n_drawn, f_i - n_found, rng)
        if f_j < n_known_constants:
            features[n_drawn], features[f_j] = features[f_j], features[n_drawn]
            n_drawn += 1
            continue
        f_j += n_found
        feature = features[f_j]
        fv = vals[feature]
        ties = _tie_counts(fv, start, end, tie_count)
        if ties:
            if virtual >= 0:
                copy_into(samples[start:end], order[virtual, start:end])
                virtual = -1
            key = (previous + 1) * n_features + feature
            remember = memo.shape[0] > 0 and start == 0 and end == samples.shape[0] and n_sorted < 2
            if remember and memo_ready[key]:
                copy_into(samples, memo[key])
            else:
                for p in range(start, end):
                    fvalues[p] = X[samples[p], feature]
                sort_segment(fvalues, samples, start, end - start, tie_count, order[feature], keys)
                if remember:
                    copy_into(memo[key], samples)
                    memo_ready[key] = True
        else:
            virtual = feature
        previous = feature
        n_sorted += 1
        if fv[end - 1] <= fv[start] + tol:
            features[f_j], features[n_total] = features[n_total], features[f_j]
            n_found += 1
            n_total += 1
            continue
        f_i -= 1
        features[f_i], features[f_j] = features[f_j], features[f_i]
        proxy, pos, threshold = _scan(fv, samples if ties else order[feature], r, inverse,
                                      start, end, total, n_node, min_samples_leaf, best_proxy)
        if proxy > best_proxy:
            best_proxy = proxy
            best_pos = pos
            best_feature = feature
            best_threshold = threshold
    if virtual >= 0:
        copy_into(samples[start:end], order[virtual, start:end])

    impurity_left = impurity_right = improvement = 0.0
    if best_pos < end:
        # order[best_feature] is sorted, so its first best_pos - start samples go left.
        for p in range(start, best_pos):
            side[order[best_feature, p]] = True
        for p in range(best_pos, end):
            side[order[best_feature, p]] = False
        # Two-pointer partition; its order is the order the children add their sums in.
        lo = start
        hi = end
        while lo < hi:
            if side[samples[lo]]:
                lo += 1
            else:
                hi -= 1
                samples[lo], samples[hi] = samples[hi], samples[lo]
        for f in range(order.shape[0]):
            if f != best_feature:
                _partition_stably(order[f], vals[f], side, tmp, tmp_vals, start, end)
        left = _left_sum(r, samples, start, end, best_pos, 0.0, start, total)
        right = total - left
        sq_left = 0.0
        for p in range(start, best_pos):
            v = r[samples[p]]
            sq_left += v * v
        n_left = float(best_pos - start)
        n_right = n_node - n_left
        impurity_left = sq_left / n_left - (left / n_left) ** 2
        impurity_right = (sq_total - sq_left) / n_right - (right / n_right) ** 2
        improvement = (n_node / n_root) * (
            impurity - (n_right / n_node * impurity_right) - (n_left / n_node * impurity_left)
        )

    # Constant features found here stay known to the descendants, in their original order.
    copy_into(features[:n_known_constants], constant[:n_known_constants])
    copy_into(constant[n_known_constants:n_total], features[n_known_constants:n_total])
    return best_pos, best_feature, best_threshold, impurity_left, impurity_right, improvement, n_total


@njit(cache=True, nogil=True)
def _tie_counts(fv, start, end, counts):
    """True when sorted fv[start:end] holds two equal values; then counts[p] is the number
    of positions q in start+1..p with fv[q] == fv[q - 1]."""
    n_ties = 0
    for p in range(start + 1, end):  # no early exit: this loop vectorises
        n_ties += fv[p] == fv[p - 1]
    if n_ties == 0:
        return False
    count = 0  # in a register: reading counts[p - 1] back would wait on the last store
    counts[start] = 0
    for p in range(start + 1, end):
        count += fv[p] == fv[p - 1]
        counts[p] = count
    return True


@njit(cache=True, nogil=True)
def _scan(fv, sorted_samples, r, inverse, start, end, total, n_node, min_samples_leaf, bar):
    """Best split of one feature whose sorted values are fv[start:end], as scikit-learn scans.

    The proxy sum_L^2/n_L + sum_R^2/n_R is computed exactly (two divisions) only where
    a bound shows it might beat ``bar`` (the best proxy so far): with reciprocals from
    ``inverse``, the product form is within a few units in the last place of it, and
    a candidate must be strictly better to win. Returns (proxy, pos, threshold); the
    proxy is -inf when no candidate beats ``bar``.
    """
    tol = np.float32(1e-7)
    best = bar
    cut = _cut(best)
    found = -np.inf
    best_pos = end
    threshold = -2.0
    left = 0.0
    pos = start
    p = start
    while p < end:
        p += 1
        while p < end and fv[p] <= fv[p - 1] + tol:
            p += 1
        if p == end:
            continue
        if p - start < min_samples_leaf or end - p < min_samples_leaf:
            continue
        if p - pos == 1:  # the next value: one step forward (p < end, so forward is nearer)
            left += r[sorted_samples[pos]]
        elif p - pos <= end - p:
            for q in range(pos, p):
                left += r[sorted_samples[q]]
        else:
            left = total
            for q in range(end - 1, p - 1, -1):
                left -= r[sorted_samples[q]]
        pos = p
        right = total - left
        if left * left * inverse[p - start] + right * right * inverse[end - p] < cut:
            continue
        n_left = float(p - start)
        proxy = left * left / n_left + right * right / (n_node - n_left)
        if proxy > best:
            best = proxy
            cut = _cut(best)
            found = proxy
            best_pos = p
            threshold = np.float64(fv[p - 1]) / 2.0 + np.float64(fv[p]) / 2.0
    return found, best_pos, threshold


@njit(cache=True, nogil=True)
def _cut(best):
    """A bound below ``best``: a candidate whose product-form proxy (computed with
    reciprocals, within 1e-15 relative of the exact proxy, or 1e-320 absolute near zero)
    falls under it cannot beat ``best``, so its exact proxy need not be computed."""
    return (best - 1e-300) * (1.0 - 4e-12)


@njit(cache=True, nogil=True)
def _partition_stably(order, vals, side, tmp, tmp_vals, start, end):
    """Stable partition of one presorted row (and its values) so both children stay sorted."""
    left = start
    right = 0
    for p in range(start, end):
        # both destinations are written, one kept: no branch to mispredict on random sides
        i = order[p]
        v = vals[p]
        order[left] = i
        vals[left] = v
        tmp[right] = i
        tmp_vals[right] = v
        go_left = np.int64(side[i])
        left += go_left
        right += 1 - go_left
    copy_into(order[left:end], tmp[:right])
    copy_into(vals[left:end], tmp_vals[:right])


def presort(X):
    """Row f: the samples in ascending order of feature f."""
    return np.argsort(X, axis=0, kind="stable").T.copy()


@njit(cache=True, nogil=True)
def sorted_values(X, order):
    """Row f: the values of feature f in the order of order[f]."""
    vals = np.empty(order.shape, dtype=np.float32)
    for f in range(order.shape[0]):
        for p in range(order.shape[1]):
            vals[f, p] = X[order[f, p], f]
    return vals


@njit(cache=True, nogil=True)
def restrict_order(order, vals, in_bag):
    """The presorted orders (and their values) of the in-bag samples only."""
    n_in = np.count_nonzero(in_bag)
    out = np.empty((order.shape[0], n_in), dtype=np.int64)
    out_vals = np.empty((order.shape[0], n_in), dtype=np.float32)
    for f in range(order.shape[0]):
        q = 0
        for p in range(order.shape[1]):
            i = order[f, p]
            if in_bag[i]:
                out[f, q] = i
                out_vals[f, q] = vals[f, p]
                q += 1
    return out, out_vals


# --- growing a tree ----------------------------------------------------------


@njit(cache=True, nogil=True)
def _add_node(nodes, k, parent, is_left, depth, n, impurity, total):
    if k == nodes.shape[0]:
        grown = np.empty(2 * nodes.shape[0], dtype=nodes.dtype)
        copy_into(grown[:k], nodes[:k])
        nodes = grown
    node = nodes[k]
    node["feature"] = UNDEFINED
    node["threshold"] = -2.0
    node["left"] = LEAF
    node["right"] = LEAF
    node["n"] = n
    node["depth"] = depth
    node["impurity"] = impurity
    node["improvement"] = 0.0
    node["sum_r"] = total
    node["sum_h"] = float(n)
    node["value"] = total / n if n > 0 else 0.0
    if parent >= 0:
        if is_left:
            nodes[parent]["left"] = k
        else:
            nodes[parent]["right"] = k
    return nodes


@njit(cache=True, nogil=True)
def _set_split(node, feature, threshold, improvement):
    node["feature"] = feature
    node["threshold"] = threshold
    node["improvement"] = improvement


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
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
        total, sq_total = _node_sums(r, samples, start, end)
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
        nodes = _add_node(nodes, k, parent + k0 if parent >= 0 else -1, is_left,
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


@njit(cache=True, nogil=True)
def _push(stack, stack_impurity, top, start, end, depth, parent, is_left, n_constant, impurity):
    stack[top, 0] = start
    stack[top, 1] = end
    stack[top, 2] = depth
    stack[top, 3] = parent
    stack[top, 4] = is_left
    stack[top, 5] = n_constant
    stack_impurity[top] = impurity


@njit(cache=True, nogil=True)
def _localise(nodes, k0, k):
    """Child links were written as global rows; store them relative to the tree's root."""
    for j in range(k0, k):
        if nodes[j]["left"] != LEAF:
            nodes[j]["left"] -= k0
            nodes[j]["right"] -= k0


# The C++ standard library's binary heap (libstdc++ push_heap / pop_heap),
# ordered by improvement: equal improvements leave in the same order as there.


@njit(cache=True, nogil=True)
def _heap_up(heap, key, hole, top, item):
    parent = (hole - 1) // 2
    while hole > top and key[heap[parent]] < key[item]:
        heap[hole] = heap[parent]
        hole = parent
        parent = (hole - 1) // 2
    heap[hole] = item


@njit(cache=True, nogil=True)
def _heap_push(heap, size, key, item):
    heap[size] = item
    _heap_up(heap, key, size, 0, item)
    return size + 1


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def _add_split_node(X, r, samples, work, nodes, k0, k, start, end,
                    depth, parent, is_left, impurity, n_root, max_depth, min_samples_split,
                    min_samples_leaf, rng, rec, gain, child_impurity):
    """Create a node and search its split at once (scikit-learn's _add_split_node)."""
    (order, vals, side, inverse, memo, memo_ready, tmp, tmp_vals, tie_count, keys, fvalues,
     features, constant) = work
    n = end - start
    total, sq_total = _node_sums(r, samples, start, end)
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
    nodes = _add_node(nodes, k, parent + k0 if parent >= 0 else -1, is_left, depth, n,
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


@njit(cache=True, nogil=True)
def apply(nodes, X, out):
    """Leaf (node id within the tree) of each row of float32 X."""
    for i in range(X.shape[0]):
        k = 0
        while nodes[k]["left"] != LEAF:
            if X[i, nodes[k]["feature"]] <= nodes[k]["threshold"]:
                k = nodes[k]["left"]
            else:
                k = nodes[k]["right"]
        out[i] = k


@njit(cache=True, nogil=True)
def leaves_of(nodes, samples, out):
    """out[i] = the leaf of each sample in ``samples``, read from the grown tree itself.

    Every node holds a contiguous range of ``samples`` (left child first), so the
    leaves, visited left to right, tile it: no sample walks down the tree again.
    """
    stack = np.empty(nodes.shape[0] + 1, dtype=np.int64)
    stack[0] = 0
    top = 1
    p = 0
    while top > 0:
        top -= 1
        k = stack[top]
        if nodes[k]["left"] != LEAF:
            stack[top] = nodes[k]["right"]
            stack[top + 1] = nodes[k]["left"]
            top += 2
            continue
        for q in range(p, p + nodes[k]["n"]):
            out[samples[q]] = k
        p += nodes[k]["n"]


@njit(cache=True, nogil=True)
def sum_up(tree):
    """An inner node's sums are its children's (children always follow their parent)."""
    for j in range(tree.shape[0] - 1, -1, -1):
        if tree[j]["left"] != LEAF:
            tree[j]["sum_r"] = tree[tree[j]["left"]]["sum_r"] + tree[tree[j]["right"]]["sum_r"]
            tree[j]["sum_h"] = tree[tree[j]["left"]]["sum_h"] + tree[tree[j]["right"]]["sum_h"]


@njit(cache=True, nogil=True)
def leaf_members(leaf_of, in_bag, n_nodes, members):
    """The in-bag samples grouped by the node they fall in, each group in ascending index
    order (the order numpy sums them in for scikit-learn): node j's are
    members[start[j]:start[j + 1]]. Returns start."""
    start = np.zeros(n_nodes + 1, dtype=np.int64)
    for i in range(leaf_of.shape[0]):
        if in_bag[i]:
            start[leaf_of[i] + 1] += 1
    for j in range(n_nodes):
        start[j + 1] += start[j]
    fill = start[:-1].copy()
    for i in range(leaf_of.shape[0]):
        if in_bag[i]:
            members[fill[leaf_of[i]]] = i
            fill[leaf_of[i]] += 1
    return start
