"""The numbers of the lessons on histogram trees, computed again from the Trace.

A fit keeps no histograms (one per node, feature and bin would outweigh the record);
these functions give a node's histograms exactly as the engine had them when it split
the node, and the scan along its bins (MATH.md section 6b):

    G_b, H_b, n_b    sums of g and h, and the count, of the node's samples in bin b
                     (a regression's h is 1: H_b counts)
    G_L, H_L, n_L    running sums over bins 0..b; G_R = G - G_L, H_R = H - H_L
    gain_b           G_L^2/(H_L + lambda) + G_R^2/(H_R + lambda) - G^2/(H + lambda),
                     computed as scikit-learn computes it; NaN where a constraint
                     (min_samples_leaf, H >= 1e-3) rules the boundary out

"Exactly as the engine had them": a histogram built from its samples is summed in
sample order (np.bincount adds in input order); a subtracted one is its parent's minus
its sibling's, as the engine subtracted it. So the scan's best gain is the node's
recorded gain, bit for bit, and its boundary the recorded split.

The views of the Splits page read four more, one a lesson each:

    split_finding    a node's histograms per feature, the running sums and the gain
                     at each bin boundary, with the best and the chosen boundary
    subtraction      per split: the child built from its samples (the smaller one; the
                     right one on equal counts) and the one computed as parent - sibling
    leaf_values      per leaf: G, H, lambda, -G/(H + lambda) and nu times it
    growth           the splits in best-first order, up to max_leaves leaves

Plain numpy; for fits with split="histogram".
"""

import numpy as np

from ..binning import bin_columns
from ..histogram import MIN_HESSIAN
from ..histogram_tree import BUILT, SUBTRACTED
from ..text import number


def node_histograms(trace, m, node, k=0):
    """G, H, n of ``node`` of tree m (class k): arrays (features, max_bins + 1).

    Raises ValueError if the node had no histogram (a node made a leaf without one: at
    the depth or leaf limit, or too small to split).
    """
    _check(trace)
    extra = trace.tree_histograms(m, k)
    if extra[node]["histogram"] not in (BUILT, SUBTRACTED):
        raise ValueError(f"node {node} of tree {m} had no histogram: it became a leaf "
                         "without being searched for a split.")
    tree = trace.tree(m, k)
    parent = _parents(tree)
    binned = bin_columns(trace.X, trace.bin_thresholds)
    g, h = _gradients(trace, m, k)
    width = trace.params["max_bins"] + 1

    def histograms(u):
        if extra[u]["histogram"] == BUILT:
            mine = np.flatnonzero(_passes(trace, m, k, tree, u))  # ascending: sample order
            G = np.array([np.bincount(row[mine], weights=g[mine], minlength=width)
                          for row in binned])
            H = np.array([np.bincount(row[mine], weights=h[mine], minlength=width)
                          for row in binned])
            n = np.array([np.bincount(row[mine], minlength=width) for row in binned])
            return G, H, n
        p = parent[u]
        sibling = tree[p]["left"] + tree[p]["right"] - u
        Gp, Hp, n_p = histograms(p)
        Gs, Hs, n_s = histograms(sibling)
        return Gp - Gs, Hp - Hs, n_p - n_s

    G, H, n = histograms(node)
    if not trace.is_classifier:  # constant hessian: scikit-learn counts instead of summing
        H = n.astype(np.float64)
    return G, H, n


def scan(trace, m, node, k=0):
    """The left-to-right scan of ``node`` of tree m (class k) over every feature's bins.

    Returns a dict of arrays (features, max_bins + 1), entry [f, b] for the boundary after
    bin b: G_L, H_L, n_L, G_R, H_R, gain (NaN where the boundary is ruled out or past the
    feature's last bin); and G, H, the node's sums, as the engine had them.
    """
    G_b, H_b, n_b = node_histograms(trace, m, node, k)
    node_rec = trace.tree(m, k)[node]
    total_g, total_h, n = -node_rec["sum_r"], node_rec["sum_h"], node_rec["n"]
    lam = trace.params["reg_lambda"]
    msl = trace.params["min_samples_leaf"]
    value = 0.0 if node == 0 else node_rec["value"]  # the root's own value is taken as 0
    # np.cumsum adds left to right, as the engine's running sums
    G_L, H_L, n_L = np.cumsum(G_b, axis=1), np.cumsum(H_b, axis=1), np.cumsum(n_b, axis=1)
    G_R, H_R = total_g - G_L, total_h - H_L
    v_L = -G_L / (H_L + lam + 1e-15)
    v_R = -G_R / (H_R + lam + 1e-15)
    gain = total_g * value - G_L * v_L - G_R * v_R
    used = np.array([len(t) for t in trace.bin_thresholds])  # boundaries per feature
    allowed = ((np.arange(G_b.shape[1])[None, :] < used[:, None]) & (n_L >= msl)
               & (n - n_L >= msl) & (H_L >= MIN_HESSIAN) & (H_R >= MIN_HESSIAN))
    return dict(G_L=G_L, H_L=H_L, n_L=n_L, G_R=G_R, H_R=H_R,
                gain=np.where(allowed, gain, np.nan), G=total_g, H=total_h,
                G_b=G_b, H_b=H_b, n_b=n_b, allowed=allowed, n=int(n))


def split_finding(trace, m, node, k=0):
    """What the view "split finding at a node" draws, at ``node`` of tree m (class k).

    Returns None when the node had no histogram (a leaf made without a search). Else a
    dict with node, m, k, lam, G, H, n (the node's sums and count), parent_term
    (G^2/(H + lambda)), root (the root's parent term is taken as 0 in the recorded
    gain), features (one dict per feature: feature, edges (its bin thresholds: the
    boundary after bin b is x <= edges[b]), G_b, H_b, n_b (per bin), and per boundary
    G_L, H_L, n_L, gain (G_L^2/(H_L + lambda) + G_R^2/(H_R + lambda) - G^2/(H + lambda),
    0 where not allowed), allowed, best (index of the largest allowed gain, or None)),
    best ((feature, bin) of the engine's arithmetic's largest gain, or None), chosen
    ((feature, bin) of the tree's split, None at a leaf), improvement (the recorded gain,
    0 at a leaf) and chosen_gain (the formula's gain at the chosen boundary, or None).
    """
    _check(trace)
    extra = trace.tree_histograms(m, k)
    if extra[node]["histogram"] not in (BUILT, SUBTRACTED):
        return None
    s = scan(trace, m, node, k)
    lam = float(trace.params["reg_lambda"])
    G, H = float(s["G"]), float(s["H"])
    parent_term = G * G / (H + lam) if H + lam > 0 else 0.0
    formula = np.zeros_like(s["G_L"])
    ok = s["allowed"]
    formula[ok] = (s["G_L"][ok] ** 2 / (s["H_L"][ok] + lam)
                   + s["G_R"][ok] ** 2 / (s["H_R"][ok] + lam) - parent_term)
    features = []
    for f, edges in enumerate(trace.bin_thresholds):
        nb, nc = len(edges) + 1, len(edges)  # bins, boundaries
        allowed = ok[f, :nc]
        best = int(np.nanargmax(s["gain"][f, :nc])) if allowed.any() else None
        features.append(dict(feature=f, edges=np.asarray(edges, dtype=np.float64),
                             G_b=s["G_b"][f, :nb], H_b=s["H_b"][f, :nb], n_b=s["n_b"][f, :nb],
                             G_L=s["G_L"][f, :nc], H_L=s["H_L"][f, :nc], n_L=s["n_L"][f, :nc],
                             gain=formula[f, :nc], allowed=allowed, best=best))
    best = None
    if ok.any():  # the first of equal gains: the lowest feature, then the lowest bin
        best = tuple(int(i) for i in np.unravel_index(np.nanargmax(s["gain"]), ok.shape))
    rec = trace.tree(m, k)[node]
    chosen = None if rec["left"] < 0 else (int(rec["feature"]), int(extra[node]["bin"]))
    return dict(node=int(node), m=int(m), k=int(k), lam=lam, G=G, H=H, n=s["n"],
                parent_term=parent_term, root=node == 0, features=features, best=best,
                chosen=chosen, improvement=float(rec["improvement"]),
                chosen_gain=None if chosen is None else float(formula[chosen]))


def subtraction(trace, m, k=0):
    """Per split of tree m (class k), in the order the splits were made: how its two
    children got their histograms.

    A list of dicts: parent, order (0 for the first split), left, right, n_left, n_right,
    built (the child summed from its own samples: the one with fewer, the right one on
    equal counts, as scikit-learn's grower picks), subtracted (the other: parent minus
    built, bin by bin); both None when neither child was searched for a split (the leaf
    limit or the depth limit was reached, or both children were too small).
    """
    _check(trace)
    tree, extra = trace.tree(m, k), trace.tree_histograms(m, k)
    rows = []
    for p in np.argsort(np.where(extra["split_order"] >= 0, extra["split_order"], 1 << 30)):
        if extra[p]["split_order"] < 0:
            break
        a, b = int(tree[p]["left"]), int(tree[p]["right"])
        kinds = {extra[a]["histogram"]: a, extra[b]["histogram"]: b}
        rows.append(dict(parent=int(p), order=int(extra[p]["split_order"]), left=a, right=b,
                         n_left=int(tree[a]["n"]), n_right=int(tree[b]["n"]),
                         built=kinds.get(BUILT), subtracted=kinds.get(SUBTRACTED)))
    return rows


def leaf_values(trace, m, k=0):
    """The leaves of tree m (class k), in node order, with their value's numbers.

    A list of dicts: node, n, G (= -sum r), H (sum h; a regression's counts), lam,
    value (-G/(H + lambda), the engine's, with scikit-learn's 1e-15 in the denominator),
    nu, step (nu * value: what the leaf adds to F).
    """
    _check(trace)
    tree = trace.tree(m, k)
    lam, nu = float(trace.params["reg_lambda"]), float(trace.learning_rate)
    rows = []
    for u in np.flatnonzero(tree["left"] < 0):
        G, H = -float(tree[u]["sum_r"]), float(tree[u]["sum_h"])
        value = -G / (H + lam + 1e-15)
        rows.append(dict(node=int(u), n=int(tree[u]["n"]), G=G, H=H, lam=lam, value=value,
                         nu=nu, step=nu * value))
    return rows


def growth(trace, m, k=0):
    """Tree m (class k) as best-first growth made it: the splits in their order.

    A dict with splits (one dict per split in order: order (1 for the first), node,
    depth, feature, threshold, bin, gain (the recorded one), n, leaves (the number of
    leaves once it was made)), leaves (the tree's), max_leaves, max_depth (None for no
    limit), and stopped (why growth ended: "max_leaves", or "no_split" when no leaf was
    left that could be split: each was too small, at the depth limit or without a
    positive gain).
    """
    _check(trace)
    tree, extra = trace.tree(m, k), trace.tree_histograms(m, k)
    split_nodes = np.flatnonzero(extra["split_order"] >= 0)
    split_nodes = split_nodes[np.argsort(extra["split_order"][split_nodes])]
    splits = [dict(order=i + 1, node=int(u), depth=int(tree[u]["depth"]),
                   feature=int(tree[u]["feature"]), threshold=float(tree[u]["threshold"]),
                   bin=int(extra[u]["bin"]), gain=float(tree[u]["improvement"]),
                   n=int(tree[u]["n"]), leaves=i + 2)
              for i, u in enumerate(split_nodes)]
    leaves = int((tree["left"] < 0).sum())
    max_leaves = trace.params.get("max_leaves")
    return dict(splits=splits, leaves=leaves, max_leaves=max_leaves,
                max_depth=trace.params.get("max_depth"),
                stopped="max_leaves" if max_leaves is not None and leaves >= max_leaves
                else "no_split")


def _check(trace):
    if not trace.histogram:
        raise ValueError("histograms are for split='histogram' fits; this fit has "
                         f"split={trace.params.get('split')!r}.")


def _gradients(trace, m, k):
    """g and h (float32 values, as float64) of tree m's fit: at F_(m-1)."""
    r, h = trace.residual(m - 1), trace.hessian(m - 1)
    if trace.is_multiclass:
        r, h = r[:, k], h[:, k]
    return -r, h


def _parents(tree):
    parent = np.full(len(tree), -1)
    for u in np.flatnonzero(tree["left"] >= 0):
        parent[tree["left"][u]] = parent[tree["right"][u]] = u
    return parent


def _passes(trace, m, k, tree, u):
    """Mask of the training samples whose path in tree m passes through node u: the
    nodes are in preorder, so u's subtree is the ids u..u + size - 1."""
    size = _subtree_size(tree, u)
    leaf = trace.leaf[m] if not trace.is_multiclass else trace.leaf[m][:, k]
    return (leaf >= u) & (leaf < u + size)


def _subtree_size(tree, u):
    if tree[u]["left"] < 0:
        return 1
    return 1 + _subtree_size(tree, tree[u]["left"]) + _subtree_size(tree, tree[u]["right"])


# --- what the page prints beside the charts ---------------------------------------------


def split_text(found, feature_names, gain_name="histogram gain"):
    """Sentences on the split found at a node (:func:`split_finding`'s numbers): the
    chosen boundary with its sums and its gain, term by term."""
    if found is None:
        return ["This node had no histogram: it was made a leaf without a search for a "
                "split (the leaf or depth limit, or fewer than 2 × min_samples_leaf samples)."]
    G, H, lam = found["G"], found["H"], found["lam"]
    lines = [f"The node's sums: G = Σg = {number(G)}, H = Σh = {number(H)}, n = {found['n']}, "
             f"λ = {number(lam)}. A boundary is allowed when both sides keep at least "
             "min_samples_leaf samples and a hessian sum of at least 1e-3."]
    where = found["chosen"] or found["best"]
    if where is None:
        return lines + ["No boundary is allowed here: the node is a leaf."]
    f, b = where
    fe = found["features"][f]
    G_L, H_L = float(fe["G_L"][b]), float(fe["H_L"][b])
    G_R, H_R = G - G_L, H - H_L
    a, c, p = G_L**2 / (H_L + lam), G_R**2 / (H_R + lam), found["parent_term"]
    what = "The chosen boundary" if found["chosen"] else "The best boundary (not split)"
    lines.append(
        f"{what}: {feature_names[f]} ≤ {number(fe['edges'][b])} (bins 0..{b} go left): "
        f"G_L = {number(G_L)}, H_L = {number(H_L)}, G_R = {number(G_R)}, H_R = {number(H_R)}; "
        f"{gain_name} = G_L²/(H_L + λ) + G_R²/(H_R + λ) − G²/(H + λ) = {number(a)} + "
        f"{number(c)} − {number(p)} = {number(a + c - p)}, the largest over every feature's "
        "boundaries (ties: the lowest feature, then the lowest bin).")
    if found["chosen"] and found["root"]:
        lines.append(f"At the root scikit-learn takes G²/(H + λ) as 0: the recorded gain is "
                     f"{number(found['improvement'])} = {number(a)} + {number(c)}.")
    return lines


def subtraction_text(children, node):
    """The subtraction trick at the split of ``node`` (a row of :func:`subtraction`), or
    what happens in general when ``node`` is not a split."""
    rule = ("Of two children, scikit-learn builds the histogram of the one with fewer "
            "samples from its samples (the right one on equal counts) and gets the other's "
            "as the parent's minus it, bin by bin: one pass over the smaller child's "
            "samples, none over the larger's.")
    row = next((c for c in children if c["parent"] == node), None)
    if row is None:
        return rule + f" Node {node} was not split."
    if row["built"] is None:
        return (rule + f" Node {node} was split (#{row['order'] + 1}), but neither child "
                "was searched for a split (the leaf or depth limit, or both too small): no "
                "histogram was made for them.")
    n = {row["left"]: row["n_left"], row["right"]: row["n_right"]}
    return (rule + f" Node {node} (split #{row['order'] + 1}): node {row['built']} "
            f"(n = {n[row['built']]}) was built from its samples, node {row['subtracted']} "
            f"(n = {n[row['subtracted']]}) = node {node} − node {row['built']}.")


def growth_rows(trace, m, k, feature_names):
    """The splits of tree m (class k) in best-first order, as rows of a table."""
    children = {c["parent"]: c for c in subtraction(trace, m, k)}
    rows = []
    for s in growth(trace, m, k)["splits"]:
        c = children[s["node"]]
        rows.append({"order": s["order"], "node": s["node"], "depth": s["depth"],
                     "split": f"{feature_names[s['feature']]} ≤ {number(s['threshold'])}",
                     "n": s["n"], "gain (recorded)": s["gain"], "leaves after": s["leaves"],
                     "built from its samples": c["built"],
                     "parent − sibling": c["subtracted"]})
    return rows


def leaf_rows(leaves):
    """:func:`leaf_values` as rows of a table."""
    return [{"leaf": r["node"], "n": r["n"], "G = −Σr": r["G"], "H = Σh": r["H"],
             "λ": r["lam"], "γ = −G/(H + λ)": r["value"], "ν": r["nu"], "ν · γ": r["step"]}
            for r in leaves]
