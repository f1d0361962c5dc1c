"""explorer.app.figure_cache: sessions on one view share its figures; the cache is
bounded, names only what it can, and gives every thread its own figure."""

from __future__ import annotations

import random
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from explorer.figures import pages


def test_sessions_on_one_view_share_its_figures(warm_engine, monkeypatch):
    """The figure cache: a second session at the same view and fit gets the first
    session's figures without drawing them; another round draws nothing (the charts
    follow the round: their template and tables are the same at every round, byte for
    byte); another selected sample or presenter mode draws its own (every input of a
    figure is in its key). A new fit of many rounds has its charts drawn twice: at the
    State's round at once, then as their templates (round 1) in the run that brings their
    bindings (component.bind_later)."""
    from explorer.app import component, figure_cache
    from apptest_helpers import assert_clean, chart_payloads, open_page

    cache = component._figures()
    cache.clear()
    drawn = []
    build = figure_cache.build
    monkeypatch.setattr(figure_cache, "build",
                        lambda draw, *rest: drawn.append(draw.__qualname__) or build(draw, *rest))

    def visit(**query):
        # a data seed no other test uses: a fit new to this process, whatever ran before;
        # few enough rounds that its charts are bound at once
        query.setdefault("rounds", component.LATER_ROUNDS)
        at = open_page("pages/model.py", data="circles", dseed=23, **query)
        assert_clean(at)
        return [p["figure"] for p in chart_payloads(at)]

    first = visit(round=7)
    assert sorted(drawn) == ["model_view", "residual_map"]
    assert visit(round=7) == first and len(drawn) == 2  # served from the cache
    assert visit(round=8) == first and len(drawn) == 2  # the same bytes at every round
    other = visit(round=7, sample=5)
    assert len(drawn) == 4 and other != first and "sample #5" in other[0]
    visit(round=7, present="true")
    assert len(drawn) == 6 and len(cache) == 6
    # a fit of more than LATER_ROUNDS rounds: its charts drawn at once at the State's
    # round, then as their templates (round 1) in the run that brings their bindings
    visit(round=7, rounds=component.LATER_ROUNDS + 1)
    assert len(drawn) == 10


def test_the_figure_cache_is_bounded_and_names_only_what_it_can(warm_engine):
    from explorer import figures, fit
    from explorer.numbers.grid import make_grid
    from explorer.app.figure_cache import FigureCache, name

    X = np.random.default_rng(0).normal(size=(60, 2))
    tr = fit(X, (X[:, 0] > 0).astype(float), n_rounds=6)
    grid = make_grid(tr, resolution=20)
    cache = FigureCache(max_entries=4, max_bytes=10**9)
    # an unnamed trace cannot be a key: drawn every time, never stored
    for _ in range(2):
        cache.draw(figures.curves, (tr, 3), {})
    assert cache.builds == 2 and len(cache) == 0
    name(tr, "fit-a")
    name(grid, "fit-a|grid")
    direct = pages.figure_json(figures.residual_map, (tr, 3, grid), dict(sample=1))[0]
    assert cache.draw(figures.residual_map, (tr, 3, grid), dict(sample=1)).json == direct
    for m in range(6):  # entries: the oldest go first
        cache.draw(figures.curves, (tr, m), {})
    assert len(cache) == 4 and cache.builds == 2 + 1 + 6
    cache.draw(figures.curves, (tr, 5), {})  # still held
    assert cache.builds == 9
    cache.draw(figures.curves, (tr, 0), {})  # evicted
    assert cache.builds == 10
    # bytes: a cache that holds about two of these figures holds two
    size = len(cache.draw(figures.curves, (tr, 1), {}).json)
    small = FigureCache(max_entries=100, max_bytes=int(size * 2.5))
    for m in range(6):
        small.draw(figures.curves, (tr, m), {})
    assert len(small) == 2 and small.nbytes <= small.max_bytes


def test_the_figure_cache_from_many_threads_gives_each_call_its_own_figure(warm_engine):
    """Sessions run in threads: 16 threads asking at once for 8 rounds (each round by two
    threads) each get exactly the figure their call draws, and each is drawn once: a
    thread asking for a round another is drawing waits for it."""
    from explorer import figures, fit
    from explorer.numbers.grid import make_grid
    from explorer.app.figure_cache import FigureCache, name

    X = np.random.default_rng(1).normal(size=(200, 2))
    tr = name(fit(X, (X[:, 0] * X[:, 1] > 0).astype(float), n_rounds=8), "threads")
    grid = name(make_grid(tr, resolution=30), "threads|grid")
    expected = {m: pages.figure_json(figures.residual_map, (tr, m, grid), {})[0]
                for m in range(1, 9)}
    cache = FigureCache()
    rounds = [1 + k % 8 for k in range(16)]
    random.Random(0).shuffle(rounds)
    with ThreadPoolExecutor(16) as pool:
        got = list(pool.map(lambda m: cache.draw(figures.residual_map, (tr, m, grid), {}).json,
                            rounds))
    assert all(json_text == expected[m] for m, json_text in zip(rounds, got))
    assert len(cache) == 8 and cache.builds == 8


def _slow_figure(m):
    """A draw function for the builder below (only its name and arguments are used)."""


def test_a_session_asking_for_a_figure_being_drawn_waits_for_it_and_an_error_is_each_ones():
    import threading
    from explorer.app.figure_cache import Drawn, FigureCache

    release, started, calls = threading.Event(), threading.Event(), []

    def builder(draw, args, kwargs, present):
        calls.append(args)
        started.set()
        release.wait(10)
        if args == (2,):
            raise ValueError("no figure at round 2")
        return Drawn(f"round {args[0]}", None, None)

    cache = FigureCache(builder=builder)
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(cache.draw, _slow_figure, (1,), {})
        assert started.wait(10)
        second = pool.submit(cache.draw, _slow_figure, (1,), {})
        time.sleep(0.3)  # the second asks while the first draws (drawing itself, it'd call)
        release.set()
        assert first.result(10) is second.result(10)
    assert calls == [(1,)] and cache.builds == 1
    # a figure whose drawing raised: each session asking for it tries and gets the error
    release.clear()
    with ThreadPoolExecutor(2) as pool:
        started.clear()
        first = pool.submit(cache.draw, _slow_figure, (2,), {})
        assert started.wait(10)
        second = pool.submit(cache.draw, _slow_figure, (2,), {})
        release.set()
        for future in (first, second):
            with pytest.raises(ValueError, match="round 2"):
                future.result(10)
    assert calls.count((2,)) == 2 and len(cache) == 1
