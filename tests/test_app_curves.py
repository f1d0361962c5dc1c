"""The Curves page names the best round (AppTest): the chart's star with its round and
value, one sentence true for the fit, a "Go to round k" button, a log scale the link
carries; the Model page's tiles show the best round; with no validation points the page
says so instead."""

from __future__ import annotations

import json
import math

import pytest

from apptest_helpers import assert_clean, charts, open_page, round_of
from explorer.app import component
from explorer.best_round import best_round
from explorer.state import State
from explorer.text import number

CURVES, MODEL = "pages/curves.py", "pages/model.py"
OVERFIT = dict(n=300, noise=0.4, depth=6, lr=0.5, rounds=60, valid=0.3)


@pytest.fixture(autouse=True)
def _warm(warm_engine):
    """The app runs in this process: compile numba once first."""


def the_trace(at):
    """The fit on screen, as the chart's record names it."""
    step = [c for c in at.get("bidi_component") if c.proto.component_name == "explorer_chart"]
    payload = json.loads(step[0].proto.json)
    return component.fit_of(json.loads(payload["step"])["record"]).trace


def best_notes(fig) -> list[dict]:
    return [a for a in fig["layout"].get("annotations", [])
            if a.get("yref") == "y" and a.get("xref") == "x"]


def test_the_best_round_is_starred_said_and_one_click_away():
    at = open_page(CURVES, **OVERFIT)
    assert_clean(at)
    trace = the_trace(at)
    best = best_round(trace)
    assert 0 < best.round < trace.n_rounds
    fig = charts(at)[0]
    star, label = best_notes(fig)
    assert (star["x"], star["y"]) == (best.round, best.valid) and star["text"] == "★"
    assert label["text"] == f"best round {best.round}: {number(best.valid, 4)}"
    assert [m.value for m in at.markdown if m.value.startswith("★")] == [
        f"★ {best.sentence(trace.n_rounds)}"]
    at.button(key="goto_best").click().run()
    assert_clean(at)
    assert round_of(at) == best.round and at.query_params["round"] == str(best.round)
    assert at.button(key="goto_best").disabled  # already there


def test_the_sentence_is_true_for_the_fit():
    at = open_page(CURVES, **OVERFIT)
    trace = the_trace(at)
    v = trace.valid_loss
    k = int(min(range(len(v)), key=lambda i: (v[i], i)))
    text = best_round(trace).sentence(trace.n_rounds)
    assert f"lowest at round {k} ({v[k]:.4g})" in text
    assert f"by round {trace.n_rounds} it has risen by {v[-1] - v[k]:.3g}" in text


def test_a_log_scale_for_the_loss_that_the_link_carries():
    at = open_page(CURVES, **OVERFIT)
    at.toggle(key="logscale").set_value(True).run()
    assert_clean(at)
    assert at.query_params["logscale"] == "true"
    fig = charts(at)[0]
    assert fig["layout"]["yaxis"]["type"] == "log"
    trace = the_trace(at)
    best = best_round(trace)
    star = best_notes(fig)[0]
    assert star["y"] == pytest.approx(math.log10(best.valid))  # plotly places by log10
    linked = open_page(CURVES, **OVERFIT, logscale="true")
    assert charts(linked)[0]["layout"]["yaxis"]["type"] == "log"
    assert State.from_query({"logscale": "true"}).to_query() == {"logscale": "true"}


def test_the_model_pages_tiles_show_the_best_round():
    at = open_page(MODEL, **OVERFIT, round=10)
    assert_clean(at)
    tiles = {m.label: m.value for m in at.metric}
    best = best_round(the_trace(at))
    assert tiles["Best round"] == str(best.round)
    assert tiles["Train loss"] == f"{the_trace(at).train_loss[10]:.4f}"  # round 10's beside


@pytest.mark.parametrize("page", [CURVES, MODEL])
def test_no_validation_share_no_best_round_and_the_page_says_so(page):
    at = open_page(page, valid=0)
    assert_clean(at)
    assert {m.label: m.value for m in at.metric}["Best round"] == "–"
    if page == CURVES:
        assert not best_notes(charts(at)[0])
        assert any("no best round" in c.value for c in at.caption)
        assert not [b for b in at.button if b.key == "goto_best"]
