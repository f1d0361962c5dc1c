"""Tests for explorer.data: toy sets, splits, flipped labels."""

import numpy as np
import pytest

from explorer.data import (
    CLASSIFICATION_SETS,
    IRIS,
    MULTICLASS_SETS,
    REGRESSION_SETS,
    TOY_SETS,
    DataError,
    Dataset,
    dataset_hash,
    deepest_row,
    flip_labels,
    make_toy,
    sample,
    split,
)


DRAWN = tuple(name for name in CLASSIFICATION_SETS if name != IRIS)  # generated, not measured
BINARY = tuple(name for name in CLASSIFICATION_SETS if name not in MULTICLASS_SETS)


@pytest.mark.parametrize("name", DRAWN)
def test_classification_toy_shape_labels_and_range(name):
    ds = make_toy(name, n=500, noise=0.1, seed=3)
    assert ds.task == "classification" and ds.name == name
    assert ds.X.shape == (500, 2) and ds.X.dtype == np.float64
    K = 3 if name in MULTICLASS_SETS else 2
    assert len(ds.classes) == K
    assert ds.y.dtype == np.float64 and set(np.unique(ds.y)) == set(range(K))
    assert np.isfinite(ds.X).all()
    assert np.abs(ds.X).max() < 3.6


@pytest.mark.parametrize("name", [n for n in MULTICLASS_SETS if n != IRIS])
def test_three_class_sets_come_in_equal_numbers(name):
    ds = make_toy(name, n=301, balance=0.2, seed=2)  # the balance is for two classes
    assert sorted(np.bincount(ds.y.astype(int)).tolist()) == [100, 100, 101]


def test_iris_is_sklearns_bundled_copy_petal_length_and_width():
    from sklearn.datasets import load_iris
    iris = load_iris()
    ds = make_toy(IRIS, n=50, noise=1.0, seed=9)  # real data: always the 150 flowers
    assert np.array_equal(ds.X, iris.data[:, 2:4]) and np.array_equal(ds.y, iris.target)
    assert ds.classes == ("setosa", "versicolor", "virginica")
    assert ds.feature_names == ("petal length (cm)", "petal width (cm)")


def test_labels_of_three_classes_cannot_be_flipped():
    with pytest.raises(DataError, match="two classes"):
        flip_labels(make_toy("blobs", n=60), 0.1)


@pytest.mark.parametrize("name", REGRESSION_SETS)
def test_regression_toy_shape_and_values(name):
    ds = make_toy(name, n=400, noise=0.0, seed=3)
    assert ds.task == "regression"
    assert ds.X.shape == (400, len(ds.feature_names)) and ds.X.shape[1] in (1, 2)
    assert ds.y.shape == (400,) and np.isfinite(ds.y).all()
    assert np.abs(ds.X).max() <= 3
    assert np.unique(ds.y).size > 1


def test_sine_is_sine_plus_noise():
    ds = make_toy("sine", n=2000, noise=0.1, seed=0)
    residual = ds.y - np.sin(ds.X[:, 0])
    assert abs(residual.std() - 0.1) < 0.01


@pytest.mark.parametrize("name", DRAWN + REGRESSION_SETS)
def test_toy_is_deterministic_by_seed(name):
    a, b, c = (make_toy(name, n=200, seed=s) for s in (7, 7, 8))
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert not np.array_equal(a.X, c.X)


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("balance", [0.1, 0.5, 0.8])
def test_balance_is_the_fraction_of_class_one(name, balance):
    ds = make_toy(name, n=1000, balance=balance, seed=1)
    assert abs(ds.y.mean() - balance) < 0.01


def test_noise_zero_keeps_linear_separable():
    ds = make_toy("linear", n=500, noise=0.0, seed=2)
    assert np.array_equal(ds.X.sum(axis=1) > 0, ds.y == 1)


def test_registry_lists_every_set():
    assert set(TOY_SETS) == set(CLASSIFICATION_SETS) | set(REGRESSION_SETS)
    assert np.array_equal(TOY_SETS["moons"](n=50, seed=4).X, make_toy("moons", n=50, seed=4).X)


@pytest.mark.parametrize("kwargs, word", [
    ({"name": "bananas"}, "moons"),
    ({"n": 9}, "number of points"),
    ({"n": 50_001}, "number of points"),
    ({"n": 12.5}, "whole number"),
    ({"noise": -0.1}, "noise"),
    ({"noise": 2.5}, "noise"),
    ({"noise": float("nan")}, "noise"),
    ({"balance": 0.01}, "balance"),
    ({"balance": 0.99}, "balance"),
    ({"seed": -1}, "seed"),
])
def test_make_toy_refuses_bad_parameters(kwargs, word):
    kwargs = {"name": "moons", **kwargs}
    with pytest.raises(DataError, match=f"(?i){word}"):
        make_toy(**kwargs)


def test_dataset_is_read_only_and_hash_tracks_content():
    ds = make_toy("moons", n=100, seed=0)
    with pytest.raises(ValueError):
        ds.X[0, 0] = 1.0
    assert dataset_hash(ds) == dataset_hash(make_toy("moons", n=100, seed=0))
    assert dataset_hash(ds) != dataset_hash(make_toy("moons", n=100, seed=1))
    renamed = Dataset(ds.X, ds.y, ("u", "v"), ds.target_name, ds.task, ds.name)
    assert dataset_hash(ds) != dataset_hash(renamed)


def test_split_sizes_and_stratification():
    ds = make_toy("gaussians", n=1000, balance=0.2, seed=0)
    train, valid = split(ds, 0.25, seed=0)
    assert len(train.y) == 750 and len(valid.y) == 250
    assert train.y.mean() == pytest.approx(0.2) and valid.y.mean() == pytest.approx(0.2)
    rows = {tuple(r) for r in train.X} | {tuple(r) for r in valid.X}
    assert len(rows) == 1000  # no point lost or repeated


def test_split_regression_is_deterministic_by_seed():
    ds = make_toy("sine", n=100, seed=0)
    a, b, c = (split(ds, 0.3, seed=s)[1] for s in (1, 1, 2))
    assert len(a.y) == 30 and np.array_equal(a.X, b.X) and not np.array_equal(a.X, c.X)


def test_split_zero_gives_no_validation_set():
    ds = make_toy("moons", n=100, seed=0)
    train, valid = split(ds, 0.0, seed=0)
    assert valid is None and train is ds


@pytest.mark.parametrize("fraction", [-0.1, 0.6])
def test_split_refuses_fraction_out_of_range(fraction):
    with pytest.raises(DataError, match="validation fraction"):
        split(make_toy("moons", n=100), fraction, seed=0)


def test_flip_labels_flips_the_share_asked_and_only_labels():
    ds = make_toy("moons", n=200, seed=1)
    flipped = flip_labels(ds, 0.1, seed=3)
    assert np.sum(flipped.y != ds.y) == 20
    assert np.array_equal(flipped.X, ds.X)
    assert np.array_equal(flip_labels(ds, 0.1, seed=3).y, flipped.y)
    with pytest.raises(DataError):
        flip_labels(ds, 0.7)


# --- a sample of a large data set --------------------------------------------------------


def test_sample_is_stratified_seeded_and_keeps_the_order():
    ds = make_toy("moons", n=3000, balance=0.2, seed=4)
    a = sample(ds, 500, seed=7)
    assert len(a.y) == 500 and np.count_nonzero(a.y == 1) == 100  # the class shares kept
    again, other = sample(ds, 500, seed=7), sample(ds, 500, seed=8)
    assert np.array_equal(a.X, again.X) and not np.array_equal(a.X, other.X)
    rows = [int(np.flatnonzero((ds.X == x).all(axis=1))[0]) for x in a.X]
    assert rows == sorted(rows)  # in the file's order, each point once
    assert len(set(rows)) == 500


def test_sample_keeps_every_class_and_regression_samples_plainly():
    ds = make_toy("moons", n=1000, balance=0.05, seed=1)
    assert set(sample(ds, 10, seed=0).y) == {0.0, 1.0}
    reg = make_toy("sine", n=400, seed=1)
    got = sample(reg, 150, seed=2)
    assert len(got.y) == 150 and got.task == "regression"
    assert sample(reg, 400, seed=2) is reg  # nothing to leave out


def test_the_validation_split_is_drawn_from_the_sample():
    ds = make_toy("circles", n=2000, seed=3)
    train, valid = split(sample(ds, 400, seed=5), 0.25, 5)
    assert len(train.y) + len(valid.y) == 400
    chosen = {tuple(x) for x in sample(ds, 400, seed=5).X}
    assert {tuple(x) for x in np.vstack([train.X, valid.X])} == chosen


def test_sample_refuses_a_bad_size():
    with pytest.raises(DataError, match="number of points"):
        sample(make_toy("moons", n=100), 0)


def test_flipping_the_deepest_point_flips_one_label_deep_in_its_class():
    ds = make_toy("linear", n=200, noise=0.05, seed=2)
    flipped = flip_labels(ds, "deepest")
    changed = np.flatnonzero(flipped.y != ds.y)
    assert len(changed) == 1 and changed[0] == deepest_row(ds)
    i = changed[0]
    own = ds.X[ds.y == ds.y[i]].mean(axis=0)
    other = ds.X[ds.y != ds.y[i]].mean(axis=0)
    assert np.linalg.norm(ds.X[i] - other) > np.linalg.norm(ds.X[i] - own)
