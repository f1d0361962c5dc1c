"""AppTest over the mathematics pages (Leaf maths, Splits) and the new fit settings (split
rule, leaf rule, lambda, gamma, min child weight)."""

from __future__ import annotations

import pytest

from apptest_helpers import assert_clean, charts, open_page, page_text, round_of

LEAF = "pages/leaf_maths.py"
SPLITS = "pages/splits.py"


@pytest.fixture(autouse=True)
def _warm(warm_engine):
    """AppTest runs the app in this process: compile numba once first."""


def open_math(page: str, **query):
    at = open_page(page, **query)
    assert_clean(at)
    return at


def figures(at) -> list[dict]:
    return charts(at)  # the pages' charts are live (updated in place)


def text(at) -> str:
    return " ".join([m.value for m in at.markdown] + [c.value for c in at.caption]
                    + [x.value for x in at.latex] + [f"{m.label} {m.value}" for m in at.metric]
                    + [w.value for w in at.warning] + [i.value for i in at.info])


@pytest.mark.parametrize("page", [LEAF, SPLITS])
def test_round_zero_says_there_is_no_tree(page):
    at = open_math(page)
    assert round_of(at) == 0
    assert "Round 0 has no tree" in " ".join(i.value for i in at.info)


def test_leaf_maths_numbers_and_chart():
    at = open_math(LEAF, round=1)
    assert round_of(at) == 1
    (fig,) = figures(at)
    names = " ".join(t.get("name", "") for t in fig["data"])
    assert "Newton" in names and "Taylor" in names
    body = text(at)
    assert "Newton γ₁ = Σr / Σh" in body and r"\sum_{i \in R} p_i (1 - p_i)" in body
    assert r"|r_i|\,(1 - |r_i|)" in body  # the ±1 form beside the {0,1} form
    assert any("F₀ = p / (1 − p)" in str(t.value) for t in at.table) or at.table


def test_leaf_maths_every_leaf_last_round_and_pure_message():
    at = open_math(LEAF, round=100)
    assert round_of(at) == 100
    box = at.selectbox(key="_w_leaf")
    seen_pure = seen_exact = False
    for leaf in box.options[1:]:
        at.selectbox(key="_w_leaf").set_value(leaf if isinstance(leaf, int) else
                                              int(str(leaf).split()[1])).run()
        assert_clean(at)
        body = text(at)
        if "no finite minimiser" in body:
            seen_pure = True
        if "exact γ*" in body and "| none |" not in body:
            seen_exact = True
    assert seen_exact or seen_pure


def test_leaf_maths_changed_parameters_and_rules():
    for query in (dict(round=2, leafrule="exact"), dict(round=2, leafrule="line-search"),
                  dict(round=3, lr=0.5, depth=2), dict(round=2, split="hessian", lam=0.3)):
        at = open_math(LEAF, **query)
        assert round_of(at) == query["round"]
        assert len(figures(at)) == 1


def test_agreement_panel():
    at = open_math(LEAF, round=2, rounds=5)
    at.button(key="agree_run").click().run()
    assert_clean(at)
    assert "scikit" in text(at)
    labels = [m.label for m in at.metric]
    assert "Largest |ΔF|, training points" in labels
    value = [m.value for m in at.metric if m.label.startswith("Largest |ΔF|, training")][0]
    assert float(value) < 1e-6
    at = open_math(LEAF, round=2, rounds=5, leafrule="mean")
    at.button(key="agree_run").click().run()
    assert_clean(at)
    assert "No reference" in " ".join(i.value for i in at.info)


def test_incompatible_settings_give_a_message():
    at = open_page(LEAF, split="hessian", loss="exponential")
    assert not at.exception
    assert at.error and "log" in at.error[0].value
    at = open_page(SPLITS, split="hessian", loss="exponential")
    assert not at.exception and at.error


def test_hessian_split_disables_what_does_not_apply():
    at = open_page(SPLITS, split="hessian", round=1)
    assert_clean(at)
    for key in ("leafrule", "leaves", "minleaf", "subsample"):
        assert at.sidebar.get("selectbox" if key == "leafrule" else "slider") is not None
    assert at.selectbox(key="leafrule").disabled
    assert at.slider(key="subsample").disabled
    assert at.slider(key="lam").value == 1.0
    at.slider(key="lam").set_value(2.0).run()
    assert_clean(at)
    assert "λ = 2" in text(at)


def test_splits_page_both_rules_chosen_marked():
    at = open_math(SPLITS, round=1)
    (fig,) = figures(at)
    names = {t.get("name") for t in fig["data"]}
    assert {"squared-error reduction", "second-order gain"} <= names
    assert fig["layout"]["shapes"]  # the chosen split
    at.selectbox(key="splits_node").set_value(1).run()
    assert_clean(at)
    at = open_math(SPLITS, round=100, split="hessian")
    assert round_of(at) == 100 and len(figures(at)) == 1


def test_splits_table_shows_a_dash_where_nothing_was_chosen():
    at = open_math(SPLITS, round=1)
    table = at.dataframe[0].value
    cells = [str(v) for v in table.to_numpy().ravel()]
    assert "None" not in cells and "nan" not in cells
    chosen = list(table["chosen by the tree"])
    # node 0 splits one feature: the other feature's rows show a dash
    assert "—" in chosen and any(c != "—" for c in chosen)
    assert all(float(c) for c in table["best gain"] if c != "—")


def test_the_agreement_panel_checks_a_regression_against_scikit_learns_regressor():
    at = open_page("pages/leaf_maths.py", data="steps", round=2, rounds=6)
    at.button(key="agree_run").click().run()
    assert_clean(at)
    value = [m.value for m in at.metric if m.label.startswith("Largest |ΔF|, training")][0]
    assert float(value) < 1e-9
    assert "scikit" in page_text(at)
