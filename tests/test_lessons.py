"""Ready-made lessons: each opens its page without an error at rounds 0, 1 and M, says
what it shows with the numbers of the fit on screen, and is a link."""

from __future__ import annotations

import math

import numpy as np
import pytest

from apptest_helpers import assert_clean, new_app, unescape
from explorer import fit
from explorer.data import make_toy, split
from explorer.lessons import LESSONS
from explorer.state import State


def lesson_app(key: str, m: int | None = None):
    lesson = LESSONS[key]
    query = dict(lesson.settings, lesson=key)
    if m is not None:
        query["round"] = m
    at = new_app(**query).run()
    at.switch_page(f"pages/{lesson.page}.py")
    return at.run()


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
