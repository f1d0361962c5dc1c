"""The mathematics of one leaf: its loss as a function of the step, and the steps.

For a leaf R of tree m with samples i (in-bag), F_i = F_(m-1)(x_i):

    L_R(gamma) = sum_i L(y_i, F_i + gamma)
    Taylor at 0: L_R(0) - gamma sum r_i + gamma^2 / 2 sum h_i     (r = -g, the residuals)
    one Newton step: gamma_1 = sum r / sum h                    (scikit-learn's leaf)
    exact minimiser: the root of sum_i r_i(F_i + gamma) = 0    (Newton's method iterated)

and, for the log-loss, the same numbers in the +-1 form: r = y/(1 + e^(yF)),
|r|(1 - |r|) = p(1 - p). These are what the app's leaf view shows.

With K >= 3 classes a leaf of tree (m, k) moves class k's score alone:
L_R(gamma) = sum_i L(y_i, F_i + gamma e_k) under the softmax, r = y_k - p_k,
h = p_k (1 - p_k), and scikit-learn's leaf is (K - 1)/K times the Newton step.
"""

import weakref

import numpy as np

from .. import losses
from ..text import number, settled
from . import summaries
from .summaries import (CONVERGED, FLOOR, MAX_STEPS, STEP_TOLERANCE, STEPS, exact_stop,
                        leaf_formula, newton_iterations)


def members(trace, m, node, k=0):
    """Boolean mask of the in-bag training samples that pass through ``node`` of tree m
    (of class k)."""
    tree = trace.tree(m, k)
    parent = np.full(len(tree), -1)
    for k in np.flatnonzero(tree["left"] >= 0):
        parent[tree["left"][k]] = parent[tree["right"][k]] = k
    path = [node]
    while parent[path[-1]] >= 0:
        path.append(parent[path[-1]])
    mask = np.ones(len(trace.y), dtype=bool) if trace.in_bag is None else trace.in_bag[m].copy()
    X = trace.comparable(trace.X)  # float32, or float64 for histogram trees
    for above, below in zip(path[::-1], path[-2::-1]):
        left = X[:, tree["feature"][above]] <= tree["threshold"][above]
        mask &= left if below == tree["left"][above] else ~left
    return mask


def leaf_story(trace, m, node, n_points=201, k=0):
    """Every number of the leaf view, and the curves to draw.

    Returns a dict with: n, pure (all the leaf's points in the class of the tree, class 1
    or class k, or none of them: no finite minimiser), side (+1 when all are in it: L_R
    falls as gamma -> +inf; -1 when none are: as gamma -> -inf; 0 if not pure), sum_r, sum_h,
    newton (one step), exact (the minimiser: where Newton's method iterated from the
    step ended), stop_rule and stop_steps (how it ended: summaries.CONVERGED, the only one
    that found a minimiser, STEPS or FLOOR; and after how many steps), gap (exact -
    newton), value (the leaf's
    recorded value), update (nu * value), gammas, loss (L_R on gammas), taylor (its
    quadratic at 0), loss_at_0, and for the log-loss the +-1 form: sum_r_pm (sum of
    y/(1 + e^(yF))), sum_h_pm (sum |r|(1 - |r|)). newton_formula writes the step (with
    K >= 3 classes it carries scikit-learn's (K - 1)/K factor).
    """
    if trace.is_multiclass:
        return _class_leaf_story(trace, m, node, n_points, k)
    inside = members(trace, m, node)
    F, y = trace.raw[m - 1][inside], trace.y[inside]
    r, h = trace.residual(m - 1)[inside], trace.hessian(m - 1)[inside]
    code = losses.CODES[trace.loss]
    sum_r, sum_h = float(r.sum()), float(h.sum())
    newton = float(losses.newton_step(sum_r, sum_h, max(len(r), 1)))
    if trace.histogram:  # HistGradientBoosting's leaf, -G/(H + lambda)
        newton = _histogram_step(trace, m, node)
    exact = float(losses.line_minimum(code, y, F, np.ones_like(F), np.arange(len(y)), newton))
    # which of line_minimum's rules ended it: only a converged run found a minimiser
    stop = newton_iterations(code, y, F, newton)
    value = float(trace.tree(m)["value"][node])
    side = _side(trace, y, 0)
    pure = side != 0
    reach = min(max(2.0 * abs(exact), 2.0 * abs(newton), 1.5 * abs(value), 1.0), 20.0)
    gammas = np.linspace(-reach, reach, n_points)
    loss = _on_gammas(lambda g: losses.mean_loss(code, y, F + g[:, None]), gammas,
                      F.size) * len(y)
    loss_at_0 = _total_loss(code, y, F)
    sum_r = settled(sum_r, np.abs(r).sum())  # rounding noise prints as 0
    story = dict(n=int(inside.sum()), pure=pure, side=side, sum_r=sum_r, sum_h=sum_h, newton=newton,
                 exact=exact, gap=settled(exact - newton, abs(exact) + abs(newton)),
                 stop_rule=stop["rule"], stop_steps=stop["steps"], value=value, update=trace.learning_rate * value, tree=f"tree {m}",
                 gammas=gammas, loss=loss, loss_at_0=loss_at_0,
                 taylor=loss_at_0 - gammas * sum_r + 0.5 * gammas**2 * sum_h,
                 newton_formula=_HISTOGRAM_FORMULA if trace.histogram else "γ₁ = Σr / Σh")
    _add_rule(story, trace, m, node, 0)
    if losses.of(trace).pm_form:
        y_pm = 2.0 * y - 1.0
        r_pm = y_pm / (1.0 + np.exp(np.minimum(y_pm * F, 700.0)))
        story.update(sum_r_pm=float(r_pm.sum()),
                     sum_h_pm=float((np.abs(r_pm) * (1.0 - np.abs(r_pm))).sum()))
    return story


def _side(trace, y, k):
    """Whether a leaf of points of classes ``y`` is pure: +1 when all are in the class of
    its tree (class 1, or class k with K >= 3 classes: L_R falls for ever as gamma -> +inf),
    -1 when none are (as gamma -> -inf); a pure leaf has no finite minimiser. 0: not pure
    (a regression's leaf, an empty leaf of two classes)."""
    if not trace.is_classifier or not (len(y) or trace.is_multiclass):
        return 0
    own = y == (k if trace.is_multiclass else 1)
    return 1 if own.all() else -1 if not own.any() else 0


def forms(story) -> dict:
    """The Newton step of a leaf in the {0, 1} and the +-1 forms, side by side.

    From a :func:`leaf_story`. Keys: sum_r, sum_h (a = sum (y - p), b = sum p(1 - p)),
    ratio (a / b, 0 when b is 0); sum_r_pm (sum y/(1 + e^(yF))), sum_h_pm (sum |r|(1 - |r|)),
    beta (their ratio, 0 when the denominator is 0), gap_r and gap_h (|a - a_pm| and
    |b - b_pm|: the two forms are one model): these five are None when the loss has no
    +-1 form (only the log-loss has one).
    """
    a, b = story["sum_r"], story["sum_h"]
    out = dict(sum_r=a, sum_h=b, ratio=a / b if b else 0.0, sum_r_pm=None, sum_h_pm=None,
               beta=None, gap_r=None, gap_h=None, used_pm=None,
               # the rule from this form's sums, where its b is the fit's H (xgboost's
               # softmax hessian is twice the loss's own: no form of it here)
               used_0=_used_tex(story, a, b) if np.isclose(b, story.get("fit_sum_h", b))
               else None)
    if "sum_r_pm" in story:
        a2, b2 = story["sum_r_pm"], story["sum_h_pm"]
        out.update(sum_r_pm=a2, sum_h_pm=b2, beta=a2 / b2 if b2 else 0.0, gap_r=abs(a - a2),
                   gap_h=abs(b - b2),
                   used_pm=_used_tex(story, a2, b2))
    return out


def _used_tex(story, a, b):
    """The value the fit uses from a form's two sums, in TeX, when its rule is not the
    Newton step a / b itself (None then, and for the exact minimiser)."""
    rule, n = story.get("rule"), story.get("n", 0)
    sym = "w" if story.get("symbol") == "w" else r"\gamma"
    if rule in ("second_order", "histogram"):
        lam = story["lam"]
        return (sym + r" = \frac{a}{b + \lambda} = \frac{" + number(a) + "}{" + number(b)
                + " + " + number(lam) + "} = " + number(a / (b + lam) if b + lam else 0.0))
    if rule == "mean" and n:
        return (r"\gamma = a / n = " + number(a) + " / " + str(n) + " = " + number(a / n))
    if rule == "line_search" and n:
        rho = story["rho"]
        return (r"\gamma = \rho\, a / n = " + number(rho) + r" \times " + number(a) + " / "
                + str(n) + " = " + number(rho * a / n))
    return None


def _class_leaf_story(trace, m, node, n_points, k):
    """leaf_story of tree (m, k) with K >= 3 classes: the step moves class k's score."""
    K = trace.n_classes
    inside = members(trace, m, node, k)
    F, y = trace.raw[m - 1][inside], trace.y[inside]
    r, h = trace.residual(m - 1)[inside][:, k], trace.hessian(m - 1)[inside][:, k]
    if trace.second_order:  # xgboost's softmax hessian is 2 p (1 - p); the loss's own is half
        p_k = losses.softmax(F)[:, k]
        h = np.maximum(p_k * (1.0 - p_k), 0.0)
    sum_r, sum_h = float(r.sum()), float(h.sum())
    newton = float(losses.multinomial_step(sum_r, sum_h, max(len(r), 1), K))
    if trace.histogram:  # no (K - 1)/K factor: HistGradientBoosting's leaf
        newton = _histogram_step(trace, m, node, k)
    shift = np.zeros(K)
    shift[k] = 1.0

    def total(gamma):
        return float(losses.multinomial_loss(y, F + gamma * shift)) * len(y)

    exact = newton  # Newton's method on the leaf's own loss, from scikit-learn's step
    stop_rule, stop_steps = STEPS, 0
    for _ in range(MAX_STEPS):
        p = losses.softmax(F + exact * shift)[:, k]
        grad, curv = float((p - (y == k)).sum()), float((p * (1 - p)).sum())
        if curv < losses.HESSIAN_FLOOR:
            stop_rule = FLOOR
            break
        exact -= grad / curv
        stop_steps += 1
        if abs(grad / curv) <= STEP_TOLERANCE * max(1.0, abs(exact)):
            stop_rule = CONVERGED
            break
    side = _side(trace, y, k)
    pure = side != 0
    value = float(trace.tree(m, k)["value"][node])
    reach = min(max(2.0 * abs(exact), 2.0 * abs(newton), 1.5 * abs(value), 1.0), 20.0)
    gammas = np.linspace(-reach, reach, n_points)
    loss_at_0 = total(0.0)
    story = dict(n=int(inside.sum()), pure=pure, side=side, sum_r=settled(sum_r, np.abs(r).sum()),
                sum_h=sum_h, newton=newton, exact=exact, stop_rule=stop_rule,
                stop_steps=stop_steps,
                gap=settled(exact - newton, abs(exact) + abs(newton)), value=value,
                update=trace.learning_rate * value, gammas=gammas, tree=f"tree ({m}, {k})",
                loss=_on_gammas(lambda g: losses.multinomial_loss(
                    y, F + g[:, None, None] * shift), gammas, F.size) * len(y),
                loss_at_0=loss_at_0,
                taylor=loss_at_0 - gammas * sum_r + 0.5 * gammas**2 * sum_h,
                newton_formula=_HISTOGRAM_FORMULA if trace.histogram
                else f"γ₁ = {K - 1}/{K} · Σr / Σh")
    return _add_rule(story, trace, m, node, k)


# A histogram tree's leaf is one Newton step on the leaf's loss plus the penalty λγ²/2:
# -G/(H + lambda), with G = -sum r and H = sum h (scikit-learn adds 1e-15 to H + lambda)
_HISTOGRAM_FORMULA = "γ₁ = −G/(H + λ) = Σr / (Σh + λ)"


def _histogram_step(trace, m, node, k=0):
    """The leaf's value -G/(H + lambda) from the sums the tree recorded (the engine's)."""
    rec = trace.tree(m, k)[node]
    lam = float(trace.params.get("reg_lambda", 0.0))
    return float(rec["sum_r"]) / (float(rec["sum_h"]) + lam + 1e-15)


def _add_rule(story, trace, m, node, k):
    """The value the fit uses and how its rule makes it (summaries.leaf_formula): rule,
    symbol (w for second-order trees, xgboost's leaf weight), used (the recorded value),
    derivation ("w = Σr / (Σh + λ) = 49 / (24.5 + 1) = 1.92157"), rule_formula, lam,
    rho (line search's ρ_m), mean (Σr / n), fit_stop (exact leaves: how the fit's own
    Newton iterations ended, summaries.exact_stop; else None), and, for the rules with a λ > 0,
    regularised: the quadratic plus ½λγ², whose minimum is Σr / (Σh + λ)."""
    f = leaf_formula(trace, m, node, k)
    g = story["gammas"]
    story.update(fit_stop=exact_stop(trace, m, node) if f["rule"] == "exact" else None)
    story.update(rule=f["rule"], symbol=f["symbol"], used=story["value"],
                 derivation=f["derivation"], rule_formula=f["formula"], lam=f["lam"],
                 rho=f["rho"], mean=story["sum_r"] / story["n"] if story["n"] else 0.0,
                 fit_sum_h=f["sum_h"],
                 regularised=(story["taylor"] + 0.5 * f["lam"] * g**2) if f["lam"] > 0
                 else None)
    return story


def _on_gammas(loss, gammas, size):
    """``loss(g)`` (the leaf's mean loss at each of the steps g, one row each) over all of
    ``gammas``, a block of rows at a time: every row as the loss gives it for that step
    alone, bit for bit (numpy reduces each row by itself). At the Leaf maths page's 201
    steps a call per step cost 5-7 times as much on a leaf of 40-60 points (1.4 times on
    300, where the loss's own arithmetic is most of it). At most 2^20 of the leaf's scores
    (8 MB) are in one block (``size``: a step's scores)."""
    rows = max(1, 2**20 // max(size, 1))
    return np.concatenate([loss(gammas[i:i + rows]) for i in range(0, len(gammas), rows)])


def _total_loss(code, y, F):
    return float(losses.mean_loss(code, y, F)) * len(y)


_typical: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # trace -> {(m, k): node}


def typical_leaf(trace, m: int, k: int = 0) -> tuple[int, bool]:
    """The leaf of tree m (of class k) the Leaf maths page opens on when no leaf was
    chosen: a typical Newton leaf rather than an edge case.

    Classification: the largest leaf (most in-bag training points; the lower node id on
    a tie) whose exact minimiser is finite, that is not pure and where Newton's method on
    the leaf's own loss converged (:data:`CONVERGED`, as the page's "exact γ*" says).
    Regression: the largest leaf. Returns (node id, finite): ``finite`` is False when no
    leaf of the tree has a finite minimiser (then the largest leaf)."""
    per_trace = _typical.setdefault(trace, {})
    if (m, k) not in per_trace:
        per_trace[(m, k)] = _typical_leaf(trace, m, k)
    return per_trace[(m, k)]


def _typical_leaf(trace, m, k):
    where = summaries.point_leaves(trace, m, k).astype(np.int64)
    if trace.in_bag is not None:
        where = where[trace.in_bag[m]]
    nodes = summaries.leaves_of(trace, m, k)
    sizes = np.bincount(where, minlength=len(trace.tree(m, k)))[nodes]
    by_size = [int(nodes[i]) for i in np.lexsort((nodes, -sizes))]  # largest first
    if not trace.is_classifier:
        return by_size[0], True
    for node in by_size:
        # a pure leaf is passed over before its story: Newton's method on it runs to its
        # last step (iris at 100 rounds: two thirds of the Leaf maths chart's binding)
        if _side(trace, trace.y[members(trace, m, node, k)], k):
            continue
        if leaf_story(trace, m, node, n_points=3, k=k)["stop_rule"] == CONVERGED:
            return node, True
    return by_size[0], False
