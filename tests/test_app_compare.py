"""AppTest over the Compare page: every ready-made pair fits both sides on the same data."""

import pytest

from apptest_helpers import (ROUNDS, assert_clean, charts, new_app, open_page, page_text,
                             unescape)
from explorer.state import COMPARISONS


def open_compare(pair="lr", **query):
    at = new_app(**query)
    at.switch_page("pages/compare.py")
    at.run()
    if pair != "lr":
        at.selectbox(key="pair").set_value(pair).run()
    return at


@pytest.mark.parametrize("pair", list(COMPARISONS))
def test_every_pair_draws_two_maps_and_the_curves(warm_engine, pair):
    at = open_compare(pair=pair, round=7)
    assert_clean(at)
    assert not at.error
    specs = charts(at)
    titles = [spec["layout"]["title"]["text"] for spec in specs]
    assert len(specs) == 3 and "by round" in titles[-1]  # the Sweep page's curves, of two
    assert "round 7" in titles[-1]


def test_the_outlier_pair_says_labels_are_flipped_and_fits_the_flipped_data(warm_engine):
    at = open_compare(pair="outliers", round=20)
    assert_clean(at)
    assert any("labels are flipped" in c.value for c in at.caption)
    specs = charts(at)
    legend = " ".join(trace.get("name", "") for trace in specs[-1]["data"])
    assert "exponential loss" in legend and "log-loss" in legend


def test_compare_on_a_regression_offers_its_pairs_and_says_when_sides_agree():
    at = open_page("pages/compare.py", data="sine", round=5, pair="outliers")
    assert_clean(at)
    assert list(at.selectbox(key="pair").options) == [
        "learning rate 1.0 against 0.1", "depth 1 against depth 3",
        "Newton leaves against mean leaves"]
    at.selectbox(key="pair").set_value("leafrule").run()
    assert_clean(at)
    assert "the two sides are the same fit" in page_text(at)
    a, b = charts(at)[:2]
    assert a["data"] == b["data"]  # Newton and mean leaves: one fit, drawn twice


def test_the_compare_page_sets_two_three_class_fits_side_by_side():
    at = open_page("pages/compare.py", data="spiral", rounds=ROUNDS, round=3, n=150)
    assert_clean(at)
    figs = charts(at)
    assert sum("the most probable class" in f["layout"]["title"]["text"] for f in figs) == 2
    at.selectbox(key="pair").set_value("leafrule").run()
    assert not at.exception  # mean leaves are for two classes: a message, not a crash
    assert at.error and "leave leaf='newton'" in unescape(at.error[0].value)
