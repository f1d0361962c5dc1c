"""summation: numpy's pairwise order inside the kernels, to the last bit."""

import math

import numpy as np
import pytest

from explorer.summation import gathered_sum, pairwise_sum


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 100, 128, 129, 256, 1000, 4097, 100_003])
def test_pairwise_sum_is_numpys(n):
    rng = np.random.RandomState(n)
    a = rng.standard_normal(n) * 10.0 ** rng.randint(-8, 8, n)
    assert pairwise_sum(a, n) == np.sum(a)
    # scikit-learn sums a field of its histogram record: the same order
    record = np.zeros(n, dtype=[("g", "f8"), ("h", "f8"), ("c", "u4")])
    record["g"] = a
    assert pairwise_sum(a, n) == record["g"].sum()


def test_pairwise_sum_is_not_the_running_sum():
    """numba's np.sum adds one by one; these values tell the two orders apart."""
    rng = np.random.RandomState(0)
    a = rng.normal(size=256) * 10.0 ** rng.randint(-6, 6, size=256)
    plain = 0.0
    for value in a:
        plain += value
    assert plain != pairwise_sum(a, a.shape[0]) == np.sum(a)


@pytest.mark.parametrize("n", [1, 5, 9, 200])
def test_negative_zeros_sum_to_numpys_zero(n):
    a = np.full(n, -0.0)
    assert math.copysign(1.0, pairwise_sum(a, n)) == math.copysign(1.0, np.sum(a))


def test_gathered_sum_is_numpys_sum_of_the_gathered_copy():
    rng = np.random.RandomState(3)
    values = rng.standard_normal(500) * 10.0 ** rng.randint(-8, 8, 500)
    index = rng.permutation(500)[:333]
    buffer = np.empty(500)
    assert gathered_sum(values, index, buffer) == np.sum(values[index])
