"""AppTest over the Splits page: each split rule's scan at a node, the split chosen,
its table, and the sidebar's controls that a rule does not use."""

from __future__ import annotations

from apptest_helpers import (SPLITS_PAGE, all_text, assert_clean, charts, open_clean, open_page,
                             round_of)


def test_hessian_split_disables_what_does_not_apply():
    at = open_page(SPLITS_PAGE, split="hessian", round=1)
    assert_clean(at)
    for key in ("leafrule", "leaves", "minleaf", "subsample"):
        assert at.sidebar.get("selectbox" if key == "leafrule" else "slider") is not None
    assert at.selectbox(key="leafrule").disabled
    assert at.slider(key="subsample").disabled
    assert at.slider(key="lam").value == 1.0
    at.slider(key="lam").set_value(2.0).run()
    assert_clean(at)
    assert "λ = 2" in all_text(at)


def test_splits_page_both_rules_chosen_marked():
    at = open_clean(SPLITS_PAGE, round=1)
    (fig,) = charts(at)
    names = {t.get("name") for t in fig["data"]}
    assert {"squared-error reduction", "second-order gain"} <= names
    assert fig["layout"]["shapes"]  # the chosen split
    at.selectbox(key="splits_node").set_value(1).run()
    assert_clean(at)
    at = open_clean(SPLITS_PAGE, round=100, split="hessian")
    assert round_of(at) == 100 and len(charts(at)) == 1


def test_splits_table_shows_a_dash_where_nothing_was_chosen():
    at = open_clean(SPLITS_PAGE, round=1)
    table = at.dataframe[0].value
    cells = [str(v) for v in table.to_numpy().ravel()]
    assert "None" not in cells and "nan" not in cells
    chosen = list(table["chosen by the tree"])
    # node 0 splits one feature: the other feature's rows show a dash
    assert "—" in chosen and any(c != "—" for c in chosen)
    assert all(float(c) for c in table["best gain"] if c != "—")
