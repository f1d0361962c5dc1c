"""Second-order (XGBoost-style) trees, grown as xgboost's exact method grows them.

Each round expands L(y, F + f) to second order around F: per sample the gradient
g = p - y and hessian h = p (1 - p). A leaf with sums G, H takes the weight
w = -G / (H + lambda), and a split is worth

    gain = G_L^2/(H_L + lambda) + G_R^2/(H_R + lambda) - (G_L + G_R)^2/(H_L + H_R + lambda)

(MATH.md writes half of this minus gamma; xgboost searches with this form and
applies gamma afterwards, by pruning). To match xgboost 3.x (tree_method="exact",
binary:logistic) number for number, the arithmetic follows its sources (see
../shared/REFERENCE.md): margins, probabilities, gradients and gains in float32,
node sums in float64, level-wise growth, a backward scan over each feature's sorted
values, lower feature index winning ties, and left meaning x < threshold.

Trees use the same node records as ``nodes.NODE``. A threshold t with "left when
x < t" is stored as the largest float32 below t, so every tree in the explorer
reads "left when float32(x) <= threshold".
"""

import math

import numpy as np

from .kernel import kernel
from .nodes import LEAF, UNDEFINED, add_node

RT_EPS = np.float32(1e-6)  # xgboost's kRtEps: the least loss change worth a split
_HESS_FLOOR = np.float32(1e-16)


def initial_margin(y):
    """xgboost's intercept: the mean label as float32, as a margin -log(1/b - 1) in float32."""
    return float(_logit32(np.float32(np.mean(y)))) + 0.0  # + 0.0: no "-0" on screen


@kernel
def _logit32(b):
    return -math.log(np.float32(1.0) / b - np.float32(1.0))


@kernel
def gradients(y, margin, g, h):
    """g = p - y and h = max(p (1 - p), 1e-16) in float32, p = sigmoid(margin) as xgboost has it."""
    one = np.float32(1.0)
    for i in range(y.shape[0]):
        x = min(-np.float32(margin[i]), np.float32(88.7))
        p = one / (math.exp(x) + one + _HESS_FLOOR)
        g[i] = p - np.float32(y[i])
        h[i] = max(p * (one - p), _HESS_FLOOR)


@kernel
def _gain(G, H, lam):
    """G^2 / (H + lambda), squared and summed in float64, divided in float32."""
    if H <= 0.0:
        return np.float32(0.0)
    return np.float32(G * G) / np.float32(H + lam)


@kernel
def _weight(G, H, lam, min_child_weight):
    """-G / (H + lambda), or 0 when the node's hessian is below min_child_weight."""
    if H < min_child_weight or H <= 0.0:
        return np.float32(0.0)
    return np.float32(-G / (H + lam))


@kernel
def grow_level_wise(X, order, g, h, nodes, k0, max_depth, reg_lambda, min_child_weight, gamma):
    """Grow one tree into nodes[k0:] (values are the weights w, before the learning rate).

    ``order[f]`` lists all samples by ascending feature f. Returns (nodes, k).
    """
    n, n_features = X.shape
    lam = np.float64(np.float32(reg_lambda))
    mcw = np.float64(np.float32(min_child_weight))
    cap = 2 ** (max_depth + 1)
    # per node: sums, weight, gain of keeping it whole, and the best split found
    G = np.zeros(cap)
    H = np.zeros(cap)
    count = np.zeros(cap, dtype=np.int64)
    weight = np.zeros(cap, dtype=np.float32)
    root_gain = np.zeros(cap, dtype=np.float32)
    best_loss = np.zeros(cap, dtype=np.float32)
    best_feature = np.zeros(cap, dtype=np.int64)
    best_value = np.zeros(cap, dtype=np.float32)
    # running sums of the scan, per node
    eG = np.zeros(cap)
    eH = np.zeros(cap)
    last = np.zeros(cap, dtype=np.float32)
    position = np.zeros(n, dtype=np.int64)  # node of each sample; -1 once its node is final
    level = np.zeros(cap, dtype=np.bool_)

    zero = np.int64(0)  # typed constants: a literal argument compiles a callee once more
    nodes = add_node(nodes, k0, zero - 1, zero == zero, zero, n, 0.0, 0.0)
    k = k0 + 1
    frontier = np.zeros(1, dtype=np.int64)
    for depth in range(max_depth + 1):
        # sums of the new nodes, in sample order, then their weights and whole-node gains
        for j in frontier:
            G[j] = H[j] = 0.0
            count[j] = 0
        for i in range(n):
            j = position[i]
            if j >= 0:
                G[j] += g[i]
                H[j] += h[i]
                count[j] += 1
        for j in frontier:
            weight[j] = _weight(G[j], H[j], lam, mcw)
            root_gain[j] = _gain(G[j], H[j], lam)
            node = nodes[k0 + j]
            node["n"] = count[j]
            node["sum_r"] = -G[j]
            node["sum_h"] = H[j]
            node["value"] = weight[j]
            best_loss[j] = 0.0
            best_feature[j] = 0
        if depth == max_depth:
            break
        level[:] = False
        for j in frontier:
            level[j] = True
        for f in range(n_features):
            _scan_feature(X, order[f], f, g, h, position, level, frontier, G, H, root_gain,
                          lam, mcw, eG, eH, last, best_loss, best_feature, best_value)
        children = np.empty(2 * frontier.shape[0], dtype=np.int64)
        n_children = 0
        for j in frontier:
            if best_loss[j] > RT_EPS:
                node = nodes[k0 + j]
                node["feature"] = best_feature[j]
                node["threshold"] = np.nextafter(best_value[j], np.float32(-np.inf))
                node["improvement"] = best_loss[j]
                for side in range(2):
                    # the child's sums are added up at the next level
                    nodes = add_node(nodes, k, k0 + j, side == 0, depth + 1, zero, 0.0, 0.0)
                    children[n_children] = k - k0
                    n_children += 1
                    k += 1
        for i in range(n):  # samples move to a child, or stop at a leaf
            j = position[i]
            if j < 0:
                continue
            if nodes[k0 + j]["feature"] == UNDEFINED:
                position[i] = -1
            elif X[i, nodes[k0 + j]["feature"]] < best_value[j]:
                position[i] = nodes[k0 + j]["left"] - k0  # links are global rows until the end
            else:
                position[i] = nodes[k0 + j]["right"] - k0
        frontier = children[:n_children]
        if n_children == 0:
            break
    k = _prune(nodes, k0, k, gamma, best_loss)
    for j in range(k0, k):
        if nodes[j]["left"] != LEAF:
            nodes[j]["left"] -= k0
            nodes[j]["right"] -= k0
    return nodes, k


@kernel
def _scan_feature(X, order, f, g, h, position, level, frontier, G, H, root_gain, lam, mcw,
                  eG, eH, last, best_loss, best_feature, best_value):
    """xgboost's backward enumeration of feature f for every node of the level at once."""
    for j in frontier:
        eG[j] = eH[j] = 0.0
    for q in range(order.shape[0] - 1, -1, -1):
        i = order[q]
        j = position[i]
        if j < 0 or not level[j]:
            continue
        x = X[i, f]
        if eH[j] == 0.0:
            eG[j] += g[i]
            eH[j] += h[i]
            last[j] = x
            continue
        if x != last[j] and eH[j] >= mcw:
            cG = G[j] - eG[j]
            cH = H[j] - eH[j]
            if cH >= mcw:
                loss = (_gain(cG, cH, lam) + _gain(eG[j], eH[j], lam)) - root_gain[j]
                split = (x + last[j]) * np.float32(0.5)
                _update(j, loss, f, last[j] if split == x else split,
                        best_loss, best_feature, best_value)
        eG[j] += g[i]
        eH[j] += h[i]
        last[j] = x
    for j in frontier:  # the candidate with every sample on one side
        cG = G[j] - eG[j]
        cH = H[j] - eH[j]
        if eH[j] >= mcw and cH >= mcw:
            loss = (_gain(cG, cH, lam) + _gain(eG[j], eH[j], lam)) - root_gain[j]
            gap = abs(last[j]) + RT_EPS
            _update(j, loss, f, last[j] - gap, best_loss, best_feature, best_value)


@kernel
def _update(j, loss, f, value, best_loss, best_feature, best_value):
    """xgboost's SplitEntry::Update: a lower feature index wins a tie."""
    if math.isinf(loss):
        return
    if best_feature[j] <= f:
        better = loss > best_loss[j]
    else:
        better = not (best_loss[j] > loss)
    if better:
        best_loss[j] = loss
        best_feature[j] = f
        best_value[j] = value


@kernel
def _prune(nodes, k0, k, gamma, best_loss):
    """Collapse, bottom-up, splits whose loss change is below gamma; drop the removed nodes."""
    alive = np.ones(k - k0, dtype=np.bool_)
    parent = np.full(k - k0, -1, dtype=np.int64)
    for j in range(k - k0):
        if nodes[k0 + j]["left"] != LEAF:
            parent[nodes[k0 + j]["left"] - k0] = j
            parent[nodes[k0 + j]["right"] - k0] = j
    gamma32 = np.float32(gamma)
    for j in range(k - k0):
        while alive[j] and nodes[k0 + j]["left"] == LEAF and parent[j] >= 0:
            p = parent[j]
            left, right = nodes[k0 + p]["left"] - k0, nodes[k0 + p]["right"] - k0
            both_leaves = nodes[k0 + left]["left"] == LEAF and nodes[k0 + right]["left"] == LEAF
            if not (both_leaves and best_loss[p] < gamma32):
                break
            alive[left] = alive[right] = False
            node = nodes[k0 + p]
            node["feature"] = UNDEFINED
            node["threshold"] = -2.0
            node["left"] = node["right"] = LEAF
            node["improvement"] = 0.0
            j = p
    new_id = np.cumsum(alive) - 1
    w = k0
    for j in range(k - k0):
        if alive[j]:
            nodes[w] = nodes[k0 + j]
            if nodes[w]["left"] != LEAF:
                nodes[w]["left"] = k0 + new_id[nodes[w]["left"] - k0]
                nodes[w]["right"] = k0 + new_id[nodes[w]["right"] - k0]
            w += 1
    return w


# --- K >= 3 classes: xgboost's multi:softprob ---------------------------------------------


def initial_margins(y, n_classes):
    """xgboost's intercept for K classes: log(share + 1e-6) per class (kRtEps inside the log),
    centred on its mean, in float32."""
    shares = (np.bincount(y.astype(np.int64), minlength=n_classes).astype(np.float32)
              / np.float32(y.shape[0]))
    logs = np.log(shares + RT_EPS)
    return (logs - np.float32(logs.astype(np.float64).mean())).astype(np.float32)


@kernel
def softmax_gradients(y, margin, g, h):
    """g[k, i] = p_ik - y_ik and h[k, i] = max(2 p_ik (1 - p_ik), 1e-16), as xgboost's softmax
    objective: float32 but for the sum of the exponentials (float64), and the max taken
    from the smallest normal float32 up (xgboost's starting value)."""
    K = margin.shape[1]
    one = np.float32(1.0)
    two = np.float32(2.0)
    for i in range(margin.shape[0]):
        top = np.float32(1.1754944e-38)
        for k in range(K):
            top = max(margin[i, k], top)
        total = 0.0
        for k in range(K):
            total += math.exp(margin[i, k] - top)
        for k in range(K):
            p = math.exp(margin[i, k] - top) / np.float32(total)
            h[k, i] = max(two * p * (one - p), _HESS_FLOOR)
            g[k, i] = p - one if y[i] == k else p
