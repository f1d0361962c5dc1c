"""The record of a fit: every quantity of every round, read by the app.

A Trace stores only what cannot be derived cheaply: the raw scores F_m of the
training points at every round, the leaf each point falls in, the bags and the
trees. Residuals, probabilities, losses and predictions anywhere on the plane
are derived from those on demand.

K >= 3 classes (``trace.n_classes``; ``trace.is_multiclass``): every round has K
trees, tree (m, k) fitted to y_k - p_k, and a class axis is added last wherever a
quantity has one value per class:

    f0                              (K,)            f0_k
    raw, leaf                       (M + 1, n, K)   F_mk and the leaf in tree (m, k)
    tree(m, k), regions(m, lo, hi, k)               tree k of round m (k defaults to 0)
    residual(m), hessian(m), proba(m)   (n, K)      y_k - p_k, p_k (1 - p_k), p_k
    sample_residuals(i)             (M + 1, K)
    decision_function(X, m)         (len(X), K)
    staged_decision_function(X)     (M + 1, len(X), K)
    staged_decision_grid(xs, ys)    (M + 1, len(ys), len(xs), K)
    predict_proba(X, m)             (len(X), K)     softmax rows, summing to 1
    train_loss, valid_loss          (M + 1,)        the mean multinomial log-loss
    train_accuracy                  (M + 1,)        argmax_k F_k against the label
    nodes, offsets                  trees class by class: offsets (K, M + 1), tree (m, k)
                                    is nodes[offsets[k, m - 1]:offsets[k, m]]

y holds class indices 0..K-1 (classes[k] is the label), as for two classes (0/1).
Binary fits and regressions keep their shapes (raw (M + 1, n), f0 a float).

Histogram trees (split="histogram") compare float64 x with float64 bin thresholds, and
the Trace adds ``bin_thresholds`` (per feature) and ``tree_histograms(m, k)`` (per node:
the split's bin, the order of the splits, whether its histogram was built from its
samples or subtracted from its parent's).
"""

from functools import cached_property

import numpy as np

from .kernel import kernel
from . import losses, second_order
from .nodes import LEAF


class Trace:
    """Everything about one boosting fit, round by round (round 0 is the constant f0).

    Attributes
    ----------
    params : dict, the fit's parameters
    classes : the original labels in sorted order (class k is classes[k]), or None for
        regression
    X, y : training data (y the class index 0..K-1 for classification)
    X_valid, y_valid : validation data or None
    f0 : float, the best constant
    raw : (n_rounds + 1, n) array, F_m at the training points
    leaf : (n_rounds + 1, n) int array (int8 or int16 when the trees are small enough), the
        leaf (node id in tree m) of each point; row 0 is -1
    in_bag : (n_rounds + 1, n) bool array, or None without subsampling
    nodes, offsets : all trees' nodes (dtype ``nodes.NODE``); tree m is nodes[offsets[m-1]:offsets[m]]
    rho : (n_rounds + 1,) line-search steps (leaf="line_search"), else None
    bin_thresholds : histogram trees (split="histogram"): per feature, the float64 bin
        thresholds (bin i holds thresholds[i - 1] < x <= thresholds[i]); else None
    hist_nodes : histogram trees: one ``histogram_tree.HIST_NODE`` record per node, aligned
        with ``nodes`` (split bin, split order, histogram built or subtracted); else None

    Histogram trees compare float64 x <= threshold (scikit-learn's HistGradientBoosting
    predicts in float64); the other trees compare float32(x), as their references do.
    """

    def __init__(self, *, params, classes, X, y, X_valid, y_valid, f0, raw, leaf, in_bag,
                 nodes, offsets, rho=None, bin_thresholds=None, hist_nodes=None):
        self.params = params
        self.classes = classes
        self.X, self.y = X, y
        self.X_valid, self.y_valid = X_valid, y_valid
        self.f0 = f0
        self.raw = raw
        largest = int(np.diff(offsets, axis=-1).max())
        for small in (np.int8, np.int16):  # leaf ids take 1 byte a point-round up to depth 6
            if largest < np.iinfo(small).max:
                leaf = leaf.astype(small, copy=False)
                break
        self.leaf = leaf
        self.in_bag = in_bag
        self.nodes = nodes
        self.offsets = offsets
        self.rho = rho
        self.bin_thresholds = bin_thresholds
        self.hist_nodes = hist_nodes
        for array in (self.raw, self.leaf, self.nodes, self.offsets):
            array.flags.writeable = False  # one trace is shared by every session
        if hist_nodes is not None:
            hist_nodes.flags.writeable = False

    # --- what was fitted ---

    @property
    def loss(self):
        return self.params["loss"]

    @property
    def is_classifier(self):
        return self.classes is not None

    @property
    def n_classes(self):
        """K, the number of classes (2 for a binary fit); None for a regression."""
        return None if self.classes is None else len(self.classes)

    @property
    def is_multiclass(self):
        """True with K >= 3 classes: K trees a round under the softmax."""
        return self.classes is not None and len(self.classes) > 2

    @property
    def n_rounds(self):
        return self.params["n_rounds"]

    @property
    def learning_rate(self):
        return self.params["learning_rate"]

    @property
    def _code(self):
        return losses.CODES[self.loss]

    @property
    def second_order(self):
        """True for xgboost-style trees: float32 margins, gradients and hessians."""
        return self.params.get("split") == "hessian"

    @property
    def histogram(self):
        """True for histogram trees (scikit-learn's HistGradientBoosting): float64 comparisons."""
        return self.params.get("split") == "histogram"

    def tree_histograms(self, m, k=0):
        """The HIST_NODE records of tree m (of class k), aligned with ``tree(m, k)``:
        each node's split bin, its rank in the best-first order and how its histogram
        was obtained. Histogram trees only."""
        if self.hist_nodes is None:
            raise ValueError("tree_histograms is for split='histogram' fits; this fit has "
                             f"split={self.params.get('split')!r}.")
        self._check_round(m, first=1)
        if not self.is_multiclass:
            return self.hist_nodes[self.offsets[m - 1]:self.offsets[m]]
        _, offsets = self._trees_of(k)
        start = self.offsets[k, 0]
        return self.hist_nodes[start:self.offsets[k, -1]][offsets[m - 1]:offsets[m]]

    def tree(self, m, k=0):
        """Nodes of tree m (1..n_rounds), of class k with K >= 3 classes; node 0 is the root."""
        self._check_round(m, first=1)
        nodes, offsets = self._trees_of(k)
        return nodes[offsets[m - 1]:offsets[m]]

    def _trees_of(self, k):
        """(nodes, offsets) of class k's trees alone, offsets from 0 (all trees below K = 3)."""
        if not self.is_multiclass:
            if k != 0:
                raise ValueError(f"class must be 0 for a fit with one tree a round; got {k!r}.")
            return self.nodes, self.offsets
        if not (isinstance(k, (int, np.integer)) and 0 <= k < self.n_classes):
            raise ValueError(f"class must be an integer in 0..{self.n_classes - 1}; got {k!r}.")
        start = self.offsets[k, 0]
        return self.nodes[start:self.offsets[k, -1]], self.offsets[k] - start

    # --- quantities at round m on the training points ---

    def residual(self, m):
        """Pseudo-residuals -dL/dF at F_m (y - p for log-loss); tree m + 1 is fitted to them."""
        self._check_round(m)
        return self._derivatives(self.y, self.raw[m])[0]

    def hessian(self, m):
        """Second derivatives at F_m (p (1 - p) for log-loss), as the leaf values use them."""
        self._check_round(m)
        return self._derivatives(self.y, self.raw[m])[1]

    def sample_residuals(self, i):
        """Pseudo-residual of training sample i at every round, shape (n_rounds + 1,):
        entry m is ``residual(m)[i]``, computed the same way (float32 for second-order
        trees), without computing every other sample's."""
        raw = np.ascontiguousarray(self.raw[:, i])
        return self._derivatives(np.full(len(raw), self.y[i]), raw)[0]  # (M + 1,) or (M + 1, K)

    def _derivatives(self, y, raw):
        """(-dL/dF, d2L/dF2) of labels y at scores raw, as the fit computed them."""
        if self.histogram:
            return self._histogram_derivatives(y, raw)
        if self.is_multiclass:
            K = self.n_classes
            if self.second_order:
                g32, h32 = np.empty((K, len(y)), np.float32), np.empty((K, len(y)), np.float32)
                second_order.softmax_gradients(y, raw.astype(np.float32), g32, h32)
                return -g32.T.astype(np.float64), h32.T.astype(np.float64)
            r = np.empty((K, len(y)))
            losses.softmax_residuals(y, np.ascontiguousarray(raw, dtype=np.float64), r)
            p = (y[:, None] == np.arange(K)) - r.T
            return r.T.copy(), p * (1.0 - p)
        if self.second_order:
            g32, h32 = np.empty(len(y), np.float32), np.empty(len(y), np.float32)
            second_order.gradients(y, raw.astype(np.float32), g32, h32)
            return -g32.astype(np.float64), h32.astype(np.float64)
        r, h = np.empty_like(y), np.empty_like(y)
        # a writable copy: the fit's own compiled kernel (read-only arrays are another type)
        losses.negative_gradient(self._code, y, np.array(raw), r)
        losses.hessian(self._code, y, r, h)
        return r, h

    def _histogram_derivatives(self, y, raw):
        """-g and h as histogram boosting computed them (float32, scikit-learn's formulas)."""
        from . import histogram_boosting as hb  # the histogram engine, loaded when used
        kind = (hb.SQUARED if not self.is_classifier else
                hb.MULTINOMIAL if self.is_multiclass else hb.BINARY)
        scores = np.ascontiguousarray(raw, dtype=np.float64).reshape(len(y), -1)
        K = scores.shape[1]
        g, h = np.empty((K, len(y)), np.float32), np.empty((K, len(y)), np.float32)
        hb.gradients(kind, np.ascontiguousarray(y, dtype=np.float64), scores, g, h)
        r, h = -g.T.astype(np.float64), h.T.astype(np.float64)
        return (r, h) if self.is_multiclass else (r[:, 0].copy(), h[:, 0].copy())

    def proba(self, m):
        """p(class 1) of the training points at round m; (n, K) p_k with K >= 3 classes."""
        self._check_round(m)
        return self.link(self.raw[m])

    def link(self, raw):
        """Probability from raw score: sigmoid(F) (log-loss) or sigmoid(2F) (exponential);
        the softmax over the last axis with K >= 3 classes."""
        if self.is_multiclass:
            return losses.softmax(raw)
        return losses.probability(self._code, raw)

    @cached_property
    def train_loss(self):
        return self._mean_loss(self.y, self.raw)

    def _mean_loss(self, y, raw):
        if self.is_multiclass:
            return losses.multinomial_loss(y, raw)
        return losses.mean_loss(self._code, y, raw)

    @cached_property
    def valid_raw(self):
        return None if self.X_valid is None else self.staged_decision_function(self.X_valid)

    @cached_property
    def valid_loss(self):
        return None if self.X_valid is None else self._mean_loss(self.y_valid, self.valid_raw)

    @cached_property
    def train_accuracy(self):
        return self._accuracy(self.y, self.raw)

    @cached_property
    def valid_accuracy(self):
        return None if self.X_valid is None else self._accuracy(self.y_valid, self.valid_raw)

    def _accuracy(self, y, raw):
        if not self.is_classifier:
            return None
        if self.is_multiclass:
            return (raw.argmax(axis=-1) == y).mean(axis=1)
        return ((raw > 0) == (y == 1)).mean(axis=1)

    # --- predictions anywhere ---

    def decision_function(self, X, m=None):
        """F_m(x) for each row of X (m defaults to the last round)."""
        m = self.n_rounds if m is None else m
        self._check_round(m)
        points = self._points(X)
        columns = []
        for k, f0 in enumerate(np.atleast_1d(self.f0)):
            out = np.empty((2, len(points)))
            out[0] = f0
            flat, offsets = self._flat[k]
            _staged_flat(*flat, offsets[:m + 1], self.learning_rate, self.second_order, points, out,
                         True)
            columns.append(out[1] if m > 0 else out[0])
        return np.column_stack(columns) if self.is_multiclass else columns[0]

    def staged_decision_function(self, X):
        """Array (n_rounds + 1, len(X)) whose row m is F_m(X); (n_rounds + 1, len(X), K) with
        K >= 3 classes."""
        points = self._points(X)
        layers = []
        for k, f0 in enumerate(np.atleast_1d(self.f0)):
            out = np.empty((self.n_rounds + 1, len(points)))
            out[0] = f0
            flat, offsets = self._flat[k]
            _staged_flat(*flat, offsets, self.learning_rate, self.second_order, points, out, False)
            layers.append(out)
        return np.stack(layers, axis=-1) if self.is_multiclass else layers[0]

    @cached_property
    def _flat(self):
        """Per class, the trees as flat arrays (feature, threshold, children, value, depth) and
        their offsets, to predict."""
        return [(_flatten(*self._trees_of(k)), self._trees_of(k)[1])
                for k in range(self.n_classes if self.is_multiclass else 1)]

    def staged_decision_grid(self, xs, ys, dtype=np.float64):
        """F_m on the grid of points (xs[j], ys[i]) for every m: array (n_rounds + 1, len(ys),
        len(xs)), with a last axis of K classes for K >= 3.

        Equal to staged_decision_function on the grid's points (two features only),
        but each tree is evaluated once per cell of its own thresholds, not per point.
        With dtype=np.float32 (half the memory, for drawing) every value is that
        float64 result rounded once, clipped to +-1e30 so that it stays finite.
        """
        if self.X.shape[1] != 2:
            raise ValueError(f"a grid needs two features; this fit has {self.X.shape[1]}.")
        xs_at, ys_at = self._cast(np.ravel(xs)), self._cast(np.ravel(ys))
        layers = []
        for k, f0 in enumerate(np.atleast_1d(self.f0)):
            out = np.empty((self.n_rounds + 1, len(ys_at), len(xs_at)), dtype=dtype)
            limit = 1e30 if out.dtype == np.float32 else None
            _staged_grid(*self._trees_of(k), float(f0), self.learning_rate, self.second_order,
                         xs_at, ys_at, limit, out)
            layers.append(out)
        return np.stack(layers, axis=-1) if self.is_multiclass else layers[0]

    def predict_proba(self, X, m=None):
        """(len(X), K) class probabilities at round m (K = 2 for a binary fit)."""
        p = self.link(self.decision_function(X, m))
        return p if self.is_multiclass else np.column_stack([1 - p, p])

    def predict(self, X, m=None):
        """Labels (classification) or values (regression) at round m."""
        F = self.decision_function(X, m)
        if self.is_multiclass:
            return self.classes[F.argmax(axis=1)]
        return F if not self.is_classifier else self.classes[(F > 0).astype(int)]

    def regions(self, m, lo, hi, k=0):
        """Leaves of tree m (of class k) as boxes on the plane of the first two features.

        Returns a record array with fields node, x0, x1, y0, y1: the box of each
        leaf, starting from the rectangle lo..hi (each a pair (x, y)).
        """
        tree = self.tree(m, k)
        boxes = []
        stack = [(0, lo[0], hi[0], lo[1], hi[1])]
        while stack:
            k, x0, x1, y0, y1 = stack.pop()
            node = tree[k]
            if node["left"] == LEAF:
                boxes.append((k, x0, x1, y0, y1))
                continue
            t = node["threshold"]
            if node["feature"] == 0:
                stack.append((node["right"], max(x0, t), x1, y0, y1))
                stack.append((node["left"], x0, min(x1, t), y0, y1))
            else:
                stack.append((node["right"], x0, x1, max(y0, t), y1))
                stack.append((node["left"], x0, x1, y0, min(y1, t)))
        boxes.sort()
        return np.rec.fromrecords(boxes, names="node,x0,x1,y0,y1")

    @property
    def point_dtype(self):
        """The precision the trees read x in: float64 for histogram trees, else float32."""
        return np.float64 if self.histogram else np.float32

    def comparable(self, X):
        """X as this fit's trees compare it, as float64: rounded to float32 first (scikit-learn's
        and xgboost's exact trees), or not (histogram trees, HistGradientBoosting's)."""
        return self._cast(np.asarray(X, dtype=np.float64))

    def _points(self, X):
        """X of shape (k, features) as the trees compare it (see ``comparable``)."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.X.shape[1]:
            raise ValueError(f"X must have shape (k, {self.X.shape[1]}); got {X.shape}.")
        return self._cast(X)

    def _cast(self, values):
        # float32 values are widened back to float64 (exactly): the comparison with a float64
        # threshold is the same, and every rule shares one compiled copy of the predictions
        return _float64(values) if self.histogram else _float32(values).astype(np.float64)

    def _check_round(self, m, first=0):
        if not (isinstance(m, (int, np.integer)) and first <= m <= self.n_rounds):
            raise ValueError(f"round must be an integer in {first}..{self.n_rounds}; got {m!r}.")

    @property
    def nbytes(self):
        """Memory held by the record itself (not the training data)."""
        bag = 0 if self.in_bag is None else self.in_bag.nbytes
        return self.raw.nbytes + self.leaf.nbytes + self.nodes.nbytes + self.offsets.nbytes + bag


def _float32(values):
    """Points rounded to float32, as scikit-learn's and xgboost's exact trees read them."""
    values = np.asarray(values, dtype=np.float64)
    if not np.isfinite(values).all():
        raise ValueError("X contains NaN or infinite values.")
    return np.ascontiguousarray(values, dtype=np.float32)


def _float64(values):
    """Points as histogram trees compare them: in float64, as HistGradientBoosting does."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    if not np.isfinite(values).all():
        raise ValueError("X contains NaN or infinite values.")
    return values


@kernel
def step(F, value, learning_rate, single):
    """F_m = F_(m-1) + nu * gamma, in float64 as scikit-learn, or in float32 as xgboost."""
    if single:
        return np.float32(F) + np.float32(value) * np.float32(learning_rate)
    return F + learning_rate * value


@kernel
def _staged_grid(nodes, offsets, f0, learning_rate, single, xs, ys, limit, out):
    """Fill out[m] = F_(m-1) + nu * tree_m on the grid xs x ys, tree by tree.

    A tree's leaf at (x, y) depends only on which side of each of its thresholds x
    and y fall (compared as at any point: see Trace.comparable), so the tree is walked once
    per (x cell, y cell) of its thresholds and the grid reads the leaf from a table.
    With a ``limit`` (a float32 ``out``) F is summed in float64 (``acc``) and written
    clipped to +-limit; with None, out[m - 1] is the sum (the faster path). None is a type:
    each dtype's copy compiles only its own path.
    """
    xcell = np.empty(xs.shape[0], dtype=np.int64)
    ycell = np.empty(ys.shape[0], dtype=np.int64)
    if limit is None:
        out[0] = f0
    else:
        acc = np.full((ys.shape[0], xs.shape[0]), f0)
        out[0] = min(max(f0, -limit), limit)
    for m in range(1, out.shape[0]):
        tree = nodes[offsets[m - 1]:offsets[m]]
        zero = np.int64(0)  # typed: a literal would compile _cuts once per feature
        cuts_x = _cuts(tree, zero)
        cuts_y = _cuts(tree, zero + 1)
        for j in range(xs.shape[0]):  # cell c: the first c cuts lie below x
            xcell[j] = _below(cuts_x, np.float64(xs[j]))
        for i in range(ys.shape[0]):
            ycell[i] = _below(cuts_y, np.float64(ys[i]))
        table = np.empty((cuts_y.shape[0] + 1, cuts_x.shape[0] + 1))
        for cy in range(table.shape[0]):
            for cx in range(table.shape[1]):
                k = 0
                while tree[k]["left"] != LEAF:
                    if tree[k]["feature"] == 0:
                        left = _below(cuts_x, tree[k]["threshold"]) >= cx
                    else:
                        left = _below(cuts_y, tree[k]["threshold"]) >= cy
                    k = tree[k]["left"] if left else tree[k]["right"]
                table[cy, cx] = tree[k]["value"]
        for i in range(ys.shape[0]):
            row = table[ycell[i]]
            if limit is None:
                for j in range(xs.shape[0]):
                    out[m, i, j] = step(out[m - 1, i, j], row[xcell[j]], learning_rate, single)
            else:
                for j in range(xs.shape[0]):
                    acc[i, j] = step(acc[i, j], row[xcell[j]], learning_rate, single)
                    out[m, i, j] = min(max(acc[i, j], -limit), limit)


@kernel
def _cuts(tree, feature):
    """The tree's distinct thresholds on ``feature``, ascending (np.unique, by insertion:
    a tree has few, and np.unique's sort takes seconds to compile)."""
    cuts = np.empty(tree.shape[0])
    n = 0
    for k in range(tree.shape[0]):
        if tree[k]["left"] == LEAF or tree[k]["feature"] != feature:
            continue
        t = tree[k]["threshold"]
        p = n
        while p > 0 and cuts[p - 1] > t:
            p -= 1
        if p > 0 and cuts[p - 1] == t:
            continue
        for q in range(n, p, -1):
            cuts[q] = cuts[q - 1]
        cuts[p] = t
        n += 1
    return cuts[:n]


@kernel
def _below(cuts, value):
    """How many of the ascending ``cuts`` lie below ``value`` (np.searchsorted, side left)."""
    lo, hi = 0, cuts.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if cuts[mid] < value:
            lo = mid + 1
        else:
            hi = mid
    return lo


_BLOCK = 256  # points per block: their features and scores stay in cache over all trees


@kernel
def _flatten(nodes, offsets):
    """Flat arrays of all trees: feature, threshold, the two children as global rows
    (a leaf is its own child, so every point can take the same number of steps), value,
    and each tree's depth."""
    n = nodes.shape[0]
    feature = np.zeros(n, dtype=np.int64)
    threshold = np.zeros(n)
    left = np.empty(n, dtype=np.int64)
    right = np.empty(n, dtype=np.int64)
    value = np.empty(n)
    depth = np.zeros(offsets.shape[0], dtype=np.int64)
    for m in range(1, offsets.shape[0]):
        base = offsets[m - 1]
        for k in range(base, offsets[m]):
            value[k] = nodes[k]["value"]
            depth[m] = max(depth[m], nodes[k]["depth"])
            if nodes[k]["left"] == LEAF:
                left[k] = right[k] = k
            else:
                feature[k] = nodes[k]["feature"]
                threshold[k] = nodes[k]["threshold"]
                left[k] = base + nodes[k]["left"]
                right[k] = base + nodes[k]["right"]
    return feature, threshold, left, right, value, depth


@kernel
def _staged_flat(feature, threshold, left, right, value, depth, offsets, learning_rate, single,
                 X, out, last_only):
    """out[m] = out[m - 1] + nu * tree_m(X) for every tree, block of points by block of points.

    With ``last_only``, out has two rows and out[1] receives F after the last tree
    (out[0] holds F_0). Within a block, the points of a block descend each tree level
    by level together (independent steps, no branch on the data); every tree is
    applied in round order, so each point's sum is the one the references add.
    """
    n = X.shape[0]
    n_trees = offsets.shape[0] - 1
    at = np.empty(_BLOCK, dtype=np.int64)
    for lo in range(0, n, _BLOCK):
        hi = min(lo + _BLOCK, n)
        if last_only:
            for i in range(lo, hi):
                out[1, i] = out[0, i]
        for m in range(1, n_trees + 1):
            row = 1 if last_only else m
            before = 1 if last_only else m - 1
            at[:hi - lo] = offsets[m - 1]
            for _ in range(depth[m]):
                for i in range(lo, hi):
                    k = at[i - lo]
                    go_left = X[i, feature[k]] <= threshold[k]
                    at[i - lo] = right[k] + go_left * (left[k] - right[k])
            for i in range(lo, hi):
                out[row, i] = step(out[before, i], value[at[i - lo]], learning_rate, single)
