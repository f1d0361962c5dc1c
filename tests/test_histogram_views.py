"""The views of histogram trees: their numbers (explorer.numbers.histograms: split finding,
the subtraction trick, leaf values, best-first growth) against the engine's own trees,
the Splits page's numbers for the histogram rule, and the figures drawn from them."""

import functools
import json
import math

import numpy as np
import pytest

import explorer
from explorer.binning import bin_columns
from explorer.data import make_toy
from explorer.figures import histograms as hf
from explorer.histogram_tree import BUILT, SUBTRACTED
from explorer.numbers import histograms as hn
from explorer.numbers import splits, summaries
from explorer.numbers.leaves import leaf_story, members


# name: (toy, fit options, the class whose trees are looked at)
_PROBLEMS = {
    "two classes": ("moons", {}, 0),
    # a leaf limit that stops growth, few bins, a penalty λ
    "two classes, limits": ("moons", dict(max_leaves=5, max_bins=16, reg_lambda=2.0,
                                          min_samples_leaf=5), 0),
    "iris": ("iris", {}, 2),
    "sine": ("sine", dict(loss="squared_error", reg_lambda=0.5), 0),
}


@functools.cache
def fitted(name):
    """(trace, k) of a problem, fitted when a test first asks: not at collection, which
    every test process does for every file."""
    toy, options, k = _PROBLEMS[name]
    data = make_toy(toy, n=300)
    return explorer.fit(data.X, data.y, split="histogram", n_rounds=10, **options), k


CASES = [(name, m) for name in _PROBLEMS for m in (1, 10)]


def _searched(trace, m, k):
    extra = trace.tree_histograms(m, k)
    return [int(u) for u in np.flatnonzero(np.isin(extra["histogram"], (BUILT, SUBTRACTED)))]


@pytest.mark.parametrize("name, m", CASES)
def test_split_finding_chooses_the_trees_split(name, m):
    trace, k = fitted(name)
    tree = trace.tree(m, k)
    lam = trace.params["reg_lambda"]
    split_nodes = np.flatnonzero(tree["left"] >= 0)
    assert len(split_nodes)
    for u in split_nodes:
        found = hn.split_finding(trace, m, u, k)
        assert found is not None  # every split node was searched
        # the node's sums are the tree's, exactly
        assert found["G"] == -tree[u]["sum_r"] and found["H"] == tree[u]["sum_h"]
        # the engine's largest gain is the tree's split; so is the formula's, drawn
        assert found["best"] == found["chosen"] == (tree[u]["feature"],
                                                    trace.tree_histograms(m, k)[u]["bin"])
        f, b = found["chosen"]
        gains = np.full((len(found["features"]), 256), -np.inf)
        for fe in found["features"]:
            gains[fe["feature"], :len(fe["gain"])] = np.where(fe["allowed"], fe["gain"], -np.inf)
        # the drawn gain peaks there too: at round 1 every g takes one of two values and
        # boundaries tie, which the engine's arithmetic (scikit-learn's) breaks in its last bits
        assert gains[f, b] >= gains.max() - 1e-12 * max(1.0, abs(gains.max()))
        # the running sums at the chosen boundary are the left child's sums, exactly
        fe = found["features"][f]
        left = tree[tree[u]["left"]]
        assert fe["G_L"][b] == -left["sum_r"] and fe["H_L"][b] == left["sum_h"]
        assert fe["n_L"][b] == left["n"]
        # the boundary is the tree's threshold; the histograms hold the node's samples
        assert fe["edges"][b] == tree[u]["threshold"]
        assert fe["n_b"].sum() == tree[u]["n"]
        # the formula's gain is the recorded one (less G²/(H + λ) at the root)
        G, H = found["G"], found["H"]
        parent = G * G / (H + lam) if u == 0 else 0.0
        assert math.isclose(found["chosen_gain"], tree[u]["improvement"] - parent,
                            rel_tol=1e-9, abs_tol=1e-9 * (1 + abs(parent)))
        assert math.isclose(splits.as_gain(trace, m, u, k), found["chosen_gain"],
                            rel_tol=1e-9, abs_tol=1e-9 * (1 + abs(parent)))
        # the page's sentence adds up the terms to the gain drawn
        from explorer.text import number
        line = hn.split_text(found, ("x1", "x2", "x3"))[1]
        assert f"{number(tree[u]['threshold'])} (bins 0..{b} go left)" in line
        assert line.split(" = ")[-1].startswith(number(found["chosen_gain"]))


@pytest.mark.parametrize("name, m", CASES)
def test_subtraction_builds_the_smaller_child(name, m):
    trace, k = fitted(name)
    tree = trace.tree(m, k)
    rows = hn.subtraction(trace, m, k)
    assert [r["order"] for r in rows] == list(range(len(rows)))
    seen = 0
    for r in rows:
        a, b = tree[r["parent"]]["left"], tree[r["parent"]]["right"]
        assert (r["left"], r["right"]) == (a, b)
        if r["built"] is None:
            assert r["subtracted"] is None
            continue
        seen += 1
        # scikit-learn's grower: the child with fewer samples, the right one on equal counts
        assert r["built"] == (a if tree[a]["n"] < tree[b]["n"] else b)
        assert {r["built"], r["subtracted"]} == {a, b}
        # the subtracted histogram is the other child's samples' own, to rounding; its
        # counts exactly
        G, H, n = hn.node_histograms(trace, m, r["subtracted"], k)
        mine = members(trace, m, r["subtracted"], k)
        g = -trace.residual(m - 1)[mine]
        h = trace.hessian(m - 1)[mine]
        if trace.is_multiclass:
            g, h = g[:, k], h[:, k]
        binned = bin_columns(trace.X[mine], trace.bin_thresholds)
        for f, row in enumerate(binned):
            own = np.bincount(row, minlength=n.shape[1])
            assert (n[f] == own).all()
            assert np.allclose(G[f], np.bincount(row, weights=g, minlength=n.shape[1]),
                               atol=1e-9)
            if trace.is_classifier:
                assert np.allclose(H[f], np.bincount(row, weights=h, minlength=n.shape[1]),
                                   atol=1e-9)
    assert seen


@pytest.mark.parametrize("name, m", CASES)
def test_leaf_values_are_the_trees(name, m):
    trace, k = fitted(name)
    tree = trace.tree(m, k)
    rows = hn.leaf_values(trace, m, k)
    assert [r["node"] for r in rows] == list(np.flatnonzero(tree["left"] < 0))
    lam, nu = trace.params["reg_lambda"], trace.learning_rate
    for r in rows:
        G, H = -float(tree[r["node"]]["sum_r"]), float(tree[r["node"]]["sum_h"])
        assert r["value"] == tree[r["node"]]["value"]  # the engine's, bit for bit
        assert math.isclose(r["value"], -G / (H + lam), rel_tol=1e-12, abs_tol=1e-300)
        assert r["step"] == nu * r["value"]
    # the leaves' steps are tree m's contribution to F
    inside = trace.leaf[m] if not trace.is_multiclass else trace.leaf[m][:, k]
    step = {r["node"]: r["step"] for r in rows}
    F = trace.raw[m] - trace.raw[m - 1]
    F = F[:, k] if trace.is_multiclass else F
    assert np.allclose(F, [step[int(u)] for u in inside], rtol=0, atol=1e-12)
    # the leaf text states −G/(H + λ) for this rule, with λ and no (K − 1)/K factor
    u = rows[0]["node"]
    f = summaries.leaf_formula(trace, m, u, k)
    assert f["rule"] == "histogram" and f["lam"] == lam and f["factor"] == 1.0
    assert f["denominator"] == tree[u]["sum_h"] + lam
    story = leaf_story(trace, m, u, k=k)
    assert story["newton"] == tree[u]["value"] and "−G/(H + λ)" in story["newton_formula"]


@pytest.mark.parametrize("name, m", CASES)
def test_growth_is_best_first(name, m):
    trace, k = fitted(name)
    tree = trace.tree(m, k)
    grown = hn.growth(trace, m, k)
    order = [s["node"] for s in grown["splits"]]
    assert sorted(order) == list(np.flatnonzero(tree["left"] >= 0))
    assert grown["leaves"] == len(order) + 1 == (tree["left"] < 0).sum()
    if grown["max_leaves"] is not None:
        assert grown["leaves"] <= grown["max_leaves"]
    assert (grown["stopped"] == "max_leaves") == (grown["leaves"] == grown["max_leaves"])
    # each split was the best of the leaves waiting then: a leaf waits once its parent is
    # split, with its best gain (the engine's arithmetic) when it was searched
    msl = trace.params["min_samples_leaf"]
    searched = set(_searched(trace, m, k))

    def best_gain(u):
        if u not in searched or tree[u]["n"] < 2 * msl:
            return None
        gain = hn.scan(trace, m, u, k)["gain"]
        return float(np.nanmax(gain)) if np.isfinite(gain).any() else None

    waiting = {0: float(tree[0]["improvement"])}
    for s in grown["splits"]:
        assert s["node"] in waiting and waiting[s["node"]] == max(waiting.values())
        assert waiting.pop(s["node"]) == s["gain"]
        for child in (tree[s["node"]]["left"], tree[s["node"]]["right"]):
            gain = best_gain(int(child))
            if gain is not None and gain > 0:
                waiting[int(child)] = gain


def test_the_limits_fit_stops_at_max_leaves_and_penalises():
    trace, _ = fitted("two classes, limits")
    assert any(hn.growth(trace, m)["stopped"] == "max_leaves" for m in (1, 10))
    assert all(len(t) <= 16 for t in trace.bin_thresholds)


@pytest.mark.parametrize("name, m", CASES)
def test_the_splits_pages_scan_for_the_histogram_rule(name, m):
    """numbers.splits.scan on a histogram tree: the candidates are the bin boundaries and
    its gain (no ½, no γ) peaks at the tree's split."""
    trace, k = fitted(name)
    tree = trace.tree(m, k)
    assert splits.rules(trace) == splits.HISTOGRAM_RULES
    assert splits.HISTOGRAM_GAIN in splits.improvement_name(trace)
    for u in np.flatnonzero(tree["left"] >= 0)[:4]:
        scans = splits.scan(trace, m, u, k=k)
        for sc in scans:
            assert set(sc["thresholds"]) <= set(trace.bin_thresholds[sc["feature"]])
        best = max(scans, key=lambda sc: sc["hessian"].max() if len(sc["hessian"]) else -1e300)
        assert best["feature"] == tree[u]["feature"]
        assert best["thresholds"][best["best"]["hessian"]] == best["chosen"]
        assert math.isclose(best["hessian"].max(), splits.as_gain(trace, m, u, k),
                            rel_tol=1e-6, abs_tol=1e-6)
        rows = splits.best_rows(scans, ("a", "b"), splits.rules(trace))
        assert {r["rule"] for r in rows} == {"squared error", splits.HISTOGRAM_GAIN}


def _numbers_of(obj):
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _numbers_of(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _numbers_of(v)
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        yield float(obj)


def _spec(fig):
    return json.loads(fig.to_json())  # typed arrays come as base64: decoded below


def _arrays(fig):
    """Every numeric array of the figure's traces, decoded."""
    for trace in fig.data:
        for key in ("x", "y"):
            v = getattr(trace, key, None)
            if v is not None:
                a = np.asarray([np.nan if e is None else e for e in v], dtype=object)
                yield np.array([e for e in a if isinstance(e, (int, float, np.number))],
                               dtype=float)


@pytest.mark.parametrize("name, m", CASES)
def test_the_figures_draw_the_numbers(name, m):
    trace, k = fitted(name)
    tree = trace.tree(m, k)
    for u in _searched(trace, m, k)[:3]:
        found = hn.split_finding(trace, m, u, k)
        fig = hf.split_finding(found, m, u, gain_name=splits.HISTOGRAM_GAIN)
        spec = _spec(fig)
        assert all(math.isfinite(x) for x in _numbers_of(spec["layout"]))
        assert all(np.isfinite(a).all() for a in _arrays(fig))
        lines = [s for s in spec["layout"].get("shapes", []) if s.get("type") == "line"]
        if found["chosen"] is not None:  # the chosen boundary in its three rows
            assert len(lines) == 3 and {s["x0"] for s in lines} == {found["chosen"][1] + 0.5}
        else:
            assert not lines
    grown, children, leaves = (hn.growth(trace, m, k), hn.subtraction(trace, m, k),
                               hn.leaf_values(trace, m, k))
    fig = hf.growth(tree, grown, children, leaves, m)
    _check_growth(fig, tree, grown, children, leaves)
    fig = hf.leaf_values(leaves, m)
    assert np.array_equal(np.asarray(fig.data[0].x, dtype=float), [r["step"] for r in leaves])
    assert all(np.isfinite(a).all() for a in _arrays(fig))


def _check_growth(fig, tree, grown, children, leaves):
    """The diagram labels each split with its rank, and tints each node (its label, or a
    leaf's square past 12 leaves) by how its histogram was obtained."""
    kind = {0: hf.BLUE}
    for c in children:
        if c["built"] is not None:
            kind[c["built"]], kind[c["subtracted"]] = hf.BLUE, hf.ORANGE
    labelled = [u for u in range(len(tree)) if tree["left"][u] >= 0 or len(leaves) <= 12]
    notes = dict(zip(labelled, fig.layout.annotations, strict=True))
    for s in grown["splits"]:
        assert f"<b>#{s['order']}</b>" in notes[s["node"]].text
    for u, note in notes.items():
        assert note.bordercolor == kind.get(u, "#9aa3ad")
    squares = [t for t in fig.data if t.marker.symbol == "square" and t.x[0] is not None]
    if len(leaves) > 12:
        (square,) = squares
        assert list(square.marker.line.color) == [kind.get(r["node"], "#9aa3ad")
                                                  for r in leaves]
    else:
        assert not squares


def test_a_tree_of_31_leaves_labels_its_splits_by_rank():
    moons = make_toy("moons", n=3000)
    trace = explorer.fit(moons.X, moons.y, split="histogram", n_rounds=2)
    grown = hn.growth(trace, 2)
    assert grown["leaves"] == 31 and grown["stopped"] == "max_leaves"
    children, leaves = hn.subtraction(trace, 2), hn.leaf_values(trace, 2)
    _check_growth(hf.growth(trace.tree(2), grown, children, leaves, 2), trace.tree(2), grown,
                  children, leaves)


def test_round_zero_and_a_node_without_histogram():
    trace, k = fitted("two classes")
    assert "Round 0 has no tree" in hf.split_finding(None, 0, 0).layout.annotations[0].text
    tree = trace.tree(1, k)
    extra = trace.tree_histograms(1, k)
    none = [u for u in range(len(tree)) if extra[u]["histogram"] not in (BUILT, SUBTRACTED)]
    assert none
    assert hn.split_finding(trace, 1, none[0], k) is None
    assert "had no histogram" in hf.split_finding(None, 1, none[0]).layout.annotations[0].text
    assert "had no histogram" in hn.split_text(None, ("x1", "x2"))[0]


@pytest.mark.parametrize("name, m", CASES)
def test_h_has_its_own_axis_with_its_0_level_with_gs(name, m):
    """H is a count for squared error and at most n/4 for the log-loss: on G's axis it would
    flatten G. Each of the first two rows has H on a right-hand axis over G's, both axes
    covering every value drawn, with 0 at the same height and H's ticks from 0 up."""
    trace, k = fitted(name)
    u = _searched(trace, m, k)[0]
    found = hn.split_finding(trace, m, u, k)
    fig = hf.split_finding(found, m, u, gain_name=splits.HISTOGRAM_GAIN)
    layout = _spec(fig)["layout"]
    by_name = {}
    for t in fig.data:
        by_name.setdefault(t.legendgroup, []).append(t)
    for g_field, h_field in (("G_b", "H_b"), ("G_L", "H_L")):
        assert len(by_name[g_field]) == len(found["features"])  # a column each
        for g, h in zip(by_name[g_field], by_name[h_field]):
            g_axis = layout["yaxis" + g.yaxis[1:]]
            h_axis = layout["yaxis" + h.yaxis[1:]]
            assert h_axis["overlaying"] == g.yaxis and h_axis["side"] == "right"
            (g0, g1), (h0, h1) = g_axis["range"], h_axis["range"]
            assert g0 <= min(0.0, np.min(g.y)) and g1 >= max(0.0, np.max(g.y))
            assert h1 >= np.max(h.y) and h0 <= 0.0
            assert -g0 / (g1 - g0) == pytest.approx(-h0 / (h1 - h0), rel=1e-12)
            ticks = h_axis["tickvals"]
            assert ticks[0] == 0.0 and len(ticks) >= 2 and max(ticks) <= h1
