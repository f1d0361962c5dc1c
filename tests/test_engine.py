"""The engine builds scikit-learn's model exactly, and its record is self-consistent.

Every reference number is computed here by scikit-learn itself.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_circles, make_classification, make_moons
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor

import explorer
from explorer.losses import pairwise_sum

TOL = 1e-9
ROUNDS = 25


def _datasets():
    rng = np.random.RandomState(0)
    Xm, ym = make_moons(500, noise=0.3, random_state=1)
    Xc, yc = make_circles(400, noise=0.15, factor=0.5, random_state=2)
    X10, y10 = make_classification(400, n_features=10, n_informative=4, random_state=3)
    Xu = rng.uniform(0.5, 1.0, size=(400, 2))  # adjacent float32 values merge in [0.5, 1)
    yu = (Xu.sum(1) + rng.normal(0, 0.1, 400) > 1.5).astype(int)
    return {
        "moons": (Xm, ym),
        "ties": (np.round(Xm * 2) / 2, ym),  # discretised: many equal values
        "circles": (Xc, np.where(yc == 1, "inner", "outer")),  # string labels
        "10d": (X10, y10),
        "unit": (Xu, yu),
        "imbalanced": (Xm, (Xm[:, 0] > 1.2).astype(int)),
    }


DATA = _datasets()


def _staged(model, X):
    stages = model.staged_decision_function(X) if hasattr(model, "staged_decision_function") \
        else model.staged_predict(X)
    return np.array([np.ravel(s) for s in stages])


def _beyond(X, n=2000, seed=1):
    """Points over and well beyond the data, where split choices show on the plane."""
    rng = np.random.RandomState(seed)
    span = X.max(0) - X.min(0)
    return rng.uniform(X.min(0) - span, X.max(0) + span, size=(n, X.shape[1]))


def _assert_same_model(trace, model, X):
    assert np.abs(trace.raw[1:] - _staged(model, X)).max() <= TOL
    assert trace.raw[0] == pytest.approx(np.ravel(model._raw_predict_init(X.astype(np.float32))),
                                         abs=TOL)
    G = _beyond(X)
    assert np.abs(trace.staged_decision_function(G)[1:] - _staged(model, G)).max() <= TOL
    for m, (est,) in enumerate(model.estimators_, start=1):
        theirs, ours = est.tree_, trace.tree(m)
        assert np.array_equal(theirs.children_left, ours["left"])
        assert np.array_equal(theirs.feature, ours["feature"])
        assert np.array_equal(theirs.threshold, ours["threshold"])
        assert np.array_equal(theirs.n_node_samples, ours["n"])
        assert np.abs(theirs.value[:, 0, 0] - ours["value"]).max() <= TOL
        assert np.abs(theirs.impurity - ours["impurity"]).max() <= TOL
        assert np.array_equal(est.apply(X.astype(np.float32)), trace.leaf[m])


@pytest.mark.parametrize("name", sorted(DATA))
@pytest.mark.parametrize("depth", [1, 2, 3, 5])
def test_classifier_parity_by_depth(name, depth):
    X, y = DATA[name]
    trace = explorer.fit(X, y, n_rounds=ROUNDS, max_depth=depth, random_state=7)
    model = GradientBoostingClassifier(n_estimators=ROUNDS, max_depth=depth, random_state=7)
    _assert_same_model(trace, model.fit(X, y), X)


@pytest.mark.parametrize("name", ["moons", "ties", "10d", "unit"])
@pytest.mark.parametrize("options", [
    {"min_samples_leaf": 9},
    {"min_samples_split": 40, "max_depth": 4},
    {"max_leaves": 5},
    {"max_leaves": 12, "max_depth": None},
    {"max_depth": None, "min_samples_leaf": 5},
    {"subsample": 0.5},
    {"subsample": 0.7, "max_leaves": 6, "learning_rate": 0.5},
    {"loss": "exponential"},
    {"loss": "exponential", "subsample": 0.8, "max_depth": 2},
])
def test_classifier_parity_by_option(name, options):
    X, y = DATA[name]
    ours = dict(options)
    theirs = dict(options)
    if "max_leaves" in theirs:
        theirs["max_leaf_nodes"] = theirs.pop("max_leaves")
    trace = explorer.fit(X, y, n_rounds=ROUNDS, random_state=3, **ours)
    model = GradientBoostingClassifier(n_estimators=ROUNDS, random_state=3, **theirs)
    _assert_same_model(trace, model.fit(X, y), X)


@pytest.mark.parametrize("name", ["moons", "ties", "10d"])
@pytest.mark.parametrize("options", [{}, {"max_depth": 1}, {"max_leaves": 7}, {"subsample": 0.6}])
def test_regressor_parity(name, options):
    X, _ = DATA[name]
    y = np.sin(2 * X[:, 0]) + 0.3 * X[:, 1] + np.random.RandomState(0).normal(0, 0.2, len(X))
    theirs = dict(options)
    if "max_leaves" in theirs:
        theirs["max_leaf_nodes"] = theirs.pop("max_leaves")
    trace = explorer.fit(X, y, loss="squared_error", n_rounds=ROUNDS, random_state=5, **options)
    model = GradientBoostingRegressor(n_estimators=ROUNDS, random_state=5, **theirs)
    _assert_same_model(trace, model.fit(X, y), X)


def test_labels_are_encoded_like_scikit_learn():
    X, y = DATA["circles"]
    trace = explorer.fit(X, y, n_rounds=5)
    model = GradientBoostingClassifier(n_estimators=5, random_state=0).fit(X, y)
    assert list(trace.classes) == list(model.classes_)
    G = _beyond(X)
    assert np.array_equal(trace.predict(G), model.predict(G))
    assert np.abs(trace.predict_proba(G) - model.predict_proba(G)).max() <= TOL


# --- the identities MATH.md asks the app to show --------------------------------


@pytest.mark.parametrize("name", ["moons", "imbalanced"])
def test_f0_is_the_log_odds_in_both_label_forms(name):
    X, y = DATA[name]
    trace = explorer.fit(X, y, n_rounds=3)
    n_pos, n_neg = np.sum(trace.y == 1), np.sum(trace.y == 0)
    ybar = np.mean(2 * trace.y - 1)  # mean of the +-1 labels
    assert trace.f0 == pytest.approx(np.log(n_pos / n_neg), rel=1e-12)
    assert trace.f0 == pytest.approx(np.log((1 + ybar) / (1 - ybar)), rel=1e-12)
    assert np.all(trace.raw[0] == trace.f0)
    exp_trace = explorer.fit(X, y, loss="exponential", n_rounds=3)
    assert exp_trace.f0 == pytest.approx(0.5 * np.log(n_pos / n_neg), rel=1e-12)


def test_plus_minus_one_residual_equals_y_minus_p():
    X, y = DATA["moons"]
    trace = explorer.fit(X, y, n_rounds=20, learning_rate=0.5)
    y_pm = 2 * trace.y - 1
    for m in (0, 1, 10, 20):
        F = trace.raw[m]
        r = trace.residual(m)
        assert np.allclose(r, trace.y - trace.proba(m), atol=1e-15)
        assert np.allclose(r, y_pm / (1 + np.exp(y_pm * F)), atol=1e-15)
        # |r| (1 - |r|) is the hessian p (1 - p)
        assert np.allclose(np.abs(r) * (1 - np.abs(r)), trace.hessian(m), atol=1e-15)


@pytest.mark.parametrize("loss", ["log_loss", "exponential"])
def test_leaf_values_are_their_recorded_sums_ratio(loss):
    X, y = DATA["ties"]
    trace = explorer.fit(X, y, loss=loss, n_rounds=15, subsample=0.8)
    for m in range(1, 16):
        tree = trace.tree(m)
        r, h = trace.residual(m - 1), trace.hessian(m - 1)
        bag = trace.in_bag[m]
        for k in np.flatnonzero(tree["left"] == -1):
            members = (trace.leaf[m] == k) & bag
            assert tree["n"][k] == members.sum()
            assert tree["sum_r"][k] == pytest.approx(r[members].sum(), rel=1e-12, abs=1e-12)
            assert tree["sum_h"][k] == pytest.approx(h[members].sum(), rel=1e-12, abs=1e-12)
            assert tree["value"][k] == pytest.approx(tree["sum_r"][k] / tree["sum_h"][k], rel=1e-12)
        # F_m = F_(m-1) + nu * gamma of each point's leaf
        step = trace.learning_rate * tree["value"][trace.leaf[m]]
        assert np.array_equal(trace.raw[m], trace.raw[m - 1] + step)


def test_staged_rows_equal_decision_function_at_that_round():
    X, y = DATA["moons"]
    trace = explorer.fit(X, y, n_rounds=12, max_leaves=4)
    G = _beyond(X, 500)
    staged = trace.staged_decision_function(G)
    assert staged.shape == (13, 500)
    for m in range(13):
        assert np.array_equal(staged[m], trace.decision_function(G, m))
    assert np.array_equal(trace.staged_decision_function(X), trace.raw)


def test_losses_and_accuracy_per_round():
    X, y = DATA["moons"]
    trace = explorer.fit(X[:400], y[:400], n_rounds=30, X_valid=X[400:], y_valid=y[400:])
    p = trace.proba(30)
    assert trace.train_loss[30] == pytest.approx(-np.mean(trace.y * np.log(p) + (1 - trace.y) * np.log(1 - p)))
    assert trace.train_loss[0] > trace.train_loss[30]
    assert trace.valid_loss.shape == (31,)
    pred = trace.predict(X[400:], 30)
    assert trace.valid_accuracy[30] == pytest.approx(np.mean(pred == y[400:]))


def test_diverging_settings_raise_a_clear_error():
    X = np.linspace(0, 1, 30)[:, None]
    with pytest.raises(explorer.DivergedError, match="diverged at round .*learning rate"):
        explorer.fit(X, np.sin(6 * X[:, 0]), loss="squared_error", learning_rate=9.0, n_rounds=2000)


def test_saturated_leaves_take_a_zero_step_not_nan():
    X = np.array([[0.0], [1.0], [2.0], [3.0]] * 5)
    y = np.array([0, 0, 1, 1] * 5)
    trace = explorer.fit(X, y, n_rounds=300, learning_rate=10.0, max_depth=1)
    assert np.isfinite(trace.raw).all()
    assert np.isfinite(trace.nodes["value"]).all()
    assert np.isfinite(trace.train_loss).all()
    assert np.isfinite(trace.proba(300)).all()


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 100, 128, 129, 1000, 4097, 100_003])
def test_pairwise_sum_is_numpys(n):
    a = np.random.RandomState(n).standard_normal(n) * 10.0 ** np.random.RandomState(1).randint(-8, 8, n)
    assert pairwise_sum(a, n) == np.sum(a)


# --- bad input: ValueError naming the problem ----------------------------------

X_OK = np.random.RandomState(0).normal(size=(20, 2))
Y_OK = np.array([0, 1] * 10)


@pytest.mark.parametrize("kwargs, words", [
    ({"X": np.empty((0, 2)), "y": np.empty(0)}, "empty"),
    ({"y": Y_OK[:-1]}, "different lengths"),
    ({"X": np.where(np.eye(20, 2) == 1, np.nan, X_OK)}, "NaN"),
    ({"X": np.where(np.eye(20, 2) == 1, np.inf, X_OK)}, "infinite"),
    ({"X": X_OK * 1e39}, "float32"),
    ({"y": np.zeros(20)}, "two classes"),
    ({"y": np.arange(20) % 3}, "two classes"),
    ({"X": X_OK[:, 0]}, "2-D"),
    ({"X": [["a", "b"]] * 20}, "numeric"),
    ({"loss": "hinge"}, "loss"),
    ({"n_rounds": 0}, "n_rounds"),
    ({"n_rounds": 5001}, "n_rounds"),
    ({"n_rounds": 2.5}, "n_rounds"),
    ({"learning_rate": 0.0}, "learning_rate"),
    ({"learning_rate": 10.5}, "learning_rate"),
    ({"learning_rate": float("nan")}, "learning_rate"),
    ({"max_depth": 0}, "max_depth"),
    ({"max_leaves": 1}, "max_leaves"),
    ({"min_samples_leaf": 0}, "min_samples_leaf"),
    ({"min_samples_split": 1}, "min_samples_split"),
    ({"subsample": 0.0}, "subsample"),
    ({"subsample": 1.5}, "subsample"),
    ({"random_state": -1}, "random_state"),
    ({"X_valid": X_OK}, "together"),
    ({"X_valid": X_OK[:, :1], "y_valid": Y_OK}, "features"),
    ({"X_valid": X_OK, "y_valid": Y_OK + 5}, "labels not in y"),
    ({"loss": "squared_error", "y": np.full(20, np.nan)}, "NaN"),
])
def test_bad_input_raises_value_error_naming_it(kwargs, words):
    args = {"X": X_OK, "y": Y_OK, **kwargs}
    X, y = args.pop("X"), args.pop("y")
    with pytest.raises(ValueError, match=words):
        explorer.fit(X, y, **args)


def test_bad_round_and_prediction_input():
    trace = explorer.fit(X_OK, Y_OK, n_rounds=3)
    for bad in (-1, 4, 1.0):
        with pytest.raises(ValueError, match="round"):
            trace.decision_function(X_OK, bad)
    with pytest.raises(ValueError, match="round"):
        trace.tree(0)
    with pytest.raises(ValueError, match="shape"):
        trace.decision_function(X_OK[:, :1])
    with pytest.raises(ValueError, match="NaN"):
        trace.decision_function(np.full((2, 2), np.nan))


# --- properties on random small problems ----------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(2, 40),
    d=st.integers(1, 3),
    seed=st.integers(0, 10_000),
    loss=st.sampled_from(["log_loss", "exponential", "squared_error"]),
    n_rounds=st.integers(1, 8),
    learning_rate=st.floats(0.01, 10.0),
    max_depth=st.one_of(st.none(), st.integers(1, 6)),
    max_leaves=st.one_of(st.none(), st.integers(2, 9)),
    min_samples_leaf=st.integers(1, 6),
    subsample=st.floats(0.05, 1.0),
    scale=st.sampled_from([1e-30, 1e-3, 1.0, 1e6, 1e30]),
    levels=st.integers(0, 3),
    variant=st.sampled_from(["newton", "mean", "exact", "line_search", "hessian"]),
)
def test_random_problems_give_finite_well_shaped_traces(n, d, seed, loss, n_rounds, learning_rate,
                                                        max_depth, max_leaves, min_samples_leaf,
                                                        subsample, scale, levels, variant):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d)) * scale
    if levels:
        X = np.round(X / scale * levels) * scale  # ties
    y = rng.normal(size=n) * scale if loss == "squared_error" else rng.randint(0, 2, n)
    if variant == "hessian":
        loss, max_leaves, min_samples_leaf, subsample = "log_loss", None, 1, 1.0
        y = rng.randint(0, 2, n)
        options = dict(split="hessian", max_depth=max_depth or 6, reg_lambda=scale % 3)
    else:
        options = dict(leaf=variant, max_depth=max_depth)
    try:
        trace = explorer.fit(X, y, loss=loss, n_rounds=n_rounds, learning_rate=learning_rate,
                             max_leaves=max_leaves, min_samples_leaf=min_samples_leaf,
                             subsample=subsample, random_state=seed, **options)
    except explorer.DivergedError as error:
        # plain gradient steps on the exponential loss, and steps past 2 on squared error, can
        # grow without bound; that must end in this message, never in inf or NaN
        assert (variant == "mean" and loss == "exponential") or learning_rate > 2
        assert "diverged" in str(error)
        return
    except ValueError:
        assert loss != "squared_error" and len(np.unique(y)) < 2
        return
    assert trace.raw.shape == trace.leaf.shape == (n_rounds + 1, n)
    assert np.isfinite(trace.raw).all()
    assert np.isfinite(trace.train_loss).all()
    for field in ("threshold", "impurity", "improvement", "sum_r", "sum_h", "value"):
        assert np.isfinite(trace.nodes[field]).all(), field
    G = _beyond(X, 50, seed)
    assert np.isfinite(trace.staged_decision_function(G)).all()
    for m in (0, n_rounds):
        assert np.isfinite(trace.residual(m)).all()
        if trace.is_classifier:
            p = trace.proba(m)
            assert np.all((p >= 0) & (p <= 1))
    for m in range(1, n_rounds + 1):
        tree = trace.tree(m)
        leaves = tree["left"] == -1
        assert leaves.sum() >= 1
        if max_leaves is not None:
            assert leaves.sum() <= max_leaves
        if options["max_depth"] is not None:
            assert tree["depth"].max() <= options["max_depth"]
        assert set(np.unique(trace.leaf[m])) <= set(np.flatnonzero(leaves))


@pytest.mark.parametrize("options", [{}, {"max_leaves": 6, "max_depth": None}])
def test_grid_predictions_equal_pointwise_ones_and_scikit_learns(options):
    X, y = DATA["ties"]
    trace = explorer.fit(X, y, n_rounds=20, **options)
    xs = np.concatenate([np.linspace(-3, 3, 37), np.unique(X[:, 0])])  # includes the ties themselves
    ys = np.concatenate([np.linspace(-2, 2.5, 23), np.unique(X[:, 1])])
    grid = trace.staged_decision_grid(xs, ys)
    xx, yy = np.meshgrid(xs, ys)
    points = np.column_stack([xx.ravel(), yy.ravel()])
    assert grid.shape == (21, len(ys), len(xs))
    assert np.array_equal(grid.reshape(21, -1), trace.staged_decision_function(points))
    # the app's float32 grid: the same numbers, each rounded once
    assert np.array_equal(trace.staged_decision_grid(xs, ys, dtype=np.float32),
                          grid.astype(np.float32))
    theirs = dict(options, max_leaf_nodes=options.get("max_leaves"))
    theirs.pop("max_leaves", None)
    model = GradientBoostingClassifier(n_estimators=20, random_state=0, **theirs).fit(X, y)
    assert np.abs(grid.reshape(21, -1)[1:] - _staged(model, points)).max() <= TOL
