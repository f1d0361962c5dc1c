"""scikit-learn's random number generator for the order in which a tree tries features.

A 32-bit xorshift generator (``our_rand_r`` in ``sklearn/tree/_utils.pyx``), seeded
once per tree; the splitter draws ``rand_int(lo, hi) = lo + rand_r() % (hi - lo)`` for
its Fisher-Yates shuffle of the features (see REFERENCE.md).
"""

from .kernel import kernel


@kernel
def rand_int(low, high, state):
    """Integer in [low, high) from scikit-learn's xorshift generator (``our_rand_r``)."""
    s = state[0]
    if s == 0:
        s = 1
    s = (s ^ (s << 13)) & 0xFFFFFFFF
    s ^= s >> 17
    s = (s ^ (s << 5)) & 0xFFFFFFFF
    state[0] = s
    return low + (s % 0x80000000) % (high - low)

