"""The engine's introsort (introsort.sort_segment) leaves equal values in scikit-learn's order.

Its heapsort sifts bottom-up (the same moves as scikit-learn's, fewer comparisons), so
the whole sort is checked against scikit-learn's own sort (the test wrapper of
sklearn.utils._sorting.simultaneous_sort, 3-way partition, as its splitter calls it), on
data whose ties reach every path: equal runs around the pivot, sorted and rotated inputs
(median-of-3 goes quadratic there and heapsort finishes the job), parts left tie-free.
"""

import numpy as np
import pytest
from sklearn.utils._sorting import _py_simultaneous_sort

from explorer import exact_split, introsort


def _theirs(values, samples):
    values, samples = values.astype(np.float32), samples.astype(np.intp)
    _py_simultaneous_sort(values, samples, len(samples), use_three_way_partition=True)
    return samples


def _ours(values, samples, lo):
    """Sort at offset lo of longer arrays, with the sorted rows the engine would hold."""
    n = len(samples)
    pad = lo + n + 3
    full = np.zeros(pad, dtype=np.float32)
    full[lo:lo + n] = values
    order = np.zeros(pad, dtype=np.int64)
    order[lo:lo + n] = samples
    known = np.zeros(pad, dtype=np.int64)
    known[lo:lo + n] = samples[np.argsort(values + np.float32(0.0), kind="stable")]
    sorted_values = np.zeros(pad, dtype=np.float32)
    sorted_values[lo:lo + n] = np.sort(values + np.float32(0.0))
    ties = np.zeros(pad, dtype=np.int64)
    exact_split._tie_counts(sorted_values, lo, lo + n, ties)
    keys = np.empty(pad, dtype=np.uint64)
    introsort.sort_segment(full, order, lo, n, ties, known, keys)
    return order[lo:lo + n]


def _inputs(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.choice([17, 100, 1000, 5000]))
    levels = int(rng.choice([2, 10, n // 4, n * 50]))
    values = rng.integers(0, levels, n).astype(np.float32) / levels
    values[rng.random(n) < 0.05] = -0.0
    samples = rng.permutation(n) + int(rng.integers(0, 50))
    yield "unsorted", values, samples
    order = np.argsort(values, kind="stable")
    yield "sorted", values[order], samples[order]
    # a right child after a split on its parent's sorted feature: median-of-3 goes quadratic
    rotated = np.roll(order, -1)
    yield "rotated", values[rotated], samples[rotated]
    yield "reversed", values[order[::-1]], samples[order[::-1]]


@pytest.mark.parametrize("seed", range(12))
def test_sort_segment_orders_ties_as_scikit_learn(seed):
    for kind, values, samples in _inputs(seed):
        for lo in (0, 3):
            ours = _ours(values, samples, lo)
            assert np.array_equal(ours, _theirs(values, samples)), (kind, lo)
