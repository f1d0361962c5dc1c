"""The three losses: their best constant, pseudo-residuals, leaf values and link.

Every loss-specific formula lives here, so the boosting loop knows none of them.
Each formula is written the way scikit-learn 1.9 evaluates it (``sklearn/_loss``
and ``sklearn/ensemble/_gb.py``), so that the last bits agree: those bits decide
near-tie splits later on. Loss codes are small integers because numba kernels
take them as arguments.
"""

import math

import numpy as np
from numba import njit
from scipy.special import logit

LOG_LOSS, EXPONENTIAL, SQUARED_ERROR = 0, 1, 2
CODES = {"log_loss": LOG_LOSS, "exponential": EXPONENTIAL, "squared_error": SQUARED_ERROR}
HESSIAN_FLOOR = 1e-150  # scikit-learn's _safe_divide: a smaller leaf hessian gives a zero step


def initial_score(code, y):
    """f0, the best constant raw score.

    log-loss: log(N+/N-) = logit(mean y); exponential: half of it; squared error: mean y.
    """
    if code == SQUARED_ERROR:
        return float(np.average(y.reshape(-1, 1), axis=0)[0])
    n_pos = np.count_nonzero(y == 1.0)
    eps = np.finfo(np.float64).eps
    p = np.clip(n_pos / y.shape[0], eps, 1 - eps)
    score = float(logit(p))
    return 0.5 * score if code == EXPONENTIAL else score


@njit(cache=True, nogil=True)
def negative_gradient(code, y, raw, out):
    """Pseudo-residuals -dL/dF at raw scores ``raw`` into ``out``.

    log-loss: y - p, computed from e^-F with a branch (not y - sigmoid(F)) as scikit-learn
    does; exponential: y e^-F - (1 - y) e^F (y in {0, 1}); squared error: y - F.
    """
    for i in range(y.shape[0]):
        f = raw[i]
        if code == LOG_LOSS:
            if f > -37.0:
                e = math.exp(-f)
                out[i] = -(((1.0 - y[i]) - y[i] * e) / (1.0 + e))
            else:
                out[i] = -(math.exp(f) - y[i])
        elif code == EXPONENTIAL:
            e = math.exp(f)
            out[i] = -(-y[i] / e + (1.0 - y[i]) * e)
        else:
            out[i] = -(f - y[i])


@njit(cache=True, nogil=True)
def hessian(code, y, r, out):
    """Second derivative of the loss, written from the residuals r as scikit-learn's leaf update.

    log-loss: p (1 - p) with p = y - r; exponential: e^(-(2y-1)F) = |r|; squared error: 1.
    """
    for i in range(y.shape[0]):
        if code == LOG_LOSS:
            p = y[i] - r[i]
            out[i] = p * (1.0 - p)
        elif code == EXPONENTIAL:
            out[i] = r[i] if y[i] != 0.0 else -r[i]
        else:
            out[i] = 1.0


@njit(cache=True, nogil=True)
def pairwise_sum(a, n):
    """Sum of a[:n] in numpy's pairwise order (blocks of 8 lanes, halves above 128)."""
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
    return pairwise_sum(a[:half], half) + pairwise_sum(a[half:], n - half)


@njit(cache=True, nogil=True)
def newton_step(sum_r, sum_h, n):
    """Leaf value mean(r) / mean(h): one Newton step on the leaf's own loss.

    Means, not sums, because that is how scikit-learn divides; a hessian below
    HESSIAN_FLOOR (all p at exactly 0 or 1) gives no step rather than inf or NaN.
    """
    den = sum_h / n
    if abs(den) < HESSIAN_FLOOR:
        return 0.0
    return (sum_r / n) / den


def probability(code, raw):
    """p(class 1) from raw scores: sigmoid(F), or sigmoid(2F) for the exponential loss."""
    raw = np.asarray(raw, dtype=np.float64)
    z = 2.0 * raw if code == EXPONENTIAL else raw
    # exp of a non-positive number never overflows: the stable sigmoid
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def mean_loss(code, y, raw):
    """Mean loss over the last axis of ``raw`` (rows are rounds), computed stably.

    log-loss: log(1 + e^F) - y F; exponential: e^(-(2y - 1) F); squared error: (y - F)^2 / 2.
    """
    raw = np.asarray(raw, dtype=np.float64)
    if code == LOG_LOSS:
        values = np.logaddexp(0.0, raw) - y * raw
    elif code == EXPONENTIAL:
        values = np.exp(np.minimum(-(2.0 * y - 1.0) * raw, 700.0))
    else:
        values = 0.5 * (y - raw) ** 2
    return values.mean(axis=-1)
