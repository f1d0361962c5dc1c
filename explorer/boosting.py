"""Gradient boosting, fitted the way scikit-learn's GradientBoostingClassifier
(and GradientBoostingRegressor) fits it, recording every round.

Algorithm (Friedman's TreeBoost with one Newton step per leaf):
    F_0 = f0, the best constant
    for m = 1..M:
        r_i = -dL/dF at F_(m-1)(x_i)                    (pseudo-residuals; y - p for log-loss)
        fit a squared-error regression tree to r       (regions R_jm)
        gamma_jm = sum r / sum h over the leaf         (Newton step; the mean r for squared error)
        F_m = F_(m-1) + nu * gamma_j(x)

Variants the explorer compares on the same data: other leaf rules (the mean
residual, the exact leaf minimiser, one line search per tree) and second-order
trees (split="hessian", as xgboost's exact method builds them; see second_order.py), and
histogram trees (split="histogram", as scikit-learn's HistGradientBoosting builds them;
see histogram_boosting.py). Which parameters each rule uses, and its defaults: rules.py.

The whole loop runs in one compiled call; Python only checks the input, draws
scikit-learn's random numbers and wraps the record in a Trace.
"""

import inspect
import numbers
import threading

import numpy as np

from .kernel import kernel
from . import histogram_boosting, losses, multiclass, rules, second_order
from .losses import SQUARED_ERROR
from .trace import Trace, step
from .exact_split import presort, restart, restrict_order, workspace
from .summation import gathered_sum
from .nodes import LEAF, NODE, apply, copy_into, leaf_members, leaves_of
from .nodes import sum_up as _sum_up
from .tree import grow_best_first, grow_depth_first, reciprocals

FLOAT32_MAX = float(np.finfo(np.float32).max)
MAX_ROUNDS = 5000
DIVERGED = 1e150  # |F| beyond this (or not finite) ends a fit: its squared error would overflow
_NO_LIMIT = np.iinfo(np.int32).max  # scikit-learn's depth for max_depth=None
SPLITS = rules.SPLITS
LEAF_RULES = ("newton", "mean", "exact", "line_search")
NEWTON, MEAN, EXACT, LINE_SEARCH = range(4)
RULE_DEFAULT = rules.RULE_DEFAULT


def fit(X, y, *, loss="log_loss", n_rounds=100, learning_rate=0.1, max_depth=RULE_DEFAULT,
        max_leaves=RULE_DEFAULT, min_samples_leaf=RULE_DEFAULT, min_samples_split=RULE_DEFAULT,
        subsample=RULE_DEFAULT, random_state=0, X_valid=None, y_valid=None,
        split="squared_error", leaf=RULE_DEFAULT, reg_lambda=RULE_DEFAULT, gamma=RULE_DEFAULT,
        min_child_weight=RULE_DEFAULT, max_bins=RULE_DEFAULT):
    """Fit gradient boosting and record every round.

    Builds the model scikit-learn's GradientBoostingClassifier (loss "log_loss" or
    "exponential") or GradientBoostingRegressor (loss "squared_error") builds with
    n_estimators=n_rounds, max_leaf_nodes=max_leaves and the same other parameters:
    the same trees and the same raw scores at every round. With split="histogram",
    scikit-learn's HistGradientBoostingClassifier or HistGradientBoostingRegressor
    (early_stopping=False, max_iter=n_rounds, max_leaf_nodes=max_leaves,
    l2_regularization=reg_lambda); with split="hessian", xgboost's exact method.

    The parameters marked "per rule" default to the split rule's own defaults
    (``explorer.rules``): with split="histogram", HistGradientBoosting's (max_leaves 31,
    max_depth None, min_samples_leaf 20, reg_lambda 0, max_bins 255); otherwise max_depth
    3, max_leaves None, min_samples_leaf 1, reg_lambda 1. A parameter the rule does not
    use is refused unless it is left out (or equal to its unused value, ``rules.UNUSED``).

    Parameters
    ----------
    X : array-like of shape (n, d)
    y : array-like of shape (n,)
        Labels for classification: two distinct labels (the larger one is class 1), or
        3..10 (K classes, K trees a round under the softmax, as scikit-learn builds them;
        see multiclass.py); numbers for regression.
    loss : {"log_loss", "exponential", "squared_error"}
    n_rounds : int in 1..5000
    learning_rate : float in (0, 10]
    max_depth : int >= 1 or None (unlimited), per rule
    max_leaves : int >= 2 or None (unlimited), per rule; when set, trees grow best-first
        (histogram trees always grow best-first)
    min_samples_leaf : int >= 1, per rule
    min_samples_split : int >= 2, with split="squared_error"
    subsample : float in (0, 1], with split="squared_error"; each tree sees this fraction
        of the samples
    random_state : int in 0..2**32 - 1
    X_valid, y_valid : optional validation data, for the validation loss
    split : {"squared_error", "hessian", "histogram"}
        "squared_error" (scikit-learn's trees: least squares on the residuals) or
        "hessian": the second-order gain G^2/(H + reg_lambda) with leaves -G/(H + reg_lambda),
        building xgboost's trees (tree_method="exact", binary:logistic) from f0 = log-odds of
        the label mean. Needs loss="log_loss", a max_depth, and no max_leaves, subsample,
        min_samples_leaf or min_samples_split (xgboost's exact method has none of them).
        "histogram": features cut into at most max_bins bins, gain
        G_L^2/(H_L + reg_lambda) + G_R^2/(H_R + reg_lambda) - G^2/(H + reg_lambda) on
        gradient histograms, leaves -G/(H + reg_lambda), best-first growth: scikit-learn's
        HistGradientBoosting (see histogram_boosting.py). Loss "log_loss" (2..10 classes)
        or "squared_error"; Newton leaves; no subsample, min_samples_split, gamma or
        min_child_weight.    leaf : {"newton", "mean", "exact", "line_search"}, with split="squared_error"
        "newton": one Newton step sum r / sum h; "mean": the mean residual (a plain gradient
        step); "exact": the leaf's own loss minimised; "line_search": mean leaves, then one
        step rho_m for the whole tree minimising the loss.
    reg_lambda, gamma, min_child_weight : float >= 0, with split="hessian"
        xgboost's lambda (in the leaf weight and gain), gamma (splits gaining less are pruned)
        and minimum hessian sum per child. reg_lambda also with split="histogram" (per rule).
    max_bins : int in 2..255, with split="histogram"
        At most this many bins per feature.

    Returns
    -------
    Trace

    Raises
    ------
    ValueError
        Naming the parameter or problem, the value given and what is allowed.
    """
    if loss not in losses.CODES:
        raise ValueError(f"loss must be one of {sorted(losses.CODES)}; got {loss!r}.")
    code = losses.CODES[loss]
    if split not in SPLITS:
        raise ValueError(f"split must be one of {list(SPLITS)}; got {split!r}.")
    given = dict(max_depth=max_depth, max_leaves=max_leaves, min_samples_leaf=min_samples_leaf,
                 min_samples_split=min_samples_split, subsample=subsample, leaf=leaf,
                 reg_lambda=reg_lambda, gamma=gamma, min_child_weight=min_child_weight,
                 max_bins=max_bins)
    set_by_user = {name for name, value in given.items() if value is not RULE_DEFAULT}
    (max_depth, max_leaves, min_samples_leaf, min_samples_split, subsample, leaf, reg_lambda,
     gamma, min_child_weight, max_bins) = rules.resolve(split, **given).values()
    n_rounds = _int_param("n_rounds", n_rounds, 1, MAX_ROUNDS)
    learning_rate = _float_param("learning_rate", learning_rate, 0.0, 10.0, "(0, 10]")
    max_depth = _NO_LIMIT if max_depth is None else _int_param("max_depth", max_depth, 1, 1000)
    if max_leaves is not None:
        max_leaves = _int_param("max_leaves", max_leaves, 2, 1_000_000)
    min_samples_leaf = _int_param("min_samples_leaf", min_samples_leaf, 1, 1_000_000_000)
    min_samples_split = _int_param("min_samples_split", min_samples_split, 2, 1_000_000_000)
    subsample = _float_param("subsample", subsample, 0.0, 1.0, "(0, 1]")
    random_state = _int_param("random_state", random_state, 0, 2**32 - 1)
    max_bins = _int_param("max_bins", max_bins, 2, 255)
    if leaf not in LEAF_RULES:
        raise ValueError(f"leaf must be one of {list(LEAF_RULES)}; got {leaf!r}.")
    reg_lambda = _float_param("reg_lambda", reg_lambda, -1.0, 1e6, "[0, 1e6]", low_inclusive=0.0)
    gamma = _float_param("gamma", gamma, -1.0, 1e6, "[0, 1e6]", low_inclusive=0.0)
    min_child_weight = _float_param("min_child_weight", min_child_weight, -1.0, 1e6, "[0, 1e6]",
                                    low_inclusive=0.0)
    hessian = split == "hessian"
    _check_split_options(split, set_by_user, loss=loss, max_depth=max_depth,
                         max_leaves=max_leaves, subsample=subsample,
                         min_samples_leaf=min_samples_leaf,
                         min_samples_split=min_samples_split, leaf=leaf, reg_lambda=reg_lambda,
                         gamma=gamma, min_child_weight=min_child_weight, max_bins=max_bins)

    X = _features("X", X)
    y, classes = _targets("y", y, X.shape[0], code)
    n_trees = 1 if classes is None or len(classes) == 2 else len(classes)  # per round
    if n_trees > 1:
        _check_multiclass(n_trees, loss=loss, leaf=leaf)
    if (X_valid is None) != (y_valid is None):
        raise ValueError("X_valid and y_valid must be given together; got only one of them.")
    if X_valid is not None:
        X_valid = _features("X_valid", X_valid)
        if X_valid.shape[1] != X.shape[1]:
            raise ValueError(f"X_valid has {X_valid.shape[1]} features; X has {X.shape[1]}.")
        y_valid = _encode_valid(y_valid, X_valid.shape[0], classes)

    if split == "histogram":
        return _fit_histogram(X, y, classes, n_trees, data=dict(
            X_valid=X_valid, y_valid=y_valid), params=dict(
            loss=loss, n_rounds=n_rounds, learning_rate=learning_rate,
            max_depth=None if max_depth == _NO_LIMIT else max_depth, max_leaves=max_leaves,
            min_samples_leaf=min_samples_leaf, min_samples_split=min_samples_split,
            subsample=subsample, random_state=random_state, split=split, leaf=leaf,
            reg_lambda=reg_lambda, gamma=gamma, min_child_weight=min_child_weight,
            max_bins=max_bins))

    # scikit-learn's random numbers: per round, the bag's uniforms, then each tree's seed.
    n = X.shape[0]
    rng = np.random.RandomState(random_state)
    n_in_bag = max(1, int(subsample * n))
    uniforms = np.empty((n_rounds if subsample < 1.0 else 0, n))
    seeds = np.empty((n_rounds, n_trees), dtype=np.int64)
    for m in range(n_rounds):
        if subsample < 1.0:
            uniforms[m] = rng.uniform(size=n)
        for k in range(n_trees):
            seeds[m, k] = rng.randint(0, 2**31 - 1)

    X32 = np.ascontiguousarray(X, dtype=np.float32)
    if not getattr(_warming, "on", False):
        with _fits_lock:
            _fits["started"] += 1
    params = dict(loss=loss, n_rounds=n_rounds, learning_rate=learning_rate,
                  max_depth=None if max_depth == _NO_LIMIT else max_depth,
                  max_leaves=max_leaves, min_samples_leaf=min_samples_leaf,
                  min_samples_split=min_samples_split, subsample=subsample,
                  random_state=random_state, split=split, leaf=leaf, reg_lambda=reg_lambda,
                  gamma=gamma, min_child_weight=min_child_weight, max_bins=max_bins)
    data = dict(params=params, classes=classes, X=X, y=y, X_valid=X_valid, y_valid=y_valid)
    if n_trees > 1:
        return _fit_multiclass(X32, y, data, n_trees, hessian, learning_rate, max_depth,
                               -1 if max_leaves is None else max_leaves, min_samples_leaf,
                               min_samples_split, n_in_bag, uniforms, seeds, reg_lambda, gamma,
                               min_child_weight)
    seeds = seeds[:, 0]
    if hessian:
        f0 = second_order.initial_margin(y)
        raw, leaves, nodes, offsets = _boost_second_order(
            X32, y, f0, learning_rate, n_rounds, max_depth, reg_lambda, gamma, min_child_weight,
            presort(X32))
        in_bag = rho = None
    else:
        f0 = losses.initial_score(code, y)
        raw, leaves, in_bag, nodes, offsets, rho, diverged = _boost(
            X32, y, code, f0, learning_rate, max_depth, max_leaves,
            min_samples_leaf, min_samples_split, n_in_bag, uniforms if subsample < 1.0 else None,
            seeds, presort(X32),
            reciprocals(n), LEAF_RULES.index(leaf))
        if diverged > 0:
            raise DivergedError(
                f"the fit diverged at round {diverged}: the scores passed 1e150 with "
                f"loss={loss!r}, leaf={leaf!r}, learning_rate={learning_rate}. Lower the "
                "learning rate, or use Newton leaves.")
    return Trace(**data, f0=f0, raw=raw, leaf=leaves, in_bag=in_bag if subsample < 1.0 else None,
                 nodes=nodes, offsets=offsets, rho=rho if leaf == "line_search" else None)


def _fit_multiclass(X32, y, data, n_classes, hessian, learning_rate, max_depth, max_leaves,
                    min_samples_leaf, min_samples_split, n_in_bag, uniforms, seeds, reg_lambda,
                    gamma, min_child_weight):
    """K >= 3 classes: scikit-learn's K trees a round (or xgboost's, split="hessian")."""
    n_rounds = seeds.shape[0]
    in_bag = np.ones((n_rounds + 1 if len(uniforms) else 0, len(y)), dtype=np.bool_)
    for m in range(1, in_bag.shape[0]):  # one bag a round, shared by its K trees
        _bag(uniforms[m - 1], n_in_bag, in_bag[m])
    if hessian:
        f0 = second_order.initial_margins(y, n_classes)
        raw, leaves, nodes, offsets = multiclass.boost_second_order(
            X32, y, f0, learning_rate, n_rounds, max_depth, reg_lambda, gamma, min_child_weight,
            presort(X32))
        f0 = f0.astype(np.float64)
    else:
        f0 = losses.initial_scores(y, n_classes)
        raw, leaves, nodes, offsets = multiclass.boost(
            X32, y, n_classes, f0, learning_rate, max_depth, max_leaves, min_samples_leaf,
            min_samples_split, in_bag, seeds, presort(X32), reciprocals(len(y)))
    nodes, offsets = multiclass.by_class(nodes, offsets, n_classes)
    return Trace(**data, f0=f0, raw=raw, leaf=leaves, in_bag=in_bag if len(uniforms) else None,
                 nodes=nodes, offsets=offsets)


def _check_multiclass(n_classes, *, loss, leaf):
    """K >= 3 classes: only the multinomial log-loss with its Newton leaves (scikit-learn's)."""
    if n_classes > multiclass.MAX_CLASSES:
        raise ValueError(f"y holds {n_classes} classes; the explorer fits at most "
                         f"{multiclass.MAX_CLASSES} (one tree per class and round).")
    if loss == "exponential":
        raise ValueError(f"loss='exponential' is only suitable for two classes; y holds "
                         f"{n_classes}. Use loss='log_loss' (the multinomial log-loss) instead.")
    if leaf != "newton":
        raise ValueError(f"leaf={leaf!r} is for two classes; with {n_classes} classes the "
                         "leaves are scikit-learn's Newton steps: leave leaf='newton'.")


# fit's keyword arguments and their defaults with the default split rule (each rule's
# own are rules.defaults(split))
DEFAULTS = {name: p.default for name, p in inspect.signature(fit).parameters.items()
            if p.default is not inspect.Parameter.empty}
DEFAULTS.update({name: value for name, value in rules.defaults().items() if name in DEFAULTS})


def _check_split_options(split, set_by_user, *, loss, max_depth, **options):
    """Refuse options the chosen split rule would silently ignore, and losses it lacks."""
    if split == "hessian":
        if loss != "log_loss":
            raise ValueError(f"split='hessian' supports loss='log_loss' only; got {loss!r}.")
        if max_depth == _NO_LIMIT:
            raise ValueError("split='hessian' needs a max_depth (xgboost's exact method has "
                             "no unlimited depth); got None.")
    if split == "histogram":
        if loss == "exponential":
            raise ValueError("split='histogram' supports loss='log_loss' and "
                             "'squared_error' (HistGradientBoosting's); got 'exponential'.")
        if options["leaf"] != "newton":
            raise ValueError(f"leaf={options['leaf']!r} has no effect with split='histogram': "
                             "histogram trees have Newton leaves -G/(H + reg_lambda) only; "
                             "leave leaf out or change split.")
    for name, value in options.items():
        if name in set_by_user and not rules.uses(name, split) and value != rules.UNUSED[name]:
            raise ValueError(f"{name}={value!r} has no effect with split={split!r}; leave it "
                             f"out (or at {rules.UNUSED[name]!r}) or change split.")


def _fit_histogram(X, y, classes, n_trees, data, params):
    """split="histogram": scikit-learn's HistGradientBoosting, every round recorded."""
    kind = (histogram_boosting.SQUARED if classes is None else
            histogram_boosting.BINARY if n_trees == 1 else histogram_boosting.MULTINOMIAL)
    if not getattr(_warming, "on", False):
        with _fits_lock:
            _fits["started"] += 1
    out = histogram_boosting.boost(
        X, y, kind, n_trees, max_bins=params["max_bins"], n_rounds=params["n_rounds"],
        learning_rate=params["learning_rate"], max_leaves=params["max_leaves"],
        max_depth=params["max_depth"], min_samples_leaf=params["min_samples_leaf"],
        reg_lambda=params["reg_lambda"], random_state=params["random_state"])
    nodes, info, offsets = out["nodes"], out["info"], out["offsets"]
    if n_trees > 1:
        nodes, by_class = multiclass.by_class(nodes, offsets, n_trees)
        info, _ = multiclass.by_class(info, offsets, n_trees)
        offsets = by_class
        f0, raw, leaf = out["f0"], out["raw"], out["leaf"]
    else:
        f0, raw, leaf = float(out["f0"][0]), out["raw"][:, :, 0], out["leaf"][:, :, 0]
    return Trace(params=params, classes=classes, X=X, y=y, **data, f0=f0, raw=raw, leaf=leaf,
                 in_bag=None, nodes=nodes, offsets=offsets, bin_thresholds=out["cuts"],
                 hist_nodes=info)


class DivergedError(ValueError):
    """The scores grew without bound: the settings make boosting diverge."""


_fits = {"started": 0}
_fits_lock = threading.Lock()
_warming = threading.local()  # on in a thread running warm_fit: its fits are not counted


def fit_count():
    """How many fits this process has started for its users (one fit should serve every
    user of the same settings); the warm-up's fits do not count."""
    return _fits["started"]


# --- input checks -------------------------------------------------------------


def _int_param(name, value, low, high):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer in {low}..{high}; got {value!r}.")
    if not low <= value <= high:
        raise ValueError(f"{name} must be in {low}..{high}; got {value}.")
    return int(value)


def _float_param(name, value, low, high, allowed, low_inclusive=None):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number in {allowed}; got {value!r}.")
    above = value >= low_inclusive if low_inclusive is not None else value > low
    if not (above and value <= high):  # NaN fails this too
        raise ValueError(f"{name} must be in {allowed}; got {value}.")
    return float(value)


def _features(name, X):
    try:
        X = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric; could not read it as numbers ({exc}).") from None
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (samples x features); got {X.ndim}-D.")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} is empty: shape {X.shape}; need at least one sample and feature.")
    if not np.isfinite(X).all():
        raise ValueError(f"{name} contains NaN or infinite values; remove or fill them first.")
    if np.abs(X).max() > FLOAT32_MAX:
        raise ValueError(f"{name} has values beyond float32's range (|x| > {FLOAT32_MAX:.3g}); "
                         "rescale the data.")
    return X


def _targets(name, y, n, code):
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got shape {y.shape}.")
    if y.shape[0] != n:
        raise ValueError(f"X and {name} have different lengths: {n} and {y.shape[0]}.")
    if code == SQUARED_ERROR:
        try:
            y = y.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be numeric for squared_error.") from None
        if not np.isfinite(y).all():
            raise ValueError(f"{name} contains NaN or infinite values.")
        if np.abs(y).max() > FLOAT32_MAX:
            raise ValueError(f"{name} has values beyond float32's range; rescale it.")
        return y, None
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError(f"{name} contains NaN or infinite labels.")
    classes, encoded = np.unique(y, return_inverse=True)
    if classes.shape[0] < 2:
        raise ValueError(f"{name} must hold at least two classes for classification; "
                         f"found {classes.shape[0]}: {classes[:5].tolist()}.")
    return encoded.reshape(-1).astype(np.float64), classes  # class k is classes[k]


def _encode_valid(y, n, classes):
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(f"y_valid must be 1-D with one label per row of X_valid ({n}); "
                         f"got shape {y.shape}.")
    if classes is None:
        return _targets("y_valid", y, n, SQUARED_ERROR)[0]
    unknown = np.setdiff1d(np.unique(y), classes)
    if unknown.size:
        raise ValueError(f"y_valid has labels not in y: {unknown[:5].tolist()}.")
    return np.searchsorted(classes, y).astype(np.float64)


# --- the compiled loop ---------------------------------------------------------


@kernel
def _boost(X, y, code, f0, learning_rate, max_depth, max_leaves, min_samples_leaf,
           min_samples_split, n_in_bag, uniforms, seeds, order, inverse, leaf_rule):
    n = X.shape[0]
    n_rounds = seeds.shape[0]
    raw = np.empty((n_rounds + 1, n))
    raw[0, :] = f0
    leaf = np.full((n_rounds + 1, n), -1, dtype=np.int32)
    # like max_leaves, uniforms None (no bagging) is a type: numba drops the bagging code
    bagging = uniforms is not None
    in_bag = np.ones((n_rounds + 1 if bagging else 0, n), dtype=np.bool_)
    everyone = np.ones(n, dtype=np.bool_)
    rho = np.ones(n_rounds + 1)
    nodes = np.empty(64 * n_rounds, dtype=NODE)
    offsets = np.zeros(n_rounds + 1, dtype=np.int64)
    r = np.empty(n)
    h = np.empty(n)
    buffer = np.empty(n)
    members = np.empty(n, dtype=np.int64)
    rng = np.zeros(1, dtype=np.int64)
    vals, side, memo, memo_ready, all_samples, all_order, all_vals = workspace(X, order,
                                                                              bagging)
    k = np.int64(0)  # typed: a literal would compile the tree growers once more
    single = np.bool_(False)  # typed too: a literal would compile step once more
    for m in range(1, n_rounds + 1):
        losses.negative_gradient(code, y, raw[m - 1], r)
        if uniforms is not None:
            _bag(uniforms[m - 1], n_in_bag, in_bag[m])
            samples = np.flatnonzero(in_bag[m])
            tree_order, tree_vals = restrict_order(order, vals, in_bag[m])
        else:
            restart(order, vals, all_samples, all_order, all_vals)
            samples, tree_order, tree_vals = all_samples, all_order, all_vals
        rng[0] = seeds[m - 1]
        k0 = k
        # max_leaves None (depth-first growth) is a type: numba drops the other branch, so
        # the default fit compiles no best-first code (and the other fit no depth-first)
        if max_leaves is None:
            nodes, k = grow_depth_first(X, r, samples, tree_order, tree_vals, side, inverse, memo,
                                        memo_ready, nodes, k0, max_depth, min_samples_split,
                                        min_samples_leaf, rng)
        else:
            nodes, k = grow_best_first(X, r, samples, tree_order, tree_vals, side, inverse, memo,
                                       memo_ready, nodes, k0, max_depth, max_leaves,
                                       min_samples_split, min_samples_leaf, rng)
        offsets[m] = k
        tree = nodes[k0:k]
        if uniforms is not None:
            apply(tree, X, leaf[m])
        else:
            leaves_of(tree, samples, leaf[m])
        losses.hessian(code, y, r, h)
        mask = everyone
        if uniforms is not None:
            mask = in_bag[m]
        rho[m] = _set_leaves(tree, leaf[m], mask, code, y, raw[m - 1],
                             r, h, buffer, members, leaf_rule)
        bounded = True
        for i in range(n):
            raw[m, i] = step(raw[m - 1, i], tree[leaf[m, i]]["value"], learning_rate, single)
            bounded &= abs(raw[m, i]) <= DIVERGED  # False for NaN too
        if not bounded:
            raw[m + 1:] = np.nan  # fit() reports the first such round
            return raw, leaf, in_bag, nodes[:k].copy(), offsets, rho, m
    return raw, leaf, in_bag, nodes[:k].copy(), offsets, rho, 0


@kernel
def _set_leaves(tree, leaf_of, in_bag, code, y, raw, r, h, buffer, members, rule):
    """Give every leaf its value by the leaf rule; record its sums. Returns rho (line search).

    The samples of a leaf are taken in ascending index order and summed pairwise, as
    numpy sums them for scikit-learn, so the Newton value matches to the last bit.
    Squared error keeps the tree's own means (its Newton step is exact), as scikit-learn.
    """
    n_nodes = tree.shape[0]
    ones = np.ones_like(raw)
    start = leaf_members(leaf_of, in_bag, n_nodes, members)
    for j in range(n_nodes):
        count = start[j + 1] - start[j]
        if tree[j]["left"] != LEAF or count == 0:
            continue
        mine = members[start[j]:start[j + 1]]
        sum_r = gathered_sum(r, mine, buffer)
        sum_h = gathered_sum(h, mine, buffer)
        node = tree[j]
        if code != SQUARED_ERROR:
            node["sum_r"] = sum_r
            node["sum_h"] = sum_h
            if rule == NEWTON:
                node["value"] = losses.newton_step(sum_r, sum_h, count)
            elif rule == EXACT:
                node["value"] = losses.line_minimum(code, y, raw, ones, mine,
                                                 losses.newton_step(sum_r, sum_h, count))
            else:
                node["value"] = sum_r / count
    _sum_up(tree)
    if rule != LINE_SEARCH:
        return 1.0
    # one step for the whole tree along its mean-residual leaves
    direction = np.empty_like(raw)
    for i in range(leaf_of.shape[0]):
        direction[i] = tree[leaf_of[i]]["value"]
    rho = losses.line_minimum(code, y, raw, direction, members[:start[n_nodes]], 1.0)
    for j in range(n_nodes):
        if tree[j]["left"] == LEAF:
            tree[j]["value"] *= rho
    return rho


@kernel
def _boost_second_order(X, y, f0, learning_rate, n_rounds, max_depth, reg_lambda, gamma,
                        min_child_weight, order):
    """Second-order boosting as xgboost's exact method: float32 margins, tree after tree."""
    n = X.shape[0]
    raw = np.empty((n_rounds + 1, n))
    margin = np.full(n, np.float32(f0), dtype=np.float32)
    copy_into(raw[0], margin)
    leaf = np.full((n_rounds + 1, n), -1, dtype=np.int32)
    nodes = np.empty(2 ** (max_depth + 1) * n_rounds if max_depth < 10 else 64 * n_rounds,
                     dtype=NODE)
    offsets = np.zeros(n_rounds + 1, dtype=np.int64)
    g = np.empty(n, dtype=np.float32)
    h = np.empty(n, dtype=np.float32)
    k = np.int64(0)
    for m in range(1, n_rounds + 1):
        second_order.gradients(y, margin, g, h)
        k0 = k
        nodes, k = second_order.grow_level_wise(X, order, g, h, nodes, k0, max_depth,
                                                reg_lambda, min_child_weight, gamma)
        offsets[m] = k
        tree = nodes[k0:k]
        apply(tree, X, leaf[m])
        for i in range(n):
            margin[i] = step(margin[i], tree[leaf[m, i]]["value"], learning_rate, True)
        copy_into(raw[m], margin)
    return raw, leaf, nodes[:k].copy(), offsets


@kernel
def _bag(uniforms, n_in_bag, mask):
    """scikit-learn's _random_sample_mask: exactly n_in_bag samples, each equally likely."""
    n = uniforms.shape[0]
    taken = 0
    for i in range(n):
        mask[i] = uniforms[i] * (n - i) < (n_in_bag - taken)
        if mask[i]:
            taken += 1


def warm_fit(features=2, **options):
    """A tiny fit with these options, and its residuals: compiles the kernels they call.
    Not counted by fit_count (it is no user's fit)."""
    X = np.random.RandomState(0).normal(size=(40, features))
    y = X.sum(axis=1) if options.get("loss") == "squared_error" else (X[:, 0] > 0) * 1.0
    trace = _uncounted(lambda: fit(X, y, n_rounds=2, X_valid=X, y_valid=y, **options))
    trace.residual(1)
    return trace


def _uncounted(run):
    """run(), its fits not counted by fit_count (the warm-up's are no user's)."""
    _warming.on = True
    try:
        return run()
    finally:
        _warming.on = False


# The engine's kernels in parts, each compiled by tiny fits that take its code paths.
# numba compiles one copy of the boosting loop per tree growth, with and without
# subsampling (see _boost); the losses and leaf rules are branches inside each. The first
# part is the app's default fit (log-loss, depth-first trees, Newton leaves, every
# sample); the app compiles the others after its first chart. A new kind of fit (a new
# loop or tree) adds its part here.
WARMUP_PARTS = {
    "depth-first trees": lambda: warm_fit(),
    "best-first trees": lambda: [warm_fit(max_leaves=3, loss=loss, leaf=leaf)
                                 for loss, leaf in (("log_loss", "line_search"),
                                                    ("squared_error", "newton"))],
    "subsampling": lambda: [warm_fit(subsample=0.8, max_leaves=max_leaves, loss="exponential",
                                     leaf="exact") for max_leaves in (None, 3)],
    "second-order trees": lambda: warm_fit(split="hessian", gamma=0.1),
    "multiclass": lambda: _uncounted(warmup_multiclass),
    "histogram trees": lambda: _uncounted(warmup_histogram),
}


def warmup(parts=tuple(WARMUP_PARTS)):
    """Compile the kernels of these parts (all by default), with the dtypes the app uses.

    numba keeps them in its disk cache, so a new process loads them instead of compiling.
    """
    for name in parts:
        WARMUP_PARTS[name]()


def warmup_histogram():
    """Compile the histogram engine (binning, histograms, the best-first grower, its
    boosting loop for each loss) and its float64 predictions on points and on the plane
    (in float64 and float32). Returns the traces (two classes, three, a regression on two
    inputs and on one), for the app's warm-up to draw."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 2))
    traces = []
    for y, options in (((X[:, 0] > 0) * 1, dict(max_leaves=5)), (np.arange(60) % 3, dict()),
                       (X.sum(axis=1), dict(loss="squared_error", max_depth=2))):
        trace = fit(X, y, n_rounds=2, split="histogram", min_samples_leaf=3, max_bins=8,
                    X_valid=X, y_valid=y, **options)
        trace.residual(1)
        for dtype in (np.float64, np.float32):  # float32: the app's grids
            trace.staged_decision_grid(X[:3, 0], X[:3, 1], dtype=dtype)
        trace.valid_loss
        traces.append(trace)
    traces.append(fit(X[:, :1], X[:, 0] ** 2, loss="squared_error", n_rounds=2,
                      split="histogram", min_samples_leaf=3))
    traces[-1].staged_decision_function(X[:, :1])
    # trees that may pass 127 nodes keep their leaf ids in int16: the loop's other copy
    big = rng.normal(size=(80, 2))
    fit(big, big[:, 0] > 0, n_rounds=1, split="histogram", max_leaves=None, min_samples_leaf=1)
    return traces


def warmup_multiclass():
    """Compile the K-class kernels once (cached on disk by numba), apart from warmup(): a
    process that never fits three classes never compiles them."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(45, 2))
    y = np.arange(45) % 3
    for options in (dict(subsample=0.8, X_valid=X, y_valid=y), dict(max_leaves=3),
                    dict(split="hessian")):
        trace = fit(X, y, n_rounds=2, **options)
        trace.staged_decision_function(X)
        for dtype in (np.float64, np.float32):  # float32: the app's grids
            trace.staged_decision_grid(X[:, 0], X[:, 1], dtype=dtype)
        trace.residual(1)
