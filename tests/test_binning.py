"""The bins: the same thresholds and bin indices as scikit-learn's HistGradientBoosting."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.ensemble._hist_gradient_boosting.binning import _BinMapper

from explorer import binning


def _columns():
    rng = np.random.RandomState(0)
    n = 3000
    return np.column_stack([
        rng.normal(size=n),  # many distinct values: quantiles
        np.round(rng.normal(size=n), 1),  # ties: some quantiles coincide
        rng.randint(0, 7, size=n).astype(float),  # few distinct values: midpoints
        np.full(n, 2.5),  # constant: no threshold
        rng.exponential(size=n) ** 3,  # skewed
    ])


@pytest.mark.parametrize("max_bins", [2, 3, 4, 16, 100, 255])
def test_thresholds_and_bins_are_scikit_learns(max_bins):
    X = _columns()
    cuts = binning.thresholds(X, max_bins)
    mapper = _BinMapper(n_bins=max_bins + 1, random_state=0).fit(X)
    assert len(cuts) == X.shape[1]
    for ours, theirs in zip(cuts, mapper.bin_thresholds_):
        assert ours.dtype == np.float64
        assert_array_equal(ours, theirs)
    assert_array_equal(binning.bin_columns(X, cuts), mapper.transform(X).T)
    assert_array_equal(binning.n_bins(cuts), mapper.n_bins_non_missing_)


def test_bin_edges_are_inclusive_on_the_right():
    cuts = [np.array([1.0, 2.0])]
    X = np.array([[0.5], [1.0], [1.5], [2.0], [2.5]])
    assert_array_equal(binning.bin_columns(X, cuts)[0], [0, 0, 1, 1, 2])


def test_constant_feature_has_one_bin():
    X = np.column_stack([np.ones(50), np.arange(50.0)])
    cuts = binning.thresholds(X, 10)
    assert len(cuts[0]) == 0
    assert_array_equal(binning.bin_columns(X, cuts)[0], np.zeros(50))
    assert binning.n_bins(cuts)[0] == 1


def test_above_200000_rows_the_quantiles_use_scikit_learns_subsample():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(binning.SUBSAMPLE + 1, 1))
    y = (X[:, 0] > 0).astype(int)
    model = HistGradientBoostingClassifier(max_iter=1, early_stopping=False,
                                           random_state=7).fit(X, y)
    cuts = binning.thresholds(X, 255, random_state=7)
    assert_array_equal(cuts[0], model._bin_mapper.bin_thresholds_[0])
    # and the subsample matters: all rows give other quantiles
    assert not np.array_equal(cuts[0], binning.thresholds(X[:binning.SUBSAMPLE], 255)[0])


@pytest.mark.parametrize("max_bins", [0, 1, 256, 2.5, "255"])
def test_max_bins_refused(max_bins):
    with pytest.raises(ValueError, match="max_bins must be an integer in 2..255"):
        binning.thresholds(np.zeros((3, 1)), max_bins)
