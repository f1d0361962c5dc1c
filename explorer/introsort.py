"""scikit-learn's introsort: the order it leaves equal values in, reproduced.

scikit-learn's splitter sorts a node's values with its samples by introsort (median of
three, 3-way partition, heapsort past the depth limit, insertion sort below 16). Equal
values end in an order that depends on its moves, and that order decides in which order
the running sums are added, whose last bits decide near-ties. ``sort_segment`` runs the
same sort on the parts of a node that hold equal values.
"""

import numpy as np

from .kernel import kernel

_SORT_SMALL = 15  # introsort hands segments of this size or less to insertion sort

# --- scikit-learn's introsort (3-way partition, insertion sort below 16) -----
#
# The sort runs on one array of 64-bit keys: the value's bits in an order-preserving
# form above, the sample below, so that every move is a single swap. Comparisons
# read only the upper half, so equal values compare equal, as in scikit-learn.

_LOW = np.uint64(0xFFFFFFFF)
_SHIFT = np.uint64(32)


@kernel
def _pack(values, samples, keys, lo, n):
    """keys[p] = (ordered bits of values[p]) << 32 | samples[p] for p in lo..lo+n-1."""
    bits = values.view(np.uint32)
    for p in range(lo, lo + n):
        values[p] += np.float32(0.0)  # -0.0 becomes 0.0: equal values, equal keys
        u = np.uint64(bits[p])
        u = (u ^ _LOW) if u >> np.uint64(31) else (u | np.uint64(0x80000000))
        keys[p] = (u << _SHIFT) | np.uint64(samples[p])


@kernel
def _median3(keys, lo, n):
    a = keys[lo] >> _SHIFT
    b = keys[lo + n // 2] >> _SHIFT
    c = keys[lo + n - 1] >> _SHIFT
    if a < b:
        if b < c:
            return b
        elif a < c:
            return c
        return a
    elif b < c:
        if a < c:
            return a
        return c
    return b


@kernel
def _sift_down(keys, lo, start, end):
    """scikit-learn's sift-down, bottom-up: its root moves down the path of larger children
    (the left one on ties) while the child is larger than the root. Values fall along that
    path, so the place it stops at is found from the path's end, climbing while values are
    not larger: the same moves, with about half the comparisons (it usually goes deep).
    As in heapsort, the subtrees below ``start`` must be heaps already."""
    root = keys[lo + start]
    v = root >> _SHIFT
    node = start
    child = 2 * node + 1
    while child < end:
        if child + 1 < end and (keys[lo + child] >> _SHIFT) < (keys[lo + child + 1] >> _SHIFT):
            child += 1
        node = child
        child = 2 * node + 1
    while node != start and (keys[lo + node] >> _SHIFT) <= v:
        node = (node - 1) // 2
    while node != start:  # the path above node moves up one place; the root goes to node
        keys[lo + node], root = root, keys[lo + node]
        node = (node - 1) // 2
    keys[lo + start] = root


@kernel
def _heapsort(keys, lo, n):
    start = (n - 2) // 2
    while True:
        _sift_down(keys, lo, start, n)
        if start == 0:
            break
        start -= 1
    end = n - 1
    while end > 0:
        keys[lo], keys[lo + end] = keys[lo + end], keys[lo]
        _sift_down(keys, lo, np.int64(0), end)  # typed: a literal compiles it twice
        end -= 1


@kernel
def _insertion_sort(keys, lo, n):
    for i in range(lo + 1, lo + n):
        key = keys[i]
        v = key >> _SHIFT
        j = i
        while j > lo and (keys[j - 1] >> _SHIFT) > v:
            keys[j] = keys[j - 1]
            j -= 1
        keys[j] = key


@kernel
def sort_segment(values, samples, lo, n, ties, known, keys):
    """Sort samples[lo:lo+n] by values, as scikit-learn's simultaneous_sort orders them.

    The recursion on the left part is kept on an explicit stack; the parts are
    disjoint, so the order in which they are finished does not change the result.
    ``values`` is scratch afterwards; ``keys`` is a scratch array as long as samples.

    Only the order of equal values is unknown in advance: ``known[p]`` is the sample
    at sorted position p whenever its value is unique, and ``ties[p]`` counts the
    positions q <= p holding the same value as q - 1. The 3-way partition keeps equal
    values in one part and each part holds the values of its own sorted positions,
    so a part without two equal values is finished by copying ``known``.
    """
    if n == 0:
        return
    first = lo
    size = n
    _pack(values, samples, keys, lo, n)
    stack = np.empty((2 * 64 + 8, 3), dtype=np.int64)
    stack[0, 0] = lo
    stack[0, 1] = n
    stack[0, 2] = 2 * int(np.log2(n))
    top = 1
    while top > 0:
        top -= 1
        lo = stack[top, 0]
        n = stack[top, 1]
        maxd = stack[top, 2]
        while n > _SORT_SMALL:
            if ties[lo + n - 1] == ties[lo]:
                for p in range(lo, lo + n):
                    keys[p] = known[p]
                n = 0
                break
            if maxd <= 0:
                _heapsort(keys, lo, n)
                n = 0
                break
            maxd -= 1
            pivot = _median3(keys, lo, n)
            i = 0
            left = 0
            right = n
            while i < right:
                key = keys[lo + i]
                v = key >> _SHIFT
                if v < pivot:
                    keys[lo + i] = keys[lo + left]
                    keys[lo + left] = key
                    i += 1
                    left += 1
                elif v > pivot:
                    right -= 1
                    keys[lo + i] = keys[lo + right]
                    keys[lo + right] = key
                else:
                    i += 1
            stack[top, 0] = lo
            stack[top, 1] = left
            stack[top, 2] = maxd
            top += 1
            lo += right
            n -= right
        if n > 1 and ties[lo + n - 1] == ties[lo]:
            for p in range(lo, lo + n):
                keys[p] = known[p]
        else:
            _insertion_sort(keys, lo, n)
    for p in range(first, first + size):
        samples[p] = keys[p] & _LOW

