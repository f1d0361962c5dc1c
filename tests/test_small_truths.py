"""Issue 29, item 13: rounding noise prints as 0, negative numbers take brackets or a
minus sign, accuracy changes are percentage points, the multiclass leaf titles name tree
(m, k)."""

from __future__ import annotations

import numpy as np

from explorer import fit
from explorer.data import make_toy
from explorer.figures.charts import tree_diagram
from explorer.figures.maths import leaf_loss_of
from explorer.numbers import leaves, summaries
from explorer.text import bracketed, plus, settled


def test_a_value_below_1e_12_of_its_terms_prints_as_0():
    assert settled(3.553e-15, 150 * 0.44) == 0.0
    assert settled(3.33e-16, 0.5 + 0.5) == 0.0
    assert settled(1e-9, 1.0) == 1e-9  # small but not noise
    assert settled(-2.0, 100.0) == -2.0


def test_brackets_and_signs():
    assert bracketed(-0.963038) == "(-0.963038)" and bracketed(0.5) == "0.5"
    assert plus(-0.0963038) == "− 0.0963038" and plus(0.2) == "+ 0.2"


def _iris():
    d = make_toy("iris", n=150, noise=0.2, seed=0)
    return fit(d.X, d.y, n_rounds=2)


def test_the_iris_root_prints_sum_r_as_0():
    t = _iris()
    root = t.tree(1, 0)[0]
    assert root["sum_r"] != 0 and abs(root["sum_r"]) < 1e-12  # the engine's sum is noise
    assert summaries.node_scales(t, 1, 0)[0] > 1
    text = " ".join(a.text for a in tree_diagram(t, 1, k=0).layout.annotations)
    assert "e-1" not in text and "Σr = 0<br>" in text


def test_node_scales_sum_the_magnitudes_of_each_nodes_residuals():
    t = _iris()
    tree = t.tree(1, 1)
    scales = summaries.node_scales(t, 1, 1)
    r = np.abs(t.residual(0)[:, 1])
    assert np.isclose(scales[0], r.sum())
    for j in np.flatnonzero(tree["left"] < 0):
        assert np.isclose(scales[j], r[t.leaf[1, :, 1] == j].sum())


def test_the_multiclass_leaf_maths_title_names_tree_m_k():
    t = _iris()
    title = leaf_loss_of(t, 1, leaf=-1, sample=0, k=2).layout.title.text
    assert "tree (1, 2)" in title


def test_a_gap_of_rounding_noise_is_0():
    t = _iris()
    for node in np.flatnonzero(t.tree(1, 0)["left"] < 0):
        s = leaves.leaf_story(t, 1, node, k=0)
        assert s["gap"] == 0 or abs(s["gap"]) > 1e-12 * (abs(s["exact"]) + abs(s["newton"]))


def test_the_pages_print_brackets_signs_and_percentage_points(warm_engine):
    from apptest_helpers import assert_clean, open_page, page_text
    deltas = []
    for query in (dict(round=1), dict(data="sine", round=1), dict(data="iris", round=1)):
        for page in ("pages/model.py", "pages/tree.py", "pages/sample.py"):
            at = open_page(page, **query)
            assert_clean(at)
            text = page_text(at)
            assert r"\times -" not in text and "+ -" not in text, (query, page)
            assert ", (" not in text, (query, page)
            for metric in at.metric:
                if "accuracy" in str(metric.label).lower() and metric.proto.delta:
                    deltas.append(metric.proto.delta)
    assert deltas and all(d.endswith(" pp") for d in deltas), deltas


def test_the_tree_and_splits_pages_name_each_gain(warm_engine):
    from apptest_helpers import assert_clean, open_page, page_text
    for query, phrase in ((dict(round=1), "divided by N"),
                          (dict(round=1, split="hessian"), "twice the Splits page's gain")):
        for page in ("pages/tree.py", "pages/splits.py"):
            at = open_page(page, **query)
            assert_clean(at)
            assert phrase in page_text(at), (query, page)
