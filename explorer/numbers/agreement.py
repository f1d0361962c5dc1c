"""How far the fit on screen is from the reference implementations' own fit.

Refits the same data with scikit-learn (GradientBoostingClassifier/Regressor; for
histogram trees HistGradientBoostingClassifier/Regressor with early_stopping=False) or,
for second-order trees, xgboost (tree_method="exact"), and reports the largest
difference of the raw scores F_m over all rounds, on the training points and on a
grid spanning the plane. A teacher can show the class that the numbers on screen
are the references' own.
"""

import time

import numpy as np


class ReferenceUnavailable(RuntimeError):
    """The reference library for this fit is not installed or cannot fit these settings."""


def reference_name(trace):
    split = trace.params.get("split")
    if split == "hessian":
        return "xgboost (exact)"
    if split == "histogram":
        return "scikit-learn (HistGradientBoosting)"
    return "scikit-learn"


def agreement(trace, grid_points=None):
    """Largest |F_ours - F_reference| over all rounds, on the training points and a grid.

    Returns a dict: reference, train (max |dF| on the training points), grid (on
    ``grid_points``, default a 60 x 60 grid over the data and a margin around it),
    rounds, seconds (the reference's fit time).
    """
    points = _default_grid(trace.X) if grid_points is None else np.asarray(grid_points, float)
    started = time.perf_counter()
    if trace.params.get("split") == "hessian":
        train, grid = _xgboost_margins(trace, points)
    elif trace.params.get("split") == "histogram":
        train, grid = _hist_scores(trace, points)
    else:
        train, grid = _sklearn_scores(trace, points)
    seconds = time.perf_counter() - started
    return dict(reference=reference_name(trace), rounds=trace.n_rounds, seconds=seconds,
                train=float(np.abs(train - trace.raw).max()),
                grid=float(np.abs(grid - trace.staged_decision_function(points)).max()))


def _sklearn_scores(trace, points):
    from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor

    p = trace.params
    if p.get("leaf", "newton") != "newton":
        raise ReferenceUnavailable(f"scikit-learn has no leaf={p['leaf']!r}; only 'newton'.")
    options = dict(n_estimators=p["n_rounds"], learning_rate=p["learning_rate"],
                   max_depth=p["max_depth"], max_leaf_nodes=p["max_leaves"],
                   min_samples_leaf=p["min_samples_leaf"],
                   min_samples_split=p["min_samples_split"], subsample=p["subsample"],
                   random_state=p["random_state"])
    if trace.is_classifier:
        model = GradientBoostingClassifier(loss=p["loss"], **options)
        model.fit(trace.X, trace.y)
        staged = model.staged_decision_function
    else:
        model = GradientBoostingRegressor(loss="squared_error", **options)
        model.fit(trace.X, trace.y)
        staged = model.staged_predict

    def scores(X):  # (M + 1, len(X)), or (M + 1, len(X), K) with K >= 3 classes
        stages = [model._raw_predict_init(X.astype(np.float32))] + list(staged(X))
        out = np.stack([np.reshape(s, (len(X), -1)) for s in stages])
        return out if trace.is_multiclass else out[..., 0]

    return scores(trace.X), scores(points)


def _hist_scores(trace, points):
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

    p = trace.params
    options = dict(max_iter=p["n_rounds"], learning_rate=p["learning_rate"],
                   max_depth=p["max_depth"], max_leaf_nodes=p["max_leaves"],
                   min_samples_leaf=p["min_samples_leaf"], l2_regularization=p["reg_lambda"],
                   max_bins=p["max_bins"], early_stopping=False,
                   random_state=p["random_state"])
    if trace.is_classifier:
        model = HistGradientBoostingClassifier(**options).fit(trace.X, trace.y)
        staged = model.staged_decision_function
    else:
        model = HistGradientBoostingRegressor(**options).fit(trace.X, trace.y)
        staged = model.staged_predict

    def scores(X):  # (M + 1, len(X)), or (M + 1, len(X), K) with K >= 3 classes
        f0 = np.broadcast_to(np.asarray(model._baseline_prediction).reshape(1, -1),
                             (len(X), np.size(model._baseline_prediction)))
        out = np.stack([f0] + [np.reshape(s, (len(X), -1)) for s in staged(X)])
        return out if trace.is_multiclass else out[..., 0]

    return scores(trace.X), scores(points)


def _xgboost_margins(trace, points):
    try:
        import xgboost
    except ImportError:
        raise ReferenceUnavailable("xgboost is not installed: pip install xgboost") from None
    p = trace.params
    model = xgboost.XGBClassifier(tree_method="exact", n_estimators=p["n_rounds"],
                                  learning_rate=p["learning_rate"], max_depth=p["max_depth"],
                                  reg_lambda=p["reg_lambda"], gamma=p["gamma"],
                                  min_child_weight=p["min_child_weight"], n_jobs=1)
    model.fit(trace.X, trace.y)
    booster = model.get_booster()

    def margins(X):
        data = xgboost.DMatrix(X)
        # xgboost cannot predict with no trees (iteration_range (0, 0) means all of them);
        # its intercept is checked through every later round, which all include it
        rows = [np.broadcast_to(trace.f0, (len(X),) + np.shape(trace.f0))]
        rows += [booster.predict(data, output_margin=True, iteration_range=(0, m))
                 for m in range(1, p["n_rounds"] + 1)]
        return np.stack(rows).astype(np.float64)

    return margins(trace.X), margins(points)


def _default_grid(X, size=60):
    lo, hi = X.min(0), X.max(0)
    pad = 0.5 * (hi - lo) + 1e-9
    axes = [np.linspace(a - d, b + d, size) for a, b, d in zip(lo, hi, pad)]
    if X.shape[1] == 1:
        return axes[0][:, None]
    mesh = np.meshgrid(*axes[:2])
    grid = np.column_stack([g.ravel() for g in mesh])
    if X.shape[1] > 2:  # other features held at their means
        grid = np.column_stack([grid, np.tile(X[:, 2:].mean(0), (len(grid), 1))])
    return grid
