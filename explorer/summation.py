"""numpy's summation order, to the last bit, inside numba kernels.

np.sum (np.add.reduce) of a contiguous float64 array is a pairwise sum: below 8 values
one by one, up to 128 with 8 running sums combined as a tree, beyond that halves split
on multiples of 8. numba's own np.sum adds one by one, and the last bits of a leaf's
sums decide near-tie splits later on, so the kernels that owe scikit-learn parity
(leaf sums of the exact and second-order trees, the histogram root's G and H) sum here.
"""

from .kernel import kernel


@kernel
def pairwise_sum(a, n):
    """Sum of a[:n] in numpy's pairwise order (blocks of 8 lanes, halves above 128).

    np.add.reduce adds the pairwise sum to its identity 0.0, so -0.0s sum to 0.0."""
    return 0.0 + _pairwise(a, n)


@kernel
def _pairwise(a, n):
    if n < 8:
        s = 0.0
        for i in range(n):
            s += a[i]
        return s
    if n <= 128:
        r0, r1, r2, r3 = a[0], a[1], a[2], a[3]
        r4, r5, r6, r7 = a[4], a[5], a[6], a[7]
        i = 8
        while i < n - (n % 8):
            r0 += a[i]
            r1 += a[i + 1]
            r2 += a[i + 2]
            r3 += a[i + 3]
            r4 += a[i + 4]
            r5 += a[i + 5]
            r6 += a[i + 6]
            r7 += a[i + 7]
            i += 8
        s = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            s += a[i]
            i += 1
        return s
    half = n // 2
    half -= half % 8
    return _pairwise(a[:half], half) + _pairwise(a[half:], n - half)


@kernel
def gathered_sum(values, index, buffer):
    """pairwise_sum of values[index], gathered into buffer first (numpy sums a copy)."""
    for q in range(index.shape[0]):
        buffer[q] = values[index[q]]
    return pairwise_sum(buffer, index.shape[0])
