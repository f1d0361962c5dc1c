"""The split scan: how good every threshold of every feature would have been at a node.

At a node of tree m, with residuals r and hessians h of its samples at F_(m-1):

    squared error (scikit-learn):  reduction of sum (r - mean)^2
        = S_L^2 / n_L + S_R^2 / n_R - S^2 / n                     (S = sum r)
    second order (XGBoost-style):  1/2 [G_L^2/(H_L + lambda) + G_R^2/(H_R + lambda)
                                        - G^2/(H + lambda)] - gamma     (G = -S, H = sum h)

Candidates lie between consecutive distinct values (float32, as the trees compare
them); the threshold is their midpoint. The app plots both gains against the
threshold and marks the split the tree chose.

Histogram trees (split="histogram") split only at their bin boundaries, x <= t for t
one of the feature's bin thresholds, compared in float64; their gain has no 1/2 and no
gamma (scikit-learn's HistGradientBoosting, MATH.md section 6b):

    histogram gain:  G_L^2/(H_L + lambda) + G_R^2/(H_R + lambda) - G^2/(H + lambda)

For them the scan's candidates are those boundaries, its "hessian" entry is this gain,
and a boundary is allowed as the grower allows it (min_samples_leaf on each side, each
side's H at least 1e-3).
"""

import numpy as np

from .leaves import members


def scan(trace, m, node, reg_lambda=None, gamma=None, min_samples_leaf=None, k=0):
    """Gains of every candidate split at ``node`` of tree m (of class k, whose residuals
    y_k - p_k it fits, with K >= 3 classes), per feature.

    Returns a list with one dict per feature: thresholds, squared_error (reduction of
    the sum of squares), hessian (second-order gain), best (per rule, "squared_error"
    and "hessian", the index of its largest gain, None without candidates), and, for
    the node's own feature, chosen (its threshold; else None). reg_lambda and gamma
    default to the fit's (1 and 0 when the fit used squared-error splits);
    min_samples_leaf to the fit's.
    """
    params = trace.params
    lam = params.get("reg_lambda", 1.0) if reg_lambda is None else reg_lambda
    gam = params.get("gamma", 0.0) if gamma is None else gamma
    msl = params["min_samples_leaf"] if min_samples_leaf is None else min_samples_leaf
    inside = members(trace, m, node, k)
    r, h = trace.residual(m - 1)[inside], trace.hessian(m - 1)[inside]
    if trace.is_multiclass:
        r, h = r[:, k], h[:, k]
    if getattr(trace, "histogram", False):
        return _bin_scan(trace, m, node, k, inside, r, h, lam, msl)
    X32 = trace.X[inside].astype(np.float32)
    tree = trace.tree(m, k)
    S, H, n = r.sum(), h.sum(), len(r)
    result = []
    for f in range(X32.shape[1]):
        order = np.argsort(X32[:, f], kind="stable")
        x = X32[order, f]
        S_left, H_left = np.cumsum(r[order])[:-1], np.cumsum(h[order])[:-1]
        n_left = np.arange(1, n)
        # a cut after position p needs x[p+1] > x[p] + 1e-7 (in float32) and leaves big enough
        ok = (x[1:] > x[:-1] + np.float32(1e-7)) & (n_left >= msl) & (n - n_left >= msl)
        S_left, H_left, n_left = S_left[ok], H_left[ok], n_left[ok]
        S_right, H_right = S - S_left, H - H_left
        thresholds = x[:-1][ok].astype(np.float64) / 2 + x[1:][ok].astype(np.float64) / 2
        squared = S_left**2 / n_left + S_right**2 / (n - n_left) - S**2 / n
        hessian = 0.5 * (S_left**2 / (H_left + lam) + S_right**2 / (H_right + lam)
                         - S**2 / (H + lam)) - gam
        chosen = float(tree["threshold"][node]) if tree["feature"][node] == f else None
        best = {rule: int(np.argmax(gain)) if len(gain) else None
                for rule, gain in (("squared_error", squared), ("hessian", hessian))}
        result.append(dict(feature=f, thresholds=thresholds, squared_error=squared,
                           hessian=hessian, best=best, chosen=chosen))
    return result


def _bin_scan(trace, m, node, k, inside, r, h, lam, msl):
    """:func:`scan` of a histogram tree's node: the candidates are the bin boundaries."""
    X = trace.X[inside].astype(np.float64)
    tree = trace.tree(m, k)
    S, H, n = r.sum(), h.sum(), len(r)
    result = []
    for f, edges in enumerate(trace.bin_thresholds):
        edges = np.asarray(edges, dtype=np.float64)
        # bin i holds edges[i-1] < x <= edges[i]; the boundary after bin b is x <= edges[b]
        bins = np.searchsorted(edges, X[:, f], side="left")
        width = len(edges) + 1
        S_left = np.cumsum(np.bincount(bins, weights=r, minlength=width))[:-1]
        H_left = np.cumsum(np.bincount(bins, weights=h, minlength=width))[:-1]
        n_left = np.cumsum(np.bincount(bins, minlength=width))[:-1]
        S_right, H_right = S - S_left, H - H_left
        ok = ((n_left >= msl) & (n - n_left >= msl) & (H_left >= _MIN_HESSIAN)
              & (H_right >= _MIN_HESSIAN))
        S_left, H_left, n_left = S_left[ok], H_left[ok], n_left[ok]
        S_right, H_right = S_right[ok], H_right[ok]
        squared = S_left**2 / n_left + S_right**2 / (n - n_left) - S**2 / n
        gain = S_left**2 / (H_left + lam) + S_right**2 / (H_right + lam) - S**2 / (H + lam)
        chosen = float(tree["threshold"][node]) if tree["feature"][node] == f else None
        best = {rule: int(np.argmax(g)) if len(g) else None
                for rule, g in (("squared_error", squared), ("hessian", gain))}
        result.append(dict(feature=f, thresholds=edges[ok], squared_error=squared,
                           hessian=gain, best=best, chosen=chosen))
    return result


_MIN_HESSIAN = 1e-3  # scikit-learn's min_hessian_to_split (explorer.histogram.MIN_HESSIAN)
HISTOGRAM_GAIN = "histogram gain"  # the name of a histogram tree's gain on every page
RULES = (("squared_error", "squared error"), ("hessian", "second order"))  # (field, label)
HISTOGRAM_RULES = (("squared_error", "squared error"), ("hessian", HISTOGRAM_GAIN))


def rules(trace) -> tuple:
    """The (field, label) pairs of :func:`scan`'s two gains for this fit."""
    return HISTOGRAM_RULES if getattr(trace, "histogram", False) else RULES


def best_rows(scans, feature_names, rules=RULES) -> list[dict]:
    """The best threshold of every feature under each rule, as rows of a table.

    One row per feature and rule (in :data:`RULES` order), with keys "feature" (its
    name), "rule" (its label), "best threshold" and "best gain" (None when the feature
    has no candidate split at this node), "chosen by the tree" (the node's threshold on
    this feature, None when the node splits another feature or is a leaf).
    """
    rows = []
    for sc in scans:
        name = feature_names[sc["feature"]]
        for field, label in rules:
            best = sc["best"][field]
            rows.append({"feature": name, "rule": label,
                         "best threshold": None if best is None else float(sc["thresholds"][best]),
                         "best gain": None if best is None else float(sc[field][best]),
                         "chosen by the tree": sc["chosen"]})
    return rows


def improvement_name(trace) -> str:
    """What a node's "improvement" (the Tree page's) is, with its relation to the Splits
    page's gain of the same split."""
    if trace.params.get("split") == "histogram":
        return (f"improvement = scikit-learn's {HISTOGRAM_GAIN} G_L²/(H_L + λ) + "
                "G_R²/(H_R + λ) − G²/(H + λ) (no ½, no γ), the Splits page's "
                f"{HISTOGRAM_GAIN}; at the root scikit-learn takes the parent's term "
                "G²/(H + λ) as 0, so the root's improvement is larger by that much")
    if trace.params.get("split") == "hessian":
        return ("improvement = xgboost's loss change G_L²/(H_L + λ) + G_R²/(H_R + λ) − "
                "G²/(H + λ) = 2·(gain + γ): twice the Splits page's gain once γ is added "
                "back, since that gain is half the loss change less γ")
    return ("improvement = scikit-learn's weighted impurity decrease: the Splits page's "
            "squared-error reduction divided by N, the tree's training points")


def as_gain(trace, m: int, node: int, k: int = 0) -> float:
    """A node's improvement (as the tree recorded it) as the Splits page's gain of the
    same split: ΔSSE = improvement × N (N the root's n) for squared-error trees,
    ½ improvement − γ for second-order trees; for histogram trees the improvement
    itself, less G²/(H + λ) at the root (whose parent term scikit-learn takes as 0)."""
    tree = trace.tree(m, k)
    improvement = float(tree["improvement"][node])
    if trace.params.get("split") == "histogram":
        if node != 0:
            return improvement
        G, H = -float(tree["sum_r"][0]), float(tree["sum_h"][0])
        lam = float(trace.params.get("reg_lambda", 0.0))
        return improvement - (G * G / (H + lam) if H + lam > 0 else 0.0)
    if trace.params.get("split") == "hessian":
        return 0.5 * improvement - float(trace.params.get("gamma", 0.0))
    return improvement * float(tree["n"][0])
