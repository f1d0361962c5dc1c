"""Ready-made lessons: each opens its page without an error at rounds 0, 1 and M, says
what it shows with the numbers of the fit on screen, and is a link."""

from __future__ import annotations

import math

import numpy as np
import pytest

from apptest_helpers import assert_clean, new_app, open_page, unescape
from explorer import fit
from explorer.data import make_toy, split
from explorer.lessons import LESSONS
from explorer.state import State


def lesson_app(key: str, m: int | None = None):
    lesson = LESSONS[key]
    query = dict(lesson.settings, lesson=key)
    if m is not None:
        query["round"] = m
    return open_page(f"pages/{lesson.page}.py", **query)  # as its link opens it


def info_text(at) -> str:
    return unescape(" ".join(i.value for i in at.info))


@pytest.mark.parametrize("key", sorted(LESSONS))
def test_every_lesson_opens_at_rounds_0_1_and_the_last(warm_engine, key):
    rounds = State.from_query({k: str(v) for k, v in LESSONS[key].settings.items()}).rounds
    for m in (0, 1, rounds):
        at = lesson_app(key, m)
        assert_clean(at)
        assert f"Lesson: {LESSONS[key].title}" in info_text(at)


def test_the_imbalance_lesson_states_f0_from_the_fit(warm_engine):
    s = State.from_query({k: str(v) for k, v in LESSONS["imbalance"].settings.items()})
    train, _ = split(make_toy(s.data, n=s.n, noise=s.noise, balance=s.balance, seed=s.dseed),
                     s.valid, s.dseed)
    n_pos = int(train.y.sum())
    f0 = math.log(n_pos / (len(train.y) - n_pos))
    text = info_text(lesson_app("imbalance"))
    assert f"log({n_pos}/{len(train.y) - n_pos}) = {f0:.4f}" in text


def test_the_overfitting_lesson_names_the_best_validation_round(warm_engine):
    s = State.from_query({k: str(v) for k, v in LESSONS["overfit"].settings.items()})
    train, valid = split(make_toy(s.data, n=s.n, noise=s.noise, seed=s.dseed), s.valid, s.dseed)
    trace = fit(train.X, train.y, X_valid=valid.X, y_valid=valid.y, **s.fit_params())
    best = int(np.argmin(trace.valid_loss))
    assert best < s.rounds and trace.valid_loss[-1] > trace.valid_loss[best]  # it turns up
    assert f"lowest at round {best} ({trace.valid_loss[best]:.4f})" in info_text(
        lesson_app("overfit"))


def test_the_overfitting_lesson_opens_at_its_best_round(warm_engine):
    from apptest_helpers import round_of
    from explorer.best_round import best_round
    s = State.from_query({"lesson": "overfit"})
    train, valid = split(make_toy(s.data, n=s.n, noise=s.noise, seed=s.dseed), s.valid, s.dseed)
    trace = fit(train.X, train.y, X_valid=valid.X, y_valid=valid.y, **s.fit_params())
    assert s.round == best_round(trace).round
    assert f"lowest at round {s.round} ({best_round(trace).valid:.4f})" in \
        LESSONS["overfit"].caption(trace)  # the caption's argmin is the helper's
    at = new_app().run()
    at.button(key="lesson_overfit").click().run()
    assert_clean(at)
    assert round_of(at) == best_round(trace).round


def test_the_max_bins_lesson_sets_4_bins_on_histogram_trees(warm_engine):
    s = State.from_query({"lesson": "bins"})
    assert (s.split, s.bins, s.leaves, s.minleaf) == ("histogram", 4, 31, 20)
    train, _ = split(make_toy(s.data, n=s.n, noise=s.noise, seed=s.dseed), s.valid, s.dseed)
    trace = fit(train.X, train.y, **s.fit_params())
    assert [len(t) for t in trace.bin_thresholds] == [3, 3]
    cut = {float(t) for t in trace.bin_thresholds[0]} | {float(t) for t in
                                                         trace.bin_thresholds[1]}
    for m in range(1, trace.n_rounds + 1):  # every split on the lattice
        tree = trace.tree(m)
        assert {float(t) for t in tree["threshold"][tree["left"] >= 0]} <= cut
    caption = LESSONS["bins"].caption(trace)
    assert "x1 is cut at 3 thresholds and x2 at 3" in caption and "255" in caption
    # the sidebar's button opens it over the histogram rule's defaults, as its link does
    at = new_app().run()
    at.button(key="lesson_bins").click().run()
    assert_clean(at)
    got = State.from_query({k: at.query_params[k] for k in at.query_params})
    assert got == s and got.is_lesson


def test_a_lesson_button_sets_the_lesson_and_its_page(warm_engine):
    at = new_app().run()
    at.button(key="lesson_xor").click().run()
    assert_clean(at)
    assert at.query_params["lesson"] == "xor" and at.query_params["data"] == "xor"
    assert "Lesson: XOR needs depth 2" in info_text(at)
    assert "depth 1" in info_text(at)


def test_the_outlier_lesson_weighs_the_flipped_point_as_the_fits_do(warm_engine):
    from explorer.data import deepest_row, flip_labels
    s = State.from_query({k: str(v) for k, v in LESSONS["outlier"].settings.items()})
    train, _ = split(make_toy(s.data, n=s.n, noise=s.noise, seed=s.dseed), s.valid, s.dseed)
    i = deepest_row(train)
    flipped = flip_labels(train, "deepest")
    (_, a), (_, b), _ = s.compared()
    exp = fit(flipped.X, flipped.y, **b.fit_params())
    weight = abs(exp.residual(s.round)[i])
    text = info_text(lesson_app("outlier", s.round))
    assert f"point #{i}" in text and f"e^(−ỹF) = {weight:.3g}" in text


# --- a lesson is its settings: a short link opens it, leaving its settings ends it ---------

from explorer.state import FIELDS  # noqa: E402


def _other_value(field, value):
    """Another valid value of ``field`` than ``value``."""
    if field.choices is not None:
        return next(c for c in field.choices if c != value)
    if field.kind is bool:
        return not value
    if field.kind is str:
        return None
    step = field.step or 1
    up = value + step
    return up if field.high is None or up <= field.high else value - step


@pytest.mark.parametrize("key", sorted(LESSONS))
def test_changing_any_data_or_fit_setting_ends_the_lesson(key):
    state = State.from_query({"lesson": key})
    assert state.is_lesson and state.lesson == key
    for f in FIELDS:
        other = _other_value(f, getattr(state, f.key))
        if other is None or f.key == "lesson":
            continue
        changed = state.changed(**{f.key: other})
        if getattr(changed, f.key) == getattr(state, f.key):
            continue  # not a change this state allows (a regression's split, say)
        ends = f.group in ("data", "fit") or (f.key == "pair" and LESSONS[key].page == "compare")
        assert (changed.lesson == "") == ends, (key, f.key, other)
        assert ("lesson" in changed.to_query()) == (not ends)
        # a link naming that field over the lesson is the lesson only if it stays one
        linked = State.from_query({"lesson": key, f.key: f.format(other)})
        assert (linked.lesson == "") == ends, (key, f.key, other)


@pytest.mark.parametrize("key", sorted(LESSONS))
def test_a_short_lesson_link_opens_its_page_with_its_settings(warm_engine, key):
    lesson = LESSONS[key]
    at = new_app(lesson=key).run()
    assert_clean(at)
    assert f"Lesson: {lesson.title}" in info_text(at)  # the caption shows on its page only
    want = State.from_mapping(dict(lesson.settings, lesson=key))
    got = State.from_query({k: at.query_params[k] for k in at.query_params})
    assert got == want, (got, want)


def test_a_link_that_departs_from_the_lesson_shows_no_caption(warm_engine):
    at = open_page("pages/curves.py", lesson="overfit", depth=1)
    assert_clean(at)
    assert "Lesson:" not in info_text(at) and "lesson" not in at.query_params


def test_changing_a_setting_in_the_sidebar_ends_the_lesson_and_stepping_does_not(warm_engine):
    at = new_app(lesson="imbalance").run()
    assert "Lesson:" in info_text(at)
    at.slider(key="round").set_value(3).run()
    assert_clean(at)
    assert "Lesson:" in info_text(at) and at.query_params["lesson"] == "imbalance"
    at.slider(key="balance").set_value(0.5).run()
    assert_clean(at)
    assert "Lesson:" not in info_text(at) and "lesson" not in at.query_params


def test_on_compare_changing_the_pair_ends_the_lesson(warm_engine):
    at = new_app(lesson="xor").run()
    assert_clean(at)
    assert "Lesson: XOR needs depth 2" in info_text(at)
    at.slider(key="round").set_value(10).run()
    assert "Lesson: XOR needs depth 2" in info_text(at)  # stepping keeps it
    at.selectbox(key="pair").set_value("lr").run()
    assert_clean(at)
    assert "Lesson:" not in info_text(at) and "lesson" not in at.query_params


def _sweep_fits(key):
    """The fits of a sweep lesson's cells, made here from its settings."""
    from explorer import dataset
    from explorer.sweep import plan
    s = State.from_query({k: str(v) for k, v in LESSONS[key].settings.items()})
    made = dataset.make(s)
    return [(cell, fit(made.train.X, made.train.y, X_valid=made.valid.X, y_valid=made.valid.y,
                       **cell.state.fit_params())) for cell in plan(s).cells]


def test_the_sweep_lessons_state_each_cells_lowest_validation_loss(warm_engine):
    fits = _sweep_fits("slow")
    text = info_text(lesson_app("slow"))
    lowest = {}
    for cell, trace in fits:
        m = int(np.argmin(trace.valid_loss))  # the first of equal minima
        lowest[cell.state.lr, cell.state.leaves] = (m, trace.valid_loss[m])
        assert f"ν = {cell.state.lr:g} at round {m} ({trace.valid_loss[m]:.4f})" in text
    # ESL's figure 10.11 holds on this data: ν 0.1 later and lower, for both tree sizes
    for leaves in (2, 6):
        assert lowest[0.1, leaves][0] > lowest[1.0, leaves][0]
        assert lowest[0.1, leaves][1] < lowest[1.0, leaves][1]
    assert "more rounds in both pairs and reaches the lower minimum in both pairs" in text
    fits = _sweep_fits("subsample")
    text = info_text(lesson_app("subsample"))
    (full_cell, full), (half_cell, half) = fits
    assert (full_cell.state.subsample, half_cell.state.subsample) == (1.0, 0.5)
    for cell, trace in fits:
        m = int(np.argmin(trace.valid_loss))
        assert f"subsample {cell.state.subsample:g} at round {m} ({trace.valid_loss[m]:.4f})" \
            in text
    assert half.valid_loss.min() < full.valid_loss.min()
    assert "a subsample (0.5) reaches a lower minimum than the full sample here" in text


# --- the first lecture's lessons: each caption's numbers computed again here ------------

def _lesson_fit(key):
    s = State.from_query({"lesson": key})
    train, valid = split(make_toy(s.data, n=s.n, noise=s.noise, balance=s.balance,
                                  seed=s.dseed), s.valid, s.dseed)
    trace = fit(train.X, train.y, X_valid=None if valid is None else valid.X,
                y_valid=None if valid is None else valid.y, **s.fit_params())
    return s, trace, LESSONS[key].caption(trace)


def _p(F):
    return 1.0 / (1.0 + np.exp(-np.asarray(F, dtype=float)))


def test_the_first_lectures_captions_are_true_at_their_rounds(warm_engine):
    # the residuals: y − σ(F₁) at the training points, and tree 2's root split
    s, trace, text = _lesson_fit("residuals")
    assert s.round == 1 and LESSONS["residuals"].page == "model"
    r = trace.y - _p(trace.raw[1])
    r0 = trace.y - _p(trace.raw[0])
    root = trace.tree(2)[0]
    assert f"run from {r.min():.3f} to {r.max():.3f}" in text
    assert f"point #{int(np.argmax(np.abs(r)))} ({r[np.argmax(np.abs(r))]:+.3f})" in text
    assert f"from {np.abs(r0).mean():.3f} at round 0 to {np.abs(r).mean():.3f}" in text
    assert f"x{int(root['feature']) + 1} ≤ {float(root['threshold']):.3f}" in text

    # one tree's Newton leaf: the largest leaf's Σ(y − p) / Σ p(1 − p) from round 0's p
    s, trace, text = _lesson_fit("newton")
    assert s.round == 1 and LESSONS["newton"].page == "tree"
    p0 = _p(trace.raw[0])
    leaves = [j for j in range(len(trace.tree(1))) if trace.tree(1)["left"][j] < 0]
    leaf = max(leaves, key=lambda j: (np.sum(trace.leaf[1] == j), -j))
    inside = trace.leaf[1] == leaf
    sum_r, sum_h = np.sum(trace.y[inside] - p0[inside]), np.sum(p0[inside] * (1 - p0[inside]))
    gamma = sum_r / sum_h
    assert f"{len(leaves)} regions" in text and f"leaf {leaf} with {inside.sum()} " in text
    assert f"Σr = {sum_r:.4f}" in text and f"Σh = {sum_h:.4f}" in text
    assert f"= {gamma:.4f}, and every point in the box moves by ν·γ = 0.1 × {gamma:.4f} = " \
           f"{0.1 * gamma:.4f}" in text

    # F₃ = F₂ + ν·γ for sample 0: F₃ from the trees' values alone, f₀ and each round's leaf
    s, trace, text = _lesson_fit("update")
    assert (s.round, s.sample) == (3, 0)
    F = trace.f0 + 0.1 * sum(trace.tree(m)["value"][trace.leaf[m][0]] for m in (1, 2))
    gamma = trace.tree(3)["value"][trace.leaf[3][0]]
    assert f"F₂ = {F:.4f}" in text and f"γ = {gamma:.4f}" in text
    assert f"= {F + 0.1 * gamma:.4f}, and p = σ(F₃) = {_p(F + 0.1 * gamma):.4f}" in text

    # the boundary over rounds: training accuracy of p > 0.5 at rounds 1, 5, 20 and 100
    s, trace, text = _lesson_fit("boundary")
    assert s.round == 1
    for m in (1, 5, 20, 100):
        accuracy = np.mean((trace.raw[m] > 0) == (trace.y == 1))
        assert f"{accuracy:.0%} after round {m}" in text

    # multiclass: K trees a round, their leaves, f₀ as the centred log shares
    s, trace, text = _lesson_fit("multiclass")
    assert s.round == 1 and trace.n_classes == 3
    shares = np.bincount(trace.y.astype(int), minlength=3) / len(trace.y)
    f0 = np.log(shares) - np.log(shares).mean()
    for k in range(3):
        assert f"{int(np.sum(trace.tree(1, k)['left'] < 0))} leaves (k = {k})" in text
    assert "f₀ = (" + ", ".join(f"{v:.3f}" for v in f0) + ")" in text

    # histogram split finding: scikit-learn's own bin edges, the root's threshold among them
    from sklearn.ensemble._hist_gradient_boosting.binning import _BinMapper
    s, trace, text = _lesson_fit("histogram")
    assert s.round == 1 and s.bins == 16
    edges = _BinMapper(n_bins=s.bins + 1, random_state=0).fit(trace.X).bin_thresholds_
    root = trace.tree(1)[0]
    j, t = int(root["feature"]), float(root["threshold"])
    assert np.any(np.isclose(edges[j], t, rtol=0, atol=1e-12))
    assert f"x1 has {len(edges[0])} bin edges, x2 {len(edges[1])}" in text
    assert f"at edge {int(np.searchsorted(edges[j], t))}, x{j + 1} ≤ {t:.4f}" in text
    assert f"any two of its {len(np.unique(trace.X[:, j]))} values" in text
