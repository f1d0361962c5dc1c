"""The record of a tree, shared by every split rule, and the queries on it.

A tree is one numpy structured array of nodes (``NODE``); node 0 is the root and
children always come after their parent. The growers (exact trees in tree.py,
second-order trees in second_order.py, histogram trees in histogram_tree.py) write these
records; the boosting loops and the Trace read them: the leaf of a point (``apply``),
the leaves of a grown tree's samples (``leaves_of``), a leaf's members
(``leaf_members``) and an inner node's sums (``sum_up``).
"""

import numpy as np

from .kernel import kernel

NODE = np.dtype(
    [
        ("feature", np.int32),  # -2 at a leaf
        # go left when x[feature] <= threshold: float32(x), or float64 x for histogram trees
        ("threshold", np.float64),
        ("left", np.int32),  # -1 at a leaf
        ("right", np.int32),
        ("n", np.int32),  # in-bag training samples in the node
        ("depth", np.int32),
        ("impurity", np.float64),  # variance of the residuals (0 in histogram trees)
        # the split's gain: weighted impurity decrease (exact trees), xgboost's loss change
        # (second-order trees), scikit-learn's histogram gain (histogram trees); 0 at a leaf
        ("improvement", np.float64),
        ("sum_r", np.float64),  # sum of the residuals (y - p for log-loss)
        ("sum_h", np.float64),  # sum of the hessians (p(1 - p) for log-loss)
        # leaf: its value before the learning rate; inside: the mean residual (histogram
        # trees: the node's own -G/(H + lambda), 0 at the root, as scikit-learn keeps it)
        ("value", np.float64),
    ]
)
LEAF = -1
UNDEFINED = -2


@kernel
def copy_into(dst, src):
    """dst[:] = src for two arrays of one length, element by element. Numba's slice
    assignment brings a shape-mismatch message whose string code takes 1-2 s to compile."""
    for p in range(src.shape[0]):
        dst[p] = src[p]



@kernel
def add_node(nodes, k, parent, is_left, depth, n, impurity, total):
    """Node k, a leaf for now (n samples, residual sum ``total``), linked to its parent;
    the array doubled first when full. Returns the array."""
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



@kernel
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


@kernel
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


@kernel
def sum_up(tree):
    """An inner node's sums are its children's (children always follow their parent)."""
    for j in range(tree.shape[0] - 1, -1, -1):
        if tree[j]["left"] != LEAF:
            tree[j]["sum_r"] = tree[tree[j]["left"]]["sum_r"] + tree[tree[j]["right"]]["sum_r"]
            tree[j]["sum_h"] = tree[tree[j]["left"]]["sum_h"] + tree[tree[j]["right"]]["sum_h"]


@kernel
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

