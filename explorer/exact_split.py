"""The best squared-error split of one node, found exactly as scikit-learn's splitter finds it.

Features are visited in scikit-learn's random order (xorshift.py); each feature's values
are read in sorted order (sorted once per fit, partitioned stably at every split, or
sorted by introsort.py where the node holds equal values); the running left sum is moved
from the nearer side as scikit-learn's criterion does; values within 1e-7 (float32) count
as equal, and thresholds are float64 midpoints of float32 values.
"""

import numpy as np

from .kernel import kernel
from .introsort import sort_segment
from .nodes import UNDEFINED, copy_into
from .xorshift import rand_int


@kernel
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


@kernel
def restart(order, vals, all_samples, all_order, all_vals):
    """Refill a tree's starting arrays without bagging: every sample, each feature sorted
    (the growers reorder them in place)."""
    for i in range(all_samples.shape[0]):
        all_samples[i] = i
    for f in range(order.shape[0]):
        copy_into(all_order[f], order[f])
        copy_into(all_vals[f], vals[f])



# --- one node: sums, impurity and the best split -----------------------------


@kernel
def node_sums(r, samples, start, end):
    """Sum and sum of squares of the residuals, added in the node's current sample order."""
    s = 0.0
    sq = 0.0
    for p in range(start, end):
        v = r[samples[p]]
        s += v
        sq += v * v
    return s, sq


@kernel
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


@kernel
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
        f_j = rand_int(n_drawn, f_i - n_found, rng)
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


@kernel
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


@kernel
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


@kernel
def _cut(best):
    """A bound below ``best``: a candidate whose product-form proxy (computed with
    reciprocals, within 1e-15 relative of the exact proxy, or 1e-320 absolute near zero)
    falls under it cannot beat ``best``, so its exact proxy need not be computed."""
    return (best - 1e-300) * (1.0 - 4e-12)


@kernel
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


@kernel
def sorted_values(X, order):
    """Row f: the values of feature f in the order of order[f]."""
    vals = np.empty(order.shape, dtype=np.float32)
    for f in range(order.shape[0]):
        for p in range(order.shape[1]):
            vals[f, p] = X[order[f, p], f]
    return vals


@kernel
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

