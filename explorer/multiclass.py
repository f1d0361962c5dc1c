"""Gradient boosting with K >= 3 classes: K regression trees a round, under the softmax.

scikit-learn's GradientBoostingClassifier with the multinomial log-loss (Friedman's
algorithm 6, "K-class logistic gradient boosting"):

    F_0k = log p_k - mean_j log p_j                  (class shares p, symmetric link)
    for m = 1..M:
        p_ik = softmax(F_(m-1)(x_i))_k                 (every tree of a round sees the same F)
        for k = 0..K-1:
            r_ik = y_ik - p_ik                          (y_ik = 1 when sample i is of class k)
            fit a squared-error regression tree to r_k (regions R_jmk)
            gamma_jmk = (K - 1)/K * sum r / sum p (1 - p) over the leaf
            F_mk = F_(m-1)k + nu * gamma_k(x)

With split="hessian" the trees are xgboost's (multi:softprob, tree_method="exact"):
float32 margins, per class g = p - y and h = max(2 p (1 - p), 1e-16), one
level-wise tree per class and round, all from the same gradients.

The trees are the binary engine's own growers (tree.py, second_order.py), called once
per class; the loops here are separate from boosting._boost so that the multiclass code
compiles only when a multiclass fit first needs it. Trees come out round by round
(tree (m, k) is number (m - 1) K + k); ``by_class`` regroups them class by class.
"""

import numpy as np

from .kernel import kernel
from . import losses, second_order
from .data import MAX_CLASSES  # noqa: F401  (fit's limit on K, shared with the uploads)
from .trace import step
from .exact_split import restart, restrict_order, workspace
from .summation import gathered_sum
from .nodes import LEAF, NODE, apply, leaf_members, leaves_of, sum_up
from .tree import grow_best_first, grow_depth_first


@kernel
def boost(X, y, n_classes, f0, learning_rate, max_depth, max_leaves, min_samples_leaf,
          min_samples_split, in_bag, seeds, order, inverse):
    """The rounds of scikit-learn's multinomial boosting; ``in_bag`` (rounds + 1, n) or (0, n)
    holds each round's bag, shared by its K trees; ``seeds`` (rounds, K) the trees' seeds."""
    n = X.shape[0]
    n_rounds = seeds.shape[0]
    K = n_classes
    raw = np.empty((n_rounds + 1, n, K))
    for i in range(n):
        raw[0, i, :] = f0
    leaf = np.full((n_rounds + 1, n, K), -1, dtype=np.int32)
    bagging = in_bag.shape[0] > 0
    everyone = np.ones(n, dtype=np.bool_)
    nodes = np.empty(64 * n_rounds * K, dtype=NODE)
    offsets = np.zeros(n_rounds * K + 1, dtype=np.int64)
    r = np.empty((K, n))
    y_k = np.empty(n)
    h = np.empty(n)
    leaf_k = np.empty(n, dtype=np.int32)
    buffer = np.empty(n)
    members = np.empty(n, dtype=np.int64)
    rng = np.zeros(1, dtype=np.int64)
    vals, side, memo, memo_ready, all_samples, all_order, all_vals = workspace(X, order,
                                                                              bagging)
    bag_samples, bag_order, bag_vals = all_samples, all_order, all_vals
    t = np.int64(0)  # typed: a literal would compile the tree growers once more
    for m in range(1, n_rounds + 1):
        losses.softmax_residuals(y, raw[m - 1], r)
        if bagging:
            bag_samples = np.flatnonzero(in_bag[m])
            bag_order, bag_vals = restrict_order(order, vals, in_bag[m])
        for k in range(K):
            if bagging:  # a tree reorders its rows in place: each class starts from a copy
                samples = bag_samples.copy()
                tree_order, tree_vals = bag_order.copy(), bag_vals.copy()
            else:
                restart(order, vals, all_samples, all_order, all_vals)
                samples, tree_order, tree_vals = all_samples, all_order, all_vals
            rng[0] = seeds[m - 1, k]
            t0 = t
            if max_leaves > 0:
                nodes, t = grow_best_first(X, r[k], samples, tree_order, tree_vals, side, inverse,
                                           memo, memo_ready, nodes, t0, max_depth, max_leaves,
                                           min_samples_split, min_samples_leaf, rng)
            else:
                nodes, t = grow_depth_first(X, r[k], samples, tree_order, tree_vals, side, inverse,
                                            memo, memo_ready, nodes, t0, max_depth,
                                            min_samples_split, min_samples_leaf, rng)
            offsets[(m - 1) * K + k + 1] = t
            tree = nodes[t0:t]
            if bagging:
                apply(tree, X, leaf_k)
            else:
                leaves_of(tree, samples, leaf_k)
            for i in range(n):
                y_k[i] = 1.0 if y[i] == k else 0.0
                p = y_k[i] - r[k, i]
                h[i] = p * (1.0 - p)
            _set_leaves(tree, leaf_k, in_bag[m] if bagging else everyone, r[k], h, K, buffer,
                        members)
            for i in range(n):
                leaf[m, i, k] = leaf_k[i]
                raw[m, i, k] = step(raw[m - 1, i, k], tree[leaf_k[i]]["value"], learning_rate,
                                    False)
    return raw, leaf, nodes[:t].copy(), offsets


@kernel
def _set_leaves(tree, leaf_of, in_bag, r, h, n_classes, buffer, members):
    """Each leaf's (K - 1)/K Newton value from its in-bag samples, taken in ascending index
    order and summed pairwise as numpy sums them for scikit-learn."""
    n_nodes = tree.shape[0]
    start = leaf_members(leaf_of, in_bag, n_nodes, members)
    for j in range(n_nodes):
        count = start[j + 1] - start[j]
        if tree[j]["left"] != LEAF or count == 0:
            continue
        mine = members[start[j]:start[j + 1]]
        sum_r = gathered_sum(r, mine, buffer)
        sum_h = gathered_sum(h, mine, buffer)
        tree[j]["sum_r"] = sum_r
        tree[j]["sum_h"] = sum_h
        tree[j]["value"] = losses.multinomial_step(sum_r, sum_h, count, n_classes)
    sum_up(tree)


# --- xgboost's multi:softprob ----------------------------------------------------------


@kernel
def boost_second_order(X, y, f0, learning_rate, n_rounds, max_depth, reg_lambda, gamma,
                       min_child_weight, order):
    """xgboost's multi:softprob rounds: K level-wise trees a round from one set of gradients."""
    n = X.shape[0]
    K = f0.shape[0]
    raw = np.empty((n_rounds + 1, n, K))
    margin = np.empty((n, K), dtype=np.float32)
    for i in range(n):
        margin[i, :] = f0
    raw[0] = margin
    leaf = np.full((n_rounds + 1, n, K), -1, dtype=np.int32)
    size = 2 ** (max_depth + 1) * n_rounds * K if max_depth < 10 else 64 * n_rounds * K
    nodes = np.empty(size, dtype=NODE)
    offsets = np.zeros(n_rounds * K + 1, dtype=np.int64)
    g = np.empty((K, n), dtype=np.float32)
    h = np.empty((K, n), dtype=np.float32)
    leaf_k = np.empty(n, dtype=np.int32)
    t = np.int64(0)
    for m in range(1, n_rounds + 1):
        second_order.softmax_gradients(y, margin, g, h)
        for k in range(K):
            t0 = t
            nodes, t = second_order.grow_level_wise(X, order, g[k], h[k], nodes, t0, max_depth,
                                                    reg_lambda, min_child_weight, gamma)
            offsets[(m - 1) * K + k + 1] = t
            tree = nodes[t0:t]
            apply(tree, X, leaf_k)
            for i in range(n):
                leaf[m, i, k] = leaf_k[i]
                margin[i, k] = step(margin[i, k], tree[leaf_k[i]]["value"], learning_rate, True)
        raw[m] = margin
    return raw, leaf, nodes[:t].copy(), offsets


def by_class(nodes, offsets, n_classes):
    """The trees regrouped class by class: (nodes, offsets) with offsets of shape (K, rounds + 1),
    tree (m, k) being nodes[offsets[k, m - 1]:offsets[k, m]] (offsets[k, 0] starts class k)."""
    n_rounds = (len(offsets) - 1) // n_classes
    starts = offsets[:-1].reshape(n_rounds, n_classes)
    ends = offsets[1:].reshape(n_rounds, n_classes)
    sizes = (ends - starts).T  # (K, rounds)
    regrouped = np.concatenate([nodes[starts[m, k]:ends[m, k]]
                                for k in range(n_classes) for m in range(n_rounds)])
    new = np.zeros((n_classes, n_rounds + 1), dtype=np.int64)
    new[:, 1:] = np.cumsum(sizes, axis=1)
    new += np.concatenate([[0], np.cumsum(sizes.sum(axis=1))[:-1]])[:, None]
    return regrouped, new
