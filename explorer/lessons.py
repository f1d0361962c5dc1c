"""Ready-made lessons: each sets data and settings to show one classic fact, on one page,
with a one-line caption whose numbers come from the fit on screen.

A lesson is just a link: its settings are State fields (``lesson=<key>`` plus what it
sets), so it can go on a slide. The captions are plain functions of the traces the page
fitted (two for the Compare page's pairs), with no Streamlit in them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .best_round import best_round
from .data import deepest_row


@dataclass(frozen=True)
class Lesson:
    key: str
    title: str
    page: str  # url_path of the page that shows it
    settings: dict  # State fields (URL keys) it sets, over the defaults
    # (trace), or on the Compare page (trace_a, trace_b, state, training data of both)
    caption: Callable[..., str]


def _imbalance(trace) -> str:
    n = len(trace.y)
    n_pos = int(np.count_nonzero(trace.y == 1))
    return (f"{n_pos} of the {n} training points are class 1, so f₀ = log(N₊/N₋) = "
            f"log({n_pos}/{n - n_pos}) = {trace.f0:.4f}, not 0: before any tree the model "
            f"already says p₀ = {n_pos / n:.2f}, the share of class 1.")


def _outlier(log_loss, exponential, state, train) -> str:
    i = deepest_row(train)
    m = state.round
    r_log = np.abs(log_loss.residual(m))
    weight = np.abs(exponential.residual(m))  # |ỹ e^(−ỹF)| = e^(−ỹF)
    return (f"The label of training point #{i}, deep inside its class, is flipped. At round "
            f"{m} the exponential loss weighs it by e^(−ỹF) = {weight[i]:.3g}, "
            f"{weight[i] / weight.sum():.0%} of all the weight, where log-loss gives it "
            f"|y − p| = {r_log[i]:.3f} (never more than 1), {r_log[i] / r_log.sum():.0%}: "
            "the exponential loss's trees chase the outlier. Step through the rounds.")


def _lowest(trace, label: str) -> str:
    found = best_round(trace)
    return f"{label} at round {found.round} ({found.valid:.4f})"


def _slow(*fits_state_train) -> str:
    """ESL's figure 10.11 as a sweep: ν 1 against 0.1 (across), for stumps and for trees
    of 6 leaves (down); each pair's lowest validation deviance and its round."""
    *traces, state, train = fits_state_train
    if any(t.valid_loss is None for t in traces):
        return "Give the fit a validation share to see where each validation loss is lowest."
    parts, lower, later = [], 0, 0
    for fast, slow in zip(traces[0::2], traces[1::2]):
        leaves = fast.params["max_leaves"]
        parts.append(f"{leaves} leaves: " + ", ".join(
            _lowest(t, f"ν = {t.learning_rate:g}") for t in (fast, slow)))
        lower += best_round(slow).valid < best_round(fast).valid
        later += best_round(slow).round > best_round(fast).round
    pairs = len(parts)
    both = {pairs: "in both pairs" if pairs == 2 else "in every pair", 0: "in no pair"}
    return ("Validation deviance is lowest for " + "; for ".join(parts) + ". The small step "
            f"needs more rounds {both.get(later, f'in {later} of {pairs} pairs')} and reaches "
            f"the lower minimum {both.get(lower, f'in {lower} of {pairs} pairs')} (The "
            "Elements of Statistical Learning, figure 10.11).")


def _subsample(*fits_state_train) -> str:
    """scikit-learn's regularization example: each subsample's lowest validation loss, and
    which of them beat the full sample's."""
    *traces, state, train = fits_state_train
    if any(t.valid_loss is None for t in traces):
        return "Give the fit a validation share to see where each validation loss is lowest."
    share = {id(t): t.params["subsample"] for t in traces}
    text = "Lowest validation loss: " + "; ".join(
        _lowest(t, f"subsample {share[id(t)]:g}") for t in traces) + "."
    full = [t for t in traces if share[id(t)] == 1.0]
    if not full:
        return text
    beat = [f"{share[id(t)]:g}" for t in traces
            if t is not full[0] and best_round(t).valid < best_round(full[0]).valid]
    verdict = (f"a subsample ({', '.join(beat)}) reaches a lower minimum than the full "
               "sample here" if beat else "no subsample beats the full sample here")
    return (f"{text} Each tree fits a random part of the points (stochastic gradient "
            f"boosting): {verdict}; the noise in each tree's view of the data acts as a "
            "regulariser.")


def _overfit(trace) -> str:
    found = best_round(trace)
    if found is None:
        return "Give the fit a validation share to see the validation loss turn up."
    M = trace.n_rounds
    return (f"The validation loss is lowest at round {found.round} ({found.valid:.4f}), where "
            f"the lesson opens (★ on the chart), and rises to {found.last:.4f} by round {M}, "
            "while "
            f"the training loss keeps falling, to {trace.train_loss[M]:.2g} (the log scale "
            f"shows it): deep trees (depth {trace.params['max_depth']}) learn the noise.")


def _splits_used(trace) -> int:
    """How many distinct (input, threshold) splits the fit's trees use, over all rounds."""
    used = set()
    for m in range(1, trace.n_rounds + 1):
        tree = trace.tree(m)
        inner = tree["left"] >= 0
        used.update(zip(tree["feature"][inner].tolist(), tree["threshold"][inner].tolist()))
    return len(used)


def _bins(trace) -> str:
    cuts = [len(t) for t in trace.bin_thresholds]
    bins = trace.params["max_bins"]
    distinct = [len(np.unique(trace.X[:, j])) for j in range(trace.X.shape[1])]
    return (f"With max bins {bins}, x1 is cut at {cuts[0]} thresholds and x2 at {cuts[1]}: "
            f"every split of every tree falls on one of them, so each tree's boxes snap to "
            f"the faint lattice, and all {trace.n_rounds} trees together use only "
            f"{_splits_used(trace)} distinct splits. Set Max bins to 255 (the default, as "
            f"HistGradientBoosting's max_bins and LightGBM's max_bin) and x1 may be cut "
            f"between any two of its {distinct[0]} values, up to 254 places: the boxes "
            "follow the points again.")


def _xor(stumps, deeper, state, train) -> str:
    M = stumps.n_rounds
    return (f"After {M} rounds, trees of depth {stumps.params['max_depth']} reach a training "
            f"accuracy of {stumps.train_accuracy[M]:.0%} and trees of depth "
            f"{deeper.params['max_depth']} {deeper.train_accuracy[M]:.0%}: a sum of stumps is "
            "a function of x1 plus a function of x2, and XOR needs both at once (depth 2).")


def _ties(trace) -> str:
    X = trace.X
    k1, k2 = (len(np.unique(X[:, j].astype(np.float32))) for j in (0, 1))
    return (f"x1 takes only {k1} distinct values and x2 {k2} among {len(X)} training points: "
            "every threshold falls midway between two of them, and the order in which "
            "scikit-learn adds tied residuals decides the last bits of each sum (the "
            "explorer follows it).")


LESSONS = {lesson.key: lesson for lesson in (
    Lesson("imbalance", "Imbalanced classes: f₀ is not 0", "model",
           dict(data="gaussians", balance=0.2, rounds=30), _imbalance),
    Lesson("outlier", "One mislabelled point: exponential loss against log-loss", "compare",
           dict(data="linear", n=125, noise=0.05, pair="outlier", depth=1, lr=0.5, rounds=50,
                round=20),
           _outlier),
    Lesson("slow", "A small learning rate needs more rounds, and reaches a lower minimum",
           "sweep",
           # ESL's figure 10.11: stumps and 6 leaves (no depth limit), ν 1 against 0.1
           dict(data="moons", n=1000, noise=0.3, sweep="lr:1,0.1", sweep2="leaves:2,6",
                depth=0, rounds=400, valid=0.2),
           _slow),
    Lesson("subsample", "Subsampling regularises", "sweep",
           # after scikit-learn's example "Gradient Boosting regularization"
           dict(data="moons", n=1000, noise=0.4, sweep="subsample:1,0.5", lr=0.2,
                rounds=300),
           _subsample),
    Lesson("overfit", "Deep trees overfit: the validation loss turns up", "curves",
           # it opens at the round of the lowest validation loss (tests/test_lessons.py)
           dict(data="moons", n=300, noise=0.4, depth=6, lr=0.5, rounds=150, valid=0.3,
                round=4),
           _overfit),
    Lesson("xor", "XOR needs depth 2", "compare",
           # it opens at the last round, whose accuracies its caption states
           dict(data="xor", noise=0.1, pair="depth", rounds=50, round=50), _xor),
    Lesson("ties", "Tied values: rounded data", "splits",
           dict(data="tied", n=300, noise=0.2, rounds=20, round=1), _ties),
    Lesson("bins", "Max bins: 4 bins against 255", "tree",
           dict(data="moons", split="histogram", bins=4, rounds=20, round=1), _bins),
)}

