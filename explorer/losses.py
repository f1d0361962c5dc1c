"""The three losses: their best constant, pseudo-residuals, leaf values and link.

Every loss-specific formula lives here, so the boosting loop knows none of them.
Each formula is written the way scikit-learn 1.9 evaluates it (``sklearn/_loss``
and ``sklearn/ensemble/_gb.py``), so that the last bits agree: those bits decide
near-tie splits later on. Loss codes are small integers because numba kernels
take them as arguments.
"""

import math

import numpy as np

from .kernel import kernel
from .text import number

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
    from scipy.special import logit  # scikit-learn's; imported here, as the app starts faster
    score = float(logit(p))
    return 0.5 * score if code == EXPONENTIAL else score


@kernel
def residual(code, y, f):
    """The pseudo-residual -dL/dF of one sample at raw score f.

    log-loss: y - p, computed from e^-F with a branch (not y - sigmoid(F)) as scikit-learn
    does; exponential: y e^-F - (1 - y) e^F (y in {0, 1}); squared error: y - F.
    """
    if code == LOG_LOSS:
        if f > -37.0:
            e = math.exp(-f)
            return -(((1.0 - y) - y * e) / (1.0 + e))
        return -(math.exp(f) - y)
    if code == EXPONENTIAL:
        # |F| <= 300 keeps e^F and the trees' sums of squared residuals finite, and -y/e
        # away from -y/0; scikit-learn overflows out there, so parity is not at stake
        e = math.exp(min(max(f, -300.0), 300.0))
        return -(-y / e + (1.0 - y) * e)
    return -(f - y)


@kernel
def curvature(code, y, r):
    """The hessian d2L/dF2 of one sample, written from its residual r as scikit-learn's leaf update.

    log-loss: p (1 - p) with p = y - r; exponential: e^(-(2y-1)F) = |r|; squared error: 1.
    """
    if code == LOG_LOSS:
        p = y - r
        return p * (1.0 - p)
    if code == EXPONENTIAL:
        return r if y != 0.0 else -r
    return 1.0


@kernel
def negative_gradient(code, y, raw, out):
    """Pseudo-residuals of every sample into ``out``."""
    for i in range(y.shape[0]):
        out[i] = residual(code, y[i], raw[i])


@kernel
def hessian(code, y, r, out):
    """Hessians of every sample, from their residuals r, into ``out``."""
    for i in range(y.shape[0]):
        out[i] = curvature(code, y[i], r[i])


@kernel
def line_minimum(code, y, raw, direction, members, t):
    """argmin over t of sum_i L(y_i, raw_i + t direction_i), i in members, by Newton's method.

    Starts from t and iterates t += sum r d / sum h d^2 until the step is below 1e-12
    (relative) or 50 steps: a pure leaf of the log-loss has no finite minimiser, and
    there the iterations stop at a large finite t instead of running off to infinity.
    """
    for _ in range(50):
        num = 0.0
        den = 0.0
        for i in members:
            d = direction[i]
            r = residual(code, y[i], raw[i] + t * d)
            num += r * d
            den += curvature(code, y[i], r) * d * d
        if abs(den) < HESSIAN_FLOOR:
            break
        step = num / den
        t += step
        if abs(step) <= 1e-12 * max(1.0, abs(t)):
            break
    return t


@kernel
def newton_step(sum_r, sum_h, n):
    """Leaf value mean(r) / mean(h): one Newton step on the leaf's own loss.

    Means, not sums, because that is how scikit-learn divides; a hessian below
    HESSIAN_FLOOR (all p at exactly 0 or 1) gives no step rather than inf or NaN.
    """
    den = sum_h / n
    if abs(den) < HESSIAN_FLOOR:
        return 0.0
    return (sum_r / n) / den


# --- K >= 3 classes: the multinomial log-loss (scikit-learn's HalfMultinomialLoss) -------


def initial_scores(y, n_classes):
    """f0_k, the best constant raw scores: log p_k minus the mean of the log p over the classes.

    p_k is the share of class k (``y`` holds class indices), clipped to [eps, 1 - eps], and
    the link is scikit-learn's symmetric multinomial logit (log of p over its geometric mean).
    """
    prior = np.bincount(y.astype(np.int64), minlength=n_classes) / y.shape[0]
    eps = np.finfo(np.float64).eps
    prior = np.clip(prior, eps, 1 - eps, dtype=np.float64)[None, :]
    from scipy.stats import gmean  # scikit-learn's; 0.4 s to import, so only when needed
    return np.log(prior / gmean(prior, axis=1)[:, None])[0]


@kernel
def softmax_residuals(y, raw, out):
    """out[k, i] = y_ik - p_ik with p_i = softmax(raw[i]), the max subtracted first, as
    scikit-learn's CyHalfMultinomialLoss.gradient computes it (then negated)."""
    n_classes = raw.shape[1]
    e = np.empty(n_classes)
    for i in range(raw.shape[0]):
        total = softmax_row(raw, i, e)
        for k in range(n_classes):
            out[k, i] = -(e[k] / total - (1.0 if y[i] == k else 0.0))


@kernel
def softmax_row(raw, i, e):
    """e[k] = exp(raw[i, k] - max_k raw[i, k]); returns their sum, added in k order (p_ik
    = e[k] / sum, as scikit-learn's multinomial loss computes it)."""
    top = raw[i, 0]
    for k in range(1, raw.shape[1]):
        if top < raw[i, k]:
            top = raw[i, k]
    total = 0.0
    for k in range(raw.shape[1]):
        e[k] = math.exp(raw[i, k] - top)
        total += e[k]
    return total


@kernel
def multinomial_step(sum_r, sum_h, n, n_classes):
    """Leaf value (K - 1)/K * mean(r) / mean(p (1 - p)), in scikit-learn's order of operations.

    The (K - 1)/K factor is Friedman's (2001, algorithm 6), kept by scikit-learn; the
    same guard as the binary Newton step gives no step where the hessian vanishes.
    """
    den = sum_h / n
    if abs(den) < HESSIAN_FLOOR:
        return 0.0
    return ((sum_r / n) * ((n_classes - 1) / n_classes)) / den


def softmax(raw):
    """p over the last axis of raw scores, stably (the max subtracted first)."""
    raw = np.asarray(raw, dtype=np.float64)
    e = np.exp(raw - raw.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def multinomial_loss(y, raw):
    """Mean multinomial log-loss log(sum_k e^F_k) - F_y over the samples (axis -2 of raw,
    classes on the last axis; leading axes are rounds), by log-sum-exp."""
    raw = np.asarray(raw, dtype=np.float64)
    top = raw.max(axis=-1)
    lse = top + np.log(np.exp(raw - top[..., None]).sum(axis=-1))
    own = np.take_along_axis(raw, np.broadcast_to(y.astype(np.int64)[:, None],
                                                  raw.shape[:-1] + (1,)), axis=-1)[..., 0]
    return (lse - own).mean(axis=-1)


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


# --- what the views show of each loss ------------------------------------------------


class Loss:
    """One loss as the views show it: its name, its formulas as text, with the numbers of
    a fit plugged in. The views ask the loss (``of(trace)``), never branch on its name.

    ``half`` is True where the loss's natural raw score is half the log-odds (the
    exponential loss): f0 = 1/2 log(N+/N-) and p = sigmoid(2F).
    """

    name = ""
    title = ""  # as shown in captions and legends
    is_classifier = True
    half = False
    residual_html = ""  # the pseudo-residual in a chart's (HTML) label
    residual_bound = None  # |r| < this for every F (a fixed colour scale), if any
    pm_form = False  # True where the +-1 label form is the same loss (MATH.md section 2)
    multiclass = False  # True for K >= 3 classes: every quantity has one value per class

    @property
    def code(self) -> int:
        return CODES[self.name]

    def p_html(self, m) -> str:
        """p_m as a chart label."""
        return f"σ(2F<sub>{m}</sub>)" if self.half else f"σ(F<sub>{m}</sub>)"

    def p_tex(self, m) -> str:
        return (r"\sigma(2F_{" if self.half else r"\sigma(F_{") + str(m) + "})"

    def leaf_tex(self, R: str, F: str) -> str:
        """The Newton leaf value sum r / sum h, written in the loss's own terms."""
        raise NotImplementedError

    def leaf_note(self, m: int) -> str:
        """What the leaf formula's letters are."""
        raise NotImplementedError

    def f0_tex(self, f: dict) -> list[str]:
        """f0 with the counts plugged in (``f`` from ``numbers.summaries.f0_summary``)."""
        half = r"\tfrac{1}{2}\," if self.half else ""
        return [
            r"f_0 = \arg\min_c \sum_i L(y_i, c) = " + half + r"\log\frac{N_+}{N_-} = " + half
            + r"\log\frac{" + str(f["n_pos"]) + "}{" + str(f["n_neg"]) + "} = "
            + number(f["from_counts"]),
            r"\text{with labels } y_i \in \{-1, +1\}:\quad \bar y = \frac{N_+ - N_-}{N} = "
            + number(f["ybar"]) + r",\qquad f_0 = " + half
            + r"\log\frac{1 + \bar y}{1 - \bar y} = " + half + r"\log\frac{"
            + number(1 + f["ybar"]) + "}{" + number(1 - f["ybar"]) + "} = "
            + number(f["from_pm"]),
            r"p_0 = " + self.p_tex(0).replace("F_{0}", "f_0") + " = " + number(f["p0"])
            + r" = \frac{N_+}{N}",
        ]

    def f0_note(self, f: dict) -> str:
        return "f₀ is the log-odds log(p̄ / (1 − p̄)), not the odds p̄ / (1 − p̄)."


class LogLoss(Loss):
    name = "log_loss"
    title = "log-loss"
    residual_html = "y − p"
    residual_bound = 1.0
    pm_form = True

    def leaf_tex(self, R, F):
        return (r"\gamma = \frac{\sum_{" + R + r"} (y_i - p_i)}{\sum_{" + R
                + r"} p_i\,(1 - p_i)}")

    def leaf_note(self, m):
        return (f"p_i = σ(F_{m - 1}(x_i)) are the probabilities before tree {m}: "
                "γ is one Newton step on the leaf's own log-loss.")


class ExponentialLoss(Loss):
    name = "exponential"
    title = "exponential"
    half = True
    residual_html = "ỹ·e<sup>−ỹF</sup>"

    def leaf_tex(self, R, F):
        return (r"\gamma = \frac{\sum_{" + R + r"} \tilde y_i\, e^{-\tilde y_i " + F + "}}"
                r"{\sum_{" + R + r"} e^{-\tilde y_i " + F + "}}")

    def leaf_note(self, m):
        return ("ỹ = 2y − 1 ∈ {−1, +1}: the residual is ỹ·e^(−ỹF) and the hessian "
                "its absolute value (scikit-learn's exponential loss).")

    def f0_note(self, f):
        return "The exponential loss e^(−ỹF) halves the log-odds, so p = σ(2F)."


class SquaredError(Loss):
    name = "squared_error"
    title = "½(y − F)²"
    is_classifier = False
    residual_html = "y − F"

    def p_html(self, m):
        return f"F<sub>{m}</sub>"

    def p_tex(self, m):
        return "F_{" + str(m) + "}"

    def leaf_tex(self, R, F):
        return r"\gamma = \frac{1}{n}\sum_{" + R + r"} r_i"

    def leaf_note(self, m):
        return (f"The mean residual r = y − F_{m - 1}(x). With squared error every hessian "
                "is 1, so the Newton step Σr / Σh is this same mean.")

    def f0_tex(self, f):
        return [r"f_0 = \arg\min_c \sum_i \tfrac12 (y_i - c)^2 = \frac{1}{N}\sum_i y_i = "
                r"\frac{" + number(f["sum_y"]) + "}{" + str(f["n"]) + "} = "
                + number(f["mean"])]

    def f0_note(self, f):
        return (f"The mean of the {f['n']} training targets: the derivative −Σ(yᵢ − c) is "
                "zero there.")


class Multinomial(Loss):
    """The log-loss with K >= 3 classes: softmax probabilities, one tree per class a round."""

    name = "log_loss"
    title = "multinomial log-loss"
    multiclass = True
    residual_html = "y<sub>k</sub> − p<sub>k</sub>"
    residual_bound = 1.0
    factor_note = ("The factor (K − 1)/K is Friedman's (2001, algorithm 6: K-class logistic "
                   "boosting, a Newton step on the diagonal of the hessian); scikit-learn keeps "
                   "it for backward compatibility, so the explorer shows it too.")

    def p_html(self, m):
        return f"softmax(F<sub>{m}</sub>)<sub>k</sub>"

    def p_tex(self, m):
        return r"\operatorname{softmax}(F_{" + str(m) + r"})_k"

    def leaf_tex(self, R, F):
        return (r"\gamma_k = \frac{K - 1}{K}\cdot\frac{\sum_{" + R + r"} (y_{ik} - p_{ik})}{\sum_{"
                + R + r"} p_{ik}\,(1 - p_{ik})}")

    def leaf_note(self, m):
        return (f"p_ik = softmax(F_{m - 1}(x_i))_k are the class probabilities before round {m} "
                "and y_ik is 1 for the samples of class k. " + self.factor_note)

    def f0_tex(self, f):
        """``f`` from ``numbers.summaries.f0_summary``: counts, n, f0 (one per class)."""
        K = len(f["counts"])
        shares = ", ".join(r"\tfrac{" + str(c) + "}{" + str(f["n"]) + "}" for c in f["counts"])
        values = ", ".join(number(v) for v in f["f0"])
        return [r"f_{0k} = \log p_k - \frac{1}{K}\sum_{j} \log p_j,\qquad p = (" + shares + ")",
                r"f_0 = (" + values + r"),\qquad \operatorname{softmax}(f_0) = p\quad (K = "
                + str(K) + ")"]

    def f0_note(self, f):
        return ("f₀ holds the log of each class's share, centred so that the K values sum "
                "to 0 (scikit-learn's symmetric multinomial link): softmax(f₀) gives back "
                "the shares.")


LOSSES = {loss.name: loss for loss in (LogLoss(), ExponentialLoss(), SquaredError())}
MULTINOMIAL = Multinomial()


def of(trace) -> Loss:
    """The loss a trace was fitted with (the multinomial log-loss with K >= 3 classes)."""
    return MULTINOMIAL if trace.is_multiclass else LOSSES[trace.loss]
