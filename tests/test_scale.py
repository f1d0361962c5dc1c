"""Many users at once: concurrent fits are correct, and a short load run holds.

* Fits of different settings run from many threads at once (as Streamlit runs each
  session's script in its own thread, and the numba kernels release the GIL) give
  exactly the fits run one by one.
* A short load run of ``benchmarks/load.py`` (sessions speaking Streamlit's WebSocket
  protocol to a server this test starts) has no failed session, and the server fits
  each distinct setting once for everyone.
"""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from benchmarks import load
from conftest import run_async

# Twelve settings that exercise every path of the engine: both losses, depth-first and
# best-first trees, subsampling, several seeds and a validation set.
SETTINGS = [
    dict(loss=loss, learning_rate=lr, max_depth=depth, max_leaves=leaves,
         min_samples_leaf=minleaf, subsample=subsample, random_state=seed)
    for loss, lr, depth, leaves, minleaf, subsample, seed in [
        ("log_loss", 0.1, 3, None, 1, 1.0, 0),
        ("log_loss", 0.3, 2, None, 5, 0.8, 1),
        ("log_loss", 0.5, 4, 6, 1, 1.0, 2),
        ("log_loss", 0.05, 5, None, 10, 0.5, 3),
        ("log_loss", 0.2, 3, 4, 2, 0.9, 4),
        ("log_loss", 1.0, 1, None, 1, 1.0, 5),
        ("exponential", 0.1, 3, None, 1, 1.0, 0),
        ("exponential", 0.3, 2, 3, 3, 0.7, 6),
        ("exponential", 0.5, 4, None, 1, 0.8, 7),
        ("exponential", 0.05, 6, 8, 2, 1.0, 8),
        ("exponential", 0.2, 3, None, 20, 0.6, 9),
        ("exponential", 0.8, 2, None, 1, 1.0, 10),
    ]
]


@pytest.fixture(scope="module")
def data():
    from explorer.data import make_toy, split
    return split(make_toy("moons", n=500, noise=0.3, seed=3), 0.2, 3)


def run_fit(data, setting):
    from explorer import fit
    train, valid = data
    return fit(train.X, train.y, n_rounds=40, X_valid=valid.X, y_valid=valid.y, **setting)


def same_array(a, b) -> bool:
    """Equal shape, dtype and values (NaN equal to NaN, field by field for records)."""
    if a is None or b is None:
        return a is None and b is None
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.names:
        return all(same_array(a[name], b[name]) for name in a.dtype.names)
    return np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


def test_concurrent_fits_equal_serial_fits(warm_engine, data):
    serial = [run_fit(data, s) for s in SETTINGS]
    # Every setting three times, shuffled, on 8 threads: neighbours in time differ.
    jobs = [i for i in range(len(SETTINGS)) for _ in range(3)]
    random.Random(0).shuffle(jobs)
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda i: (i, run_fit(data, SETTINGS[i])), jobs))
    assert len(results) == 3 * len(SETTINGS)
    for i, trace in results:
        ref = serial[i]
        where = f"setting {i}: {SETTINGS[i]}"
        assert trace.f0 == ref.f0, where
        assert same_array(trace.raw, ref.raw), where
        assert same_array(trace.nodes, ref.nodes), where
        assert same_array(trace.offsets, ref.offsets), where
        assert same_array(trace.leaf, ref.leaf), where
        assert same_array(trace.in_bag, ref.in_bag), where
        assert same_array(trace.valid_raw, ref.valid_raw), where
    # The settings really differ, so a swapped result would have been caught.
    assert len({serial[i].raw.tobytes() for i in range(len(SETTINGS))}) == len(SETTINGS)


@pytest.fixture(scope="module")
def load_server(tmp_path_factory, warm_engine):
    """An app server started by the load harness (it logs the process's fit count)."""
    server = load.start_server(tmp_path_factory.mktemp("load") / "server.log")
    yield server
    server.stop()


def test_short_load_run_has_no_failure_and_fits_each_setting_once(load_server):
    run_async(load._warm(load_server.url))  # the engine warm-up and the default fit
    before = load_server.fits()
    result = run_async(load.run_level(load_server.url, 5, 6.0, think=0.15,
                                        param_share=0.3, seed=1, rss=load_server.rss))
    fits = load_server.fits() - before + 1  # + the default setting, fitted by the warm-up
    assert result.failed == []
    # Every session loaded, stepped rounds (each step checked: the page showed the round
    # asked for) and changed parameters (checked: the page showed the setting asked for).
    steps = [r for r in result.runs if r.kind == "step"]
    fulls = [r for r in result.runs if r.kind == "full"]
    assert len([r for r in result.runs if r.kind == "load"]) == 5
    # (Loose bounds: how many actions fit in 6 s depends on the machine's load.)
    assert len(steps) >= 5 and len(fulls) >= 2, (len(steps), len(fulls))
    assert len(result.settings) >= 2
    assert fits == len(result.settings), (fits, sorted(result.settings))
    assert 0 < result.peak_rss < 1.5 * 2**30


def test_sessions_on_the_same_setting_share_one_fit(load_server):
    """Eight sessions asking for the same new setting at once cause one fit."""
    run_async(load._warm(load_server.url))
    before = load_server.fits()

    async def one():
        session = load.Session(load_server.url)
        await session.open()
        try:
            await session.load()
            run = await session.set_param("lr", 0.37)
            return load.shown_setting(run.caption)
        finally:
            await session.close()

    async def all_at_once():
        return await asyncio.gather(*(one() for _ in range(8)))

    shown = run_async(all_at_once())
    assert shown == [(0.37, 3)] * 8
    assert load_server.fits() - before == 1


def test_sessions_on_one_view_share_its_figures(warm_engine, monkeypatch):
    """The figure cache: a second session at the same view, fit and round gets the first
    session's figures without drawing them; another round, another selected sample or
    presenter mode draws its own (every input of a figure is in its key)."""
    from explorer.app import component, figure_cache
    from test_app import assert_clean, chart_payloads, open_page

    cache = component._figures()
    cache.clear()
    drawn = []
    build = figure_cache.build
    monkeypatch.setattr(figure_cache, "build",
                        lambda draw, *rest: drawn.append(draw.__qualname__) or build(draw, *rest))

    def visit(**query):
        at = open_page("pages/model.py", data="circles", **query)
        assert_clean(at)
        return [p["figure"] for p in chart_payloads(at)]

    first = visit(round=7)
    assert sorted(drawn) == ["model_view", "residual_map"]
    assert visit(round=7) == first and len(drawn) == 2  # served from the cache
    visit(round=8)
    assert len(drawn) == 4
    other = visit(round=7, sample=5)
    assert len(drawn) == 6 and other != first and "sample #5" in other[0]
    visit(round=7, present="true")
    assert len(drawn) == 8 and len(cache) == 8


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
    direct = figures.residual_map(tr, 3, grid, sample=1).to_json()
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
    threads) each get exactly the figure their call draws, and each is drawn once or
    twice (two threads may miss together), never another round's."""
    from explorer import figures, fit
    from explorer.numbers.grid import make_grid
    from explorer.app.figure_cache import FigureCache, name

    X = np.random.default_rng(1).normal(size=(200, 2))
    tr = name(fit(X, (X[:, 0] * X[:, 1] > 0).astype(float), n_rounds=8), "threads")
    grid = name(make_grid(tr, resolution=30), "threads|grid")
    expected = {m: figures.residual_map(tr, m, grid).to_json() for m in range(1, 9)}
    cache = FigureCache()
    rounds = [1 + k % 8 for k in range(16)]
    random.Random(0).shuffle(rounds)
    with ThreadPoolExecutor(16) as pool:
        got = list(pool.map(lambda m: cache.draw(figures.residual_map, (tr, m, grid), {}).json,
                            rounds))
    assert all(json_text == expected[m] for m, json_text in zip(rounds, got))
    assert len(cache) == 8 and 8 <= cache.builds <= 16
