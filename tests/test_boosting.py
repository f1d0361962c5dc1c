"""explorer.boosting: the fit's record is self-consistent, the leaf rules and
second-order trees follow their definitions, bad input is refused naming it, random
problems give finite traces, and fits from many threads equal fits one by one.

Every reference is computed here."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq, minimize_scalar

import explorer
from explorer import losses
from fit_data import DATA, X_OK, Y_OK, beyond


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


@pytest.mark.parametrize("kwargs, words", [
    ({"X": np.empty((0, 2)), "y": np.empty(0)}, "empty"),
    ({"y": Y_OK[:-1]}, "different lengths"),
    ({"X": np.where(np.eye(20, 2) == 1, np.nan, X_OK)}, "NaN"),
    ({"X": np.where(np.eye(20, 2) == 1, np.inf, X_OK)}, "infinite"),
    ({"X": X_OK * 1e39}, "float32"),
    ({"y": np.zeros(20)}, "two classes"),
    ({"y": np.arange(22) % 11, "X": np.arange(44.0).reshape(22, 2)}, "at most 10"),
    ({"y": np.arange(20) % 3, "loss": "exponential"}, "only suitable for two classes"),
    ({"y": np.arange(20) % 3, "leaf": "exact"}, "leaf='newton'"),
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
    G = beyond(X, 50, seed)
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


# --- leaf rules and second-order trees ---------------------------------------


def test_hessian_leaves_are_minus_G_over_H_plus_lambda():
    X, y = DATA["moons"]
    trace = explorer.fit(X, y, split="hessian", n_rounds=5, reg_lambda=2.0)
    for m in range(1, 6):
        tree = trace.tree(m)
        G, H = -tree["sum_r"], tree["sum_h"]
        leaves = tree["left"] == -1
        assert np.allclose(tree["value"][leaves], -G[leaves] / (H[leaves] + 2.0), rtol=1e-6)
        # and the sums are those of the samples in each leaf
        g = -trace.residual(m - 1)
        for k in np.flatnonzero(leaves):
            assert G[k] == pytest.approx(g[trace.leaf[m] == k].sum(), rel=1e-6, abs=1e-9)


def test_with_lambda_zero_hessian_leaves_equal_newton_leaves_on_the_same_regions():
    X, y = DATA["moons"]
    trace = explorer.fit(X, y, split="hessian", n_rounds=1, reg_lambda=0.0, min_child_weight=0.0)
    tree = trace.tree(1)
    r, h = trace.residual(0), trace.hessian(0)
    for k in np.flatnonzero(tree["left"] == -1):
        members = trace.leaf[1] == k
        assert tree["value"][k] == pytest.approx(r[members].sum() / h[members].sum(), rel=1e-5)


@pytest.mark.parametrize("loss", ["log_loss", "exponential"])
def test_exact_leaves_are_the_root_of_the_leaf_loss_derivative(loss):
    X, y = DATA["moons"]
    trace = explorer.fit(X, y, loss=loss, leaf="exact", n_rounds=6, max_depth=2)
    code = losses.CODES[loss]
    for m in range(1, 7):
        tree, F = trace.tree(m), trace.raw[m - 1]
        for k in np.flatnonzero(tree["left"] == -1):
            members = trace.leaf[m] == k
            yk, Fk = trace.y[members], F[members]
            if yk.min() == yk.max():
                continue  # a pure leaf has no finite minimiser

            def slope(t):
                return sum(losses.residual(code, a, b + t) for a, b in zip(yk, Fk))

            root = brentq(slope, -50, 50, xtol=1e-13)
            assert tree["value"][k] == pytest.approx(root, abs=1e-9)


def test_exact_leaves_differ_from_one_newton_step():
    X, y = DATA["moons"]
    newton = explorer.fit(X, y, n_rounds=1, max_depth=2)
    exact = explorer.fit(X, y, n_rounds=1, max_depth=2, leaf="exact")
    assert np.array_equal(newton.tree(1)["threshold"], exact.tree(1)["threshold"])
    leaves = newton.tree(1)["left"] == -1
    gap = np.abs(newton.tree(1)["value"][leaves] - exact.tree(1)["value"][leaves])
    assert gap.max() > 1e-6


@pytest.mark.parametrize("loss", ["log_loss", "exponential", "squared_error"])
def test_line_search_step_minimises_the_loss_along_the_tree(loss):
    X, y = DATA["moons"]
    target = X[:, 1] if loss == "squared_error" else y
    trace = explorer.fit(X, target, loss=loss, leaf="line_search", n_rounds=4)
    mean_leaves = explorer.fit(X, target, loss=loss, leaf="mean", n_rounds=1)
    # round 1 starts from the same F_0, so its direction is round 1 of the mean-leaf fit
    direction = mean_leaves.tree(1)["value"][mean_leaves.leaf[1]]
    code = losses.CODES[loss]

    def total(rho):
        return losses.mean_loss(code, trace.y, trace.raw[0] + rho * direction)

    best = minimize_scalar(total, bracket=(0.0, 1.0), tol=1e-12).x
    assert trace.rho[1] == pytest.approx(best, rel=1e-6)
    assert np.allclose(trace.tree(1)["value"][trace.leaf[1]], trace.rho[1] * direction)
    if loss == "squared_error":
        assert trace.rho[1] == pytest.approx(1.0)


def test_mean_leaves_are_the_mean_residual():
    X, y = DATA["ties"]
    trace = explorer.fit(X, y, leaf="mean", n_rounds=3)
    r = trace.residual(2)
    tree = trace.tree(3)
    for k in np.flatnonzero(tree["left"] == -1):
        assert tree["value"][k] == pytest.approx(r[trace.leaf[3] == k].mean(), rel=1e-12)


@pytest.mark.parametrize("kwargs, words", [
    ({"split": "gini"}, "split"),
    ({"leaf": "median"}, "leaf"),
    ({"split": "hessian", "loss": "exponential"}, "log_loss"),
    ({"split": "hessian", "max_depth": None}, "max_depth"),
    ({"split": "hessian", "max_leaves": 4}, "max_leaves"),
    ({"split": "hessian", "subsample": 0.5}, "subsample"),
    ({"split": "hessian", "leaf": "exact"}, "leaf"),
    ({"reg_lambda": 2.0}, "reg_lambda"),
    ({"split": "hessian", "reg_lambda": -1.0}, "reg_lambda"),
    ({"split": "hessian", "gamma": float("nan")}, "gamma"),
    ({"split": "hessian", "min_child_weight": -0.5}, "min_child_weight"),
])
def test_variant_options_are_checked(kwargs, words):
    X, y = DATA["moons"]
    with pytest.raises(ValueError, match=words):
        explorer.fit(X, y, n_rounds=2, **kwargs)


# --- many threads at once (Streamlit runs each session in a thread of its own) ---

SETTINGS = [
    dict(loss=loss, learning_rate=lr, max_depth=depth, max_leaves=leaves,
         min_samples_leaf=minleaf, subsample=subsample, random_state=seed)
    for loss, lr, depth, leaves, minleaf, subsample, seed in [
        ("log_loss", 0.1, 3, None, 1, 1.0, 0),
        ("log_loss", 0.3, 2, None, 5, 0.8, 1),
        ("log_loss", 0.5, 4, 6, 1, 1.0, 2),
        ("log_loss", 0.05, 5, None, 10, 0.5, 3),
        ("log_loss", 0.2, 3, 4, 2, 0.9, 4),
        ("log_loss", 1.0, 1, None, 1, 1.0, 5),
        ("exponential", 0.1, 3, None, 1, 1.0, 0),
        ("exponential", 0.3, 2, 3, 3, 0.7, 6),
        ("exponential", 0.5, 4, None, 1, 0.8, 7),
        ("exponential", 0.05, 6, 8, 2, 1.0, 8),
        ("exponential", 0.2, 3, None, 20, 0.6, 9),
        ("exponential", 0.8, 2, None, 1, 1.0, 10),
    ]
]


@pytest.fixture(scope="module")
def data():
    from explorer.data import make_toy, split
    return split(make_toy("moons", n=500, noise=0.3, seed=3), 0.2, 3)


def run_fit(data, setting):
    from explorer import fit
    train, valid = data
    return fit(train.X, train.y, n_rounds=40, X_valid=valid.X, y_valid=valid.y, **setting)


def same_array(a, b) -> bool:
    """Equal shape, dtype and values (NaN equal to NaN, field by field for records)."""
    if a is None or b is None:
        return a is None and b is None
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.names:
        return all(same_array(a[name], b[name]) for name in a.dtype.names)
    return np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


def test_concurrent_fits_equal_serial_fits(warm_engine, data):
    serial = [run_fit(data, s) for s in SETTINGS]
    # Every setting three times, shuffled, on 8 threads: neighbours in time differ.
    jobs = [i for i in range(len(SETTINGS)) for _ in range(3)]
    random.Random(0).shuffle(jobs)
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda i: (i, run_fit(data, SETTINGS[i])), jobs))
    assert len(results) == 3 * len(SETTINGS)
    for i, trace in results:
        ref = serial[i]
        where = f"setting {i}: {SETTINGS[i]}"
        assert trace.f0 == ref.f0, where
        assert same_array(trace.raw, ref.raw), where
        assert same_array(trace.nodes, ref.nodes), where
        assert same_array(trace.offsets, ref.offsets), where
        assert same_array(trace.leaf, ref.leaf), where
        assert same_array(trace.in_bag, ref.in_bag), where
        assert same_array(trace.valid_raw, ref.valid_raw), where
    # The settings really differ, so a swapped result would have been caught.
    assert len({serial[i].raw.tobytes() for i in range(len(SETTINGS))}) == len(SETTINGS)
