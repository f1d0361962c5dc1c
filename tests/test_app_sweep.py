"""The Sweep page through AppTest: its sentence and heat map against scikit-learn's
staged losses on the page's validation points, computed here; bad sweeps said, the page
still drawn; the limits."""

import json
import re

import numpy as np
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor
from sklearn.metrics import log_loss

from apptest_helpers import assert_clean, chart_payloads, charts, open_page
from explorer import dataset
from explorer.state import State

PAGE = "pages/sweep.py"


def _info(at) -> str:
    return " ".join(i.value for i in at.info).replace("\\", "")


def _reference(query, cells):
    """(label, best round, its validation loss, train loss there) of the best cell, by
    scikit-learn's staged losses; ``cells``: (label, its settings)."""
    state = State.from_query(query)
    made = dataset.make(state)
    Xt, yt, Xv, yv = made.train.X, made.train.y, made.valid.X, made.valid.y
    found = []
    for label, s in cells:
        if state.is_regression:
            model = GradientBoostingRegressor(n_estimators=state.rounds, random_state=0, **s)
            model.fit(Xt, yt)
            half = lambda y, p: 0.5 * np.mean((y - p) ** 2)  # noqa: E731
            valid = [half(yv, np.full(len(yv), yt.mean()))] + [
                half(yv, p) for p in model.staged_predict(Xv)]
            train = [half(yt, np.full(len(yt), yt.mean()))] + [
                half(yt, p) for p in model.staged_predict(Xt)]
        else:
            model = GradientBoostingClassifier(n_estimators=state.rounds, random_state=0, **s)
            model.fit(Xt, yt)
            prior = np.bincount(yt.astype(int)) / len(yt)
            labels = list(range(len(prior)))

            def staged(X, y):
                return [log_loss(y, np.tile(prior, (len(y), 1)), labels=labels)] + [
                    log_loss(y, p, labels=labels) for p in model.staged_predict_proba(X)]
            valid, train = staged(Xv, yv), staged(Xt, yt)
        m = int(np.argmin(valid))
        found.append((valid[m], label, m, train[m]))
    best = min(found, key=lambda f: f[0])  # min keeps the first of equal losses
    return best[1], best[2], best[0], best[3]


def _said(at):
    match = re.search(r"Best: (.+), at round (\d+), validation [\w-]+ ([\d.]+) \(train "
                      r"([\d.]+)\)", _info(at))
    assert match, _info(at)
    return match.group(1), int(match.group(2)), float(match.group(3)), float(match.group(4))


def test_two_settings_the_sentence_and_the_heat_map_agree_with_scikit_learn():
    query = dict(sweep="lr:0.2,1", sweep2="depth:1,4", rounds=40, noise=0.4, round=7)
    at = open_page(PAGE, **query)
    assert_clean(at)
    label, m, valid, train = _said(at)
    ref = _reference(query, [(f"ν = {lr:g}, depth {d}", dict(learning_rate=lr, max_depth=d))
                             for d in (1, 4) for lr in (0.2, 1.0)])
    assert (label, m) == ref[:2]
    assert valid == round(ref[2], 4) and train == round(ref[3], 4)
    figures = {p["view"]: f for p, f in zip(chart_payloads(at), charts(at))}
    assert sorted(figures) == ["sweep_0_0", "sweep_0_1", "sweep_1_0", "sweep_1_1",
                               "sweep_curves", "sweep_heat"]
    heat = figures["sweep_heat"]
    rect = heat["layout"]["shapes"][0]  # the best cell, outlined
    row, col = round(rect["y0"] + 0.5), round(rect["x0"] + 0.5)
    assert f'{heat["data"][0]["x"][col]}, {heat["data"][0]["y"][row]}' == label
    best = np.array(heat["data"][1]["z"], dtype=float)
    assert best[row, col] == np.nanmin(best)
    # each cell's title: its values and its validation loss at the round on screen
    assert "ν = 0.2, depth 1" in figures["sweep_0_0"]["layout"]["title"]["text"]
    assert figures["sweep_0_0"]["layout"]["title"]["subtitle"]["text"].startswith(
        "validation 0.") and "at round 7" in \
        figures["sweep_0_0"]["layout"]["title"]["subtitle"]["text"]


def test_three_classes_and_regression_name_their_best_cell():
    query = dict(data="blobs", sweep="depth:1,3", rounds=25)
    at = open_page(PAGE, **query)
    assert_clean(at)
    assert _said(at)[:2] == _reference(query, [(f"depth {d}", dict(max_depth=d))
                                              for d in (1, 3)])[:2]
    query = dict(data="sine", sweep="lr:0.1,0.5", rounds=30)
    at = open_page(PAGE, **query)
    assert_clean(at)
    label, m, valid, _ = _said(at)
    ref = _reference(query, [(f"ν = {lr:g}", dict(learning_rate=lr)) for lr in (0.1, 0.5)])
    assert (label, m) == ref[:2] and valid == round(ref[2], 4)


def test_bad_sweeps_are_named_and_the_page_is_drawn():
    at = open_page(PAGE, sweep="bins:4,16", sweep2="depth:1,zzz,3", rounds=10)
    assert_clean(at)
    notes = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "do not use the max bins" in notes and "'zzz' is not a value" in notes
    assert [p["view"] for p in chart_payloads(at)][:2] == ["sweep_0_0", "sweep_0_1"]


def test_no_validation_share_no_curves_named():
    at = open_page(PAGE, sweep="lr:0.1,1", valid=0, rounds=10)
    assert_clean(at)
    assert "No validation points" in _info(at)
    assert "sweep_heat" not in [p["view"] for p in chart_payloads(at)]


def test_past_the_limit_says_which_setting_to_reduce():
    at = open_page(PAGE, sweep="n:2000,3000,4000", sweep2="lr:0.1,0.2,0.3,0.4,0.5",
                   rounds=500)
    assert_clean(at, errors_allowed=True)
    assert "Reduce the rounds, the points, or the values swept" in " ".join(
        e.value for e in at.error).replace("\\", "")


def test_the_lesson_file_holds_every_cell():
    at = open_page(PAGE, sweep="lr:0.1,1", rounds=10)
    at.button(key="lesson_make").click().run()
    assert_clean(at)
    html = at.session_state["_lesson_file"][2].decode("utf-8")  # what the download gives
    data = json.loads(re.search(r'id="lesson-data">(.*?)</script>', html, re.S).group(1))
    assert len(data["records"]) == 2  # each cell's own
    assert [c["view"] for c in data["charts"]] == ["sweep_0_0", "sweep_0_1", "sweep_curves"]


def test_past_the_pages_budget_charts_step_through_the_server(monkeypatch):
    from explorer.app import component
    at = open_page(PAGE, sweep="lr:0.1,0.5,1", rounds=20)
    sizes = {p["view"]: len(json.dumps(p["step"])) for p in chart_payloads(at)}
    assert all(p["step"] is not None for p in chart_payloads(at))
    # room for the page's record and about two of its charts: the rest go by the server
    monkeypatch.setattr(component, "PAGE_BYTES", 3 * max(sizes.values()))
    at = open_page(PAGE, sweep="lr:0.1,0.5,1", rounds=20)
    assert_clean(at)
    stepped = [p["view"] for p in chart_payloads(at) if p["step"] is not None]
    assert 0 < len(stepped) < len(sizes)
    assert any("the page's charts pass what the browser is sent for one page" in c.value
               for c in at.caption)
