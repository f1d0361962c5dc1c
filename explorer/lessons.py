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
    story: str = ""  # one line: what the lesson shows (the Lessons page lists it)

    @property
    def link(self) -> str:
        """The lesson's address relative to the app's root: its page's path and
        ``?lesson=key`` (the key alone means all its settings)."""
        return f"{PAGE_PATHS.get(self.page, '/' + self.page)}?lesson={self.key}"

    def url(self, base: str) -> str:
        """The lesson's full address on the app served at ``base`` (its root)."""
        return base.rstrip("/") + self.link


# the pages' paths in the app (app.py's url_path; the Model page is the root)
PAGE_PATHS = {"model": "/", "tree": "/tree", "sample": "/sample", "curves": "/curves",
              "compare": "/compare", "sweep": "/sweep", "splits": "/splits",
              "leaf_maths": "/leaf_maths", "slides": "/slides"}


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


# --- the first lecture: one step of boosting at a time -----------------------------------
# Each caption is about the round its lesson opens at (the lesson's settings say which),
# with the numbers of the fit on screen at that round.

def _cell(trace, m: int, node: int) -> np.ndarray:
    """The training points (in the bag of round m) in leaf ``node`` of tree m."""
    inside = trace.leaf[m] == node
    return inside if trace.in_bag is None else inside & trace.in_bag[m]


def _residuals(trace, m: int = 1) -> str:
    r0, r = np.abs(trace.residual(0)), trace.residual(m)
    tree = trace.tree(m + 1)
    j, t = int(tree["feature"][0]), float(tree["threshold"][0])
    worst = int(np.argmax(np.abs(r)))
    return (f"After round {m} each training point's residual y − p (the right map) is what "
            f"tree {m + 1} fits: they run from {r.min():.3f} to {r.max():.3f}, largest for "
            f"point #{worst} ({r[worst]:+.3f}), and their mean |y − p| fell from "
            f"{r0.mean():.3f} at round 0 to {np.abs(r).mean():.3f}. Tree {m + 1}'s first split, "
            f"x{j + 1} ≤ {t:.3f}, is where splitting these residuals lowers their squared "
            "error most (the Tree page at the next round).")


def _newton(trace, m: int = 1) -> str:
    tree = trace.tree(m)
    leaves = np.flatnonzero(tree["left"] < 0)
    counts = [int(_cell(trace, m, j).sum()) for j in leaves]
    leaf = int(leaves[int(np.argmax(counts))])
    inside = _cell(trace, m, leaf)
    sum_r = float(trace.residual(m - 1)[inside].sum())
    sum_h = float(trace.hessian(m - 1)[inside].sum())
    gamma = float(tree["value"][leaf])
    nu = trace.learning_rate
    return (f"Tree {m} cuts the plane into {len(leaves)} regions (boxes). In its largest, "
            f"leaf {leaf} with {inside.sum()} training points, the residuals y − p sum to "
            f"Σr = {sum_r:.4f} and the hessians p(1 − p) to Σh = {sum_h:.4f}, so one Newton "
            f"step gives γ = Σr / Σh = {sum_r:.4f} / {sum_h:.4f} = {gamma:.4f}, and every "
            f"point in the box moves by ν·γ = {nu:g} × {gamma:.4f} = {nu * gamma:.4f}. "
            "Work it by hand, then pick that leaf on the right.")


def _update(trace, m: int = 3, i: int = 0) -> str:
    node = int(trace.leaf[m][i])
    gamma = float(trace.tree(m)["value"][node])
    nu = trace.learning_rate
    before, after = float(trace.raw[m - 1][i]), float(trace.raw[m][i])
    return (f"Sample #{i} at round {m}: F{_SUB[m - 1]} = {before:.4f}; tree {m} puts it in "
            f"leaf {node}, whose value is γ = {gamma:.4f}; so F{_SUB[m]} = F{_SUB[m - 1]} + ν·γ "
            f"= {before:.4f} + {nu:g} × {gamma:.4f} = {after:.4f}, and p = σ(F{_SUB[m]}) = "
            f"{1 / (1 + np.exp(-after)):.4f} (y = {int(trace.y[i])}). Every round adds one "
            "such step: the Sample page's ledger lists them all.")


_SUB = {m: "".join("₀₁₂₃₄₅₆₇₈₉"[int(c)] for c in str(m)) for m in range(1000)}


def _boundary(trace) -> str:
    M = trace.n_rounds
    acc = trace.train_accuracy
    shown = [m for m in (1, 5, 20, M) if m <= M]
    return ("The black line is the boundary p = 0.5. Training accuracy: " + ", ".join(
        f"{acc[m]:.0%} after round {m}" for m in shown) + ": each tree moves the boundary a "
        f"little (ν = {trace.learning_rate:g}). Press Play, or step through the rounds.")


def _multiclass(trace, m: int = 1) -> str:
    K = trace.n_classes
    leaves = [int((trace.tree(m, k)["left"] < 0).sum()) for k in range(K)]
    shares = [float(np.mean(trace.y == k)) for k in range(K)]
    f0 = np.atleast_1d(trace.f0)
    return (f"With K = {K} classes every round grows {K} trees, tree (m, k) fitted to class "
            f"k's residuals yₖ − pₖ under the softmax. Round {m}'s trees have "
            + ", ".join(f"{n} leaves (k = {k})" for k, n in enumerate(leaves))
            + ". Before them, f₀,ₖ is the log of class k's share less the mean of those logs "
            "(the softmax ignores a common shift): shares ("
            + ", ".join(f"{v:.2f}" for v in shares) + "), f₀ = ("
            + ", ".join(f"{v:.3f}" for v in f0) + "). Pick the class beside the chart to "
            "see each class's tree.")


def _histogram(trace, m: int = 1) -> str:
    tree = trace.tree(m)
    j, t = int(tree["feature"][0]), float(tree["threshold"][0])
    edges = trace.bin_thresholds
    distinct = len(np.unique(trace.X[:, j]))
    b = int(np.searchsorted(edges[j], t))
    return (f"Histogram trees (max bins {trace.params['max_bins']}) first sort each input "
            f"into bins: x1 has {len(edges[0])} bin edges, x2 {len(edges[1])}. Split finding "
            "then adds the gradients and hessians bin by bin, left to right, and scores only "
            f"the edges: the root of tree {m} splits x{j + 1} at edge {b}, x{j + 1} ≤ {t:.4f}, "
            f"where an exact tree could cut x{j + 1} between any two of its {distinct} values.")


def _at(caption, **fixed):
    """A caption about the lesson's own round (and sample), whatever round is on screen."""
    return lambda trace: caption(trace, **fixed)


LESSONS = {lesson.key: lesson for lesson in (
    Lesson("imbalance", "Imbalanced classes: f₀ is not 0", "model",
           dict(data="gaussians", balance=0.2, rounds=30), _imbalance,
           story="With 20% of one class, round 0 already predicts that share: f₀ = log(N₊/N₋)."),
    Lesson("outlier", "One mislabelled point: exponential loss against log-loss", "compare",
           dict(data="linear", n=125, noise=0.05, pair="outlier", depth=1, lr=0.5, rounds=50,
                round=20),
           _outlier,
           story="One flipped label: the exponential loss chases it; log-loss caps its pull."),
    Lesson("slow", "A small learning rate needs more rounds, and reaches a lower minimum",
           "sweep",
           # ESL's figure 10.11: stumps and 6 leaves (no depth limit), ν 1 against 0.1
           dict(data="moons", n=1000, noise=0.3, sweep="lr:1,0.1", sweep2="leaves:2,6",
                depth=0, rounds=400, valid=0.2),
           _slow,
           story="ν = 1 against ν = 0.1, for stumps and 6-leaf trees (ESL figure 10.11)."),
    Lesson("subsample", "Subsampling regularises", "sweep",
           # after scikit-learn's example "Gradient Boosting regularization"
           dict(data="moons", n=1000, noise=0.4, sweep="subsample:1,0.5", lr=0.2,
                rounds=300),
           _subsample,
           story="Each tree fits a random half of the points: the validation loss of both."),
    Lesson("overfit", "Deep trees overfit: the validation loss turns up", "curves",
           # it opens at the round of the lowest validation loss (tests/test_lessons.py)
           dict(data="moons", n=300, noise=0.4, depth=6, lr=0.5, rounds=150, valid=0.3,
                round=4),
           _overfit,
           story="Depth-6 trees: validation loss turns up as the training loss keeps falling."),
    Lesson("xor", "XOR needs depth 2", "compare",
           # it opens at the last round, whose accuracies its caption states
           dict(data="xor", noise=0.1, pair="depth", rounds=50, round=50), _xor,
           story="Stumps add a function of x1 to one of x2; XOR needs both inputs at once."),
    Lesson("ties", "Tied values: rounded data", "splits",
           dict(data="tied", n=300, noise=0.2, rounds=20, round=1), _ties,
           story="Rounded inputs: thresholds fall between few distinct values, ties decide sums."),
    Lesson("bins", "Max bins: 4 bins against 255", "tree",
           dict(data="moons", split="histogram", bins=4, rounds=20, round=1), _bins,
           story="Histogram trees with 4 bins: every split snaps to a coarse lattice."),
    # the first lecture, in its order
    Lesson("residuals", "The residuals: what the next tree fits", "model",
           dict(data="moons", rounds=30, round=1), _at(_residuals, m=1),
           story="Round 1's residuals y − p on the plane: the target of tree 2."),
    Lesson("newton", "One tree's regions, and its Newton leaf by hand", "tree",
           dict(data="moons", depth=2, rounds=30, round=1), _at(_newton, m=1),
           story="Tree 1's boxes, and its largest leaf's value Σr / Σh worked by hand."),
    # on the Tree page, which follows the sample's leaf and draws the update row
    Lesson("update", "F_m = F_(m−1) + ν·γ for one sample", "tree",
           dict(data="moons", rounds=30, round=3, sample=0), _at(_update, m=3, i=0),
           story="Sample #0's score at round 3: F₃ = F₂ + ν·γ, γ the value of its leaf."),
    Lesson("boundary", "The boundary over rounds", "model",
           dict(data="moons", noise=0.25, rounds=100, round=1), _boundary,
           story="The boundary p = 0.5 from round 1 to 100, and the accuracy it reaches."),
    Lesson("multiclass", "Three classes: one tree per class each round", "tree",
           dict(data="iris", rounds=30, round=1), _at(_multiclass, m=1),
           story="Iris's three classes: three trees a round, one per class, under the softmax."),
    Lesson("histogram", "Histogram split finding: only the bin edges are candidates",
           "splits", dict(data="moons", split="histogram", bins=16, rounds=20, round=1),
           _at(_histogram, m=1),
           story="Split finding over 16 bins: only the bins' edges are candidate thresholds."),
)}

