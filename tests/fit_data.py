"""Problems the engine tests fit: the data sets the parity tests compare on, points
beyond the data, and a small input for the checks of bad input."""

import numpy as np
from sklearn.datasets import make_circles, make_classification, make_moons


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


def beyond(X, n=2000, seed=1):
    """Points over and well beyond the data, where split choices show on the plane."""
    rng = np.random.RandomState(seed)
    span = X.max(0) - X.min(0)
    return rng.uniform(X.min(0) - span, X.max(0) + span, size=(n, X.shape[1]))


X_OK = np.random.RandomState(0).normal(size=(20, 2))
Y_OK = np.array([0, 1] * 10)


# The leaf, split and agreement tests' problem.
MOONS_300 = make_moons(300, noise=0.3, random_state=0)


def sklearn_options(options: dict) -> dict:
    """Our fit options as scikit-learn's GradientBoosting* keywords (max_leaves is its
    max_leaf_nodes)."""
    theirs = dict(options)
    if "max_leaves" in theirs:
        theirs["max_leaf_nodes"] = theirs.pop("max_leaves")
    return theirs


def assert_same_splits(theirs, ours):
    """A scikit-learn tree (``est.tree_``) and ours split the same nodes the same way."""
    assert np.array_equal(theirs.children_left, ours["left"])
    assert np.array_equal(theirs.feature, ours["feature"])
    assert np.array_equal(theirs.threshold, ours["threshold"])
    assert np.array_equal(theirs.n_node_samples, ours["n"])


def staged(model, X):
    """A scikit-learn model's raw scores at every round, as rows."""
    stages = model.staged_decision_function(X) if hasattr(model, "staged_decision_function") \
        else model.staged_predict(X)
    return np.array([np.ravel(stage) for stage in stages])


def random_csv(rows: int, seed: int = 0) -> bytes:
    """A CSV file of two numeric features and a 0/1 label (a quarter of class 1)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(rows, 2)).round(4)
    y = (rng.random(rows) < 0.25).astype(int)
    lines = ["x1,x2,label"] + [f"{a},{b},{c}" for (a, b), c in zip(X, y)]
    return ("\n".join(lines) + "\n").encode()

