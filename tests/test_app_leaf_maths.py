"""AppTest over the Leaf maths page: a leaf's numbers and chart for every leaf rule and
setting, the agreement panel (two classes, three, and a regression), and its messages."""

from __future__ import annotations

import pytest

from apptest_helpers import (LEAF, ROUNDS, all_text, assert_clean, charts, open_clean,
                             open_page, page_text, round_of)


def test_leaf_maths_numbers_and_chart():
    at = open_clean(LEAF, round=1)
    assert round_of(at) == 1
    (fig,) = charts(at)
    names = " ".join(t.get("name", "") for t in fig["data"])
    assert "Newton" in names and "Taylor" in names
    body = all_text(at)
    assert "Newton γ₁ = Σr / Σh" in body and r"\sum_{i \in R} p_i (1 - p_i)" in body
    assert r"|r_i|\,(1 - |r_i|)" in body  # the ±1 form beside the {0,1} form
    assert any("F₀ = p / (1 − p)" in str(t.value) for t in at.table) or at.table


def test_leaf_maths_every_leaf_last_round_and_pure_message():
    at = open_clean(LEAF, round=100)
    assert round_of(at) == 100
    box = at.selectbox(key="_w_leaf")
    seen_pure = seen_exact = False
    for leaf in box.options[1:]:
        at.selectbox(key="_w_leaf").set_value(leaf if isinstance(leaf, int) else
                                              int(str(leaf).split()[1])).run()
        assert_clean(at)
        body = all_text(at)
        if "no finite minimiser" in body:
            seen_pure = True
        if "exact γ*" in body and "| none |" not in body:
            seen_exact = True
    assert seen_exact or seen_pure


def test_leaf_maths_changed_parameters_and_rules():
    for query in (dict(round=2, leafrule="exact"), dict(round=2, leafrule="line-search"),
                  dict(round=3, lr=0.5, depth=2), dict(round=2, split="hessian", lam=0.3)):
        at = open_clean(LEAF, **query)
        assert round_of(at) == query["round"]
        assert len(charts(at)) == 1


def test_agreement_panel():
    at = open_clean(LEAF, round=2, rounds=5)
    at.button(key="agree_run").click().run()
    assert_clean(at)
    assert "scikit" in all_text(at)
    labels = [m.label for m in at.metric]
    assert "Largest |ΔF|, training points" in labels
    value = [m.value for m in at.metric if m.label.startswith("Largest |ΔF|, training")][0]
    assert float(value) < 1e-6
    at = open_clean(LEAF, round=2, rounds=5, leafrule="mean")
    at.button(key="agree_run").click().run()
    assert_clean(at)
    assert "No reference" in " ".join(i.value for i in at.info)


def test_the_agreement_panel_checks_a_regression_against_scikit_learns_regressor():
    at = open_page("pages/leaf_maths.py", data="steps", round=2, rounds=6)
    at.button(key="agree_run").click().run()
    assert_clean(at)
    value = [m.value for m in at.metric if m.label.startswith("Largest |ΔF|, training")][0]
    assert float(value) < 1e-9
    assert "scikit" in page_text(at)


def test_the_leaf_maths_page_checks_a_three_class_fit_against_scikit_learn():
    at = open_page("pages/leaf_maths.py", data="blobs", rounds=ROUNDS, round=2, cls=2, n=120)
    assert_clean(at)
    assert "Leaf" in page_text(at) and "tree (2, 2)" in page_text(at)
    assert "2/3 · Σr / Σh" in page_text(at)
    at.button(key="agree_run").click().run()
    assert_clean(at)
    values = {m.label: m.value for m in at.metric}
    assert values["Largest |ΔF|, training points"] == "0.00e+00"
    assert values["Largest |ΔF|, grid over the plane"] == "0.00e+00"


@pytest.mark.parametrize("split", ["histogram", "hessian"])
def test_three_class_leaves_without_the_factor_say_nothing_of_it(split):
    """Histogram and second-order trees take −G/(H + λ) with no (K − 1)/K: the page's note on
    the factor is for scikit-learn's Newton leaves alone."""
    at = open_clean(LEAF, data="iris", split=split, rounds=ROUNDS, round=2, cls=1)
    assert "(K − 1)/K" not in all_text(at)
    assert "(K − 1)/K" in all_text(open_clean(LEAF, data="iris", rounds=ROUNDS, round=2, cls=1))



def _default_fit(m):
    """The default fit, and at round m its leaves' in-bag members counted again here."""
    from explorer import fit
    from explorer.data import make_toy, split
    from explorer.numbers.leaves import leaf_story, members
    from explorer.state import State
    s = State()
    train, _ = split(make_toy(s.data, n=s.n, noise=s.noise, seed=s.dseed), s.valid, s.dseed)
    trace = fit(train.X, train.y, **s.fit_params())
    tree = trace.tree(m)
    found = []
    for node in range(len(tree)):
        if tree["left"][node] < 0:
            inside = members(trace, m, node)
            y = trace.y[inside]
            pure = bool((y == 1).all() or (y == 0).all())
            found.append((int(inside.sum()), node, pure,
                          leaf_story(trace, m, node)["stop_rule"]))
    return trace, found


@pytest.mark.parametrize("m", [1, 10])
def test_leaf_maths_opens_on_the_largest_leaf_with_a_finite_minimiser(m):
    """Issue 45, item 4: no leaf chosen, the page shows the largest leaf that is not pure
    and whose Newton iterations converged, and says which; sample 0's pure leaf is one
    click away with its warning; the Tree page still follows the sample."""
    from explorer.numbers.summaries import CONVERGED
    trace, found = _default_fit(m)
    size, typical = max((n, -node) for n, node, pure, stop in found
                        if not pure and stop == CONVERGED)
    typical = -typical
    own = int(trace.leaf[m][0])
    assert typical != own and next(p for _, node, p, _ in found if node == own)  # pure
    at = open_clean(LEAF, round=m)
    body = all_text(at)
    assert f"**Leaf {typical} of tree {m}**: {size} training points." in body
    assert f"largest leaf with a finite minimiser of tree m, leaf {typical}" in body
    assert "no finite minimiser" not in body
    (fig,) = charts(at)
    assert f"Leaf {typical} of tree {m}" in fig["layout"]["title"]["text"]
    at.button(key="leaf_of_sample").click().run()
    assert_clean(at)
    body = all_text(at)
    assert f"**Leaf {own} of tree {m}**" in body and "no finite minimiser" in body
    at = open_clean("pages/tree.py", round=m)  # no leaf chosen: the sample's leaf
    assert at.selectbox(key="_w_leaf").value == -1
    assert f"leaf {own}" in all_text(at).lower()
