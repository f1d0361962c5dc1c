"""The sweep (explorer.sweep): what a link's sweep text makes, every bad sweep named in a
note, the cells' States, and the cache and threads that fit them."""

import threading

import numpy as np
import pytest

from explorer.state import State
from explorer.sweep import AXES, MAX_VALUES, FitCache, fit_cells, plan


def _plan(**query):
    return plan(State.from_query(query))


def test_one_axis_its_values_in_order():
    sweep = _plan(sweep="lr:0.05,0.1,0.2")
    (axis, values), = sweep.axes
    assert axis.key == "lr" and values == (0.05, 0.1, 0.2) and not sweep.notes
    assert [c.state.lr for c in sweep.cells] == [0.05, 0.1, 0.2]
    assert [c.label for c in sweep.cells] == ["ν = 0.05", "ν = 0.1", "ν = 0.2"]
    assert sweep.shape == (1, 3)
    # every other setting is the State's
    assert all(c.state.depth == 3 and c.state.rounds == 100 for c in sweep.cells)


def test_two_axes_first_across_second_down():
    sweep = _plan(sweep="lr:0.1,1", sweep2="depth:1,3,6")
    assert sweep.shape == (3, 2)
    assert [(c.row, c.col, c.state.lr, c.state.depth) for c in sweep.cells] == [
        (r, c, lr, d) for r, d in enumerate((1, 3, 6)) for c, lr in enumerate((0.1, 1.0))]
    assert sweep.cells[3].label == "ν = 1, depth 3"


def test_no_sweep_is_the_learning_rates_ready_list():
    sweep = _plan()
    assert sweep.axes[0][0].key == "lr" and sweep.axes[0][1] == AXES["lr"].ready
    assert not sweep.notes
    assert len(AXES["lr"].ready) <= MAX_VALUES


def test_a_setting_alone_takes_its_ready_values():
    assert _plan(sweep="depth").axes[0][1] == AXES["depth"].ready


@pytest.mark.parametrize("query, said", [
    (dict(sweep="bins:4,16"), "squared-error trees do not use the max bins"),
    (dict(sweep="gamma:0,1"), "do not use the γ"),
    (dict(sweep="mcw:1,2"), "do not use the min child weight"),
    (dict(sweep="subsample:0.5,1", split="hessian"), "hessian trees do not use the subsample"),
    (dict(sweep="leafrule:mean", split="histogram"), "histogram trees do not use the leaf rule"),
    (dict(sweep="loss:log-loss,exponential", data="sine"), "only for two classes"),
    (dict(sweep="noise:0.1,0.3", data="iris"), "iris has its own points"),
    (dict(sweep="n:100,200", data="upload"), "upload has its own points"),
    (dict(sweep="lr:0.1", sweep2="lr:0.2"), "learning rate is swept already"),
    (dict(sweep="nothing:1,2"), "'nothing' is not a setting the page sweeps"),
    (dict(sweep="<b>x</b>:1"), "'<b>x</b>' is not a setting"),
])
def test_a_bad_axis_is_named_and_the_page_still_opens(query, said):
    sweep = _plan(**query)
    assert any(said in note for note in sweep.notes), sweep.notes
    assert sweep.cells  # the page opens on what is left (or the ready sweep)


@pytest.mark.parametrize("text, kept, said", [
    ("lr:0.1,7,0.2", (0.1, 0.2), "'7' is not a value it takes here"),
    ("lr:0.1,abc", (0.1,), "'abc' is not a value"),
    ("lr:0.1,nan,inf", (0.1,), "'nan' is not a value"),
    ("lr:0.1,0.1", (0.1,), "'0.1' is there twice"),
    ("lr:0.1,0.2,0.3,0.4,0.5,0.6", (0.1, 0.2, 0.3, 0.4, 0.5), "'0.6' is past the 5 values"),
    ("depth:1,2.5", (1,), "'2.5' is not a value"),
])
def test_bad_values_are_named(text, kept, said):
    sweep = _plan(sweep=text)
    assert sweep.axes[0][1] == kept
    assert any(said in note for note in sweep.notes), sweep.notes


def test_a_value_the_rule_would_change_is_left_out():
    # second-order trees need a depth: depth 0 would silently become 3
    sweep = _plan(sweep="depth:0,2", split="hessian")
    assert sweep.axes[0][1] == (2,)
    assert any("'0' is not a value" in note for note in sweep.notes)


def test_no_value_left_drops_the_axis():
    sweep = _plan(sweep="lr:abc", sweep2="depth:1,2")
    assert [a.key for a, _ in sweep.axes] == ["depth"]
    assert any("no value of the learning rate left" in n for n in sweep.notes)


def test_the_split_rule_against_a_rule_specific_axis_keeps_the_cells_it_applies_to():
    sweep = _plan(sweep="split:squared-error,histogram", sweep2="leaves:4,8")
    assert {c.state.split for c in sweep.cells} == {"squared-error", "histogram"}
    sweep = _plan(sweep="split", sweep2="lam:0,1")  # λ: second-order and histogram trees
    # lam is not used by squared-error trees, the sidebar's rule: the second axis goes
    assert [a.key for a, _ in sweep.axes] == ["split"]
    sweep = _plan(split="hessian", sweep="split", sweep2="lam:0,1")
    assert {c.state.split for c in sweep.cells} == {"hessian", "histogram"}
    assert any("Left out" in n and "squared-error splits, λ = 0" in n for n in sweep.notes)


def test_a_long_text_is_cut():
    sweep = _plan(sweep="lr:" + ",".join(["0.1"] * 500))
    assert sweep.axes[0][1] == (0.1,)
    assert sum("twice" in n for n in sweep.notes) < 100


def test_the_cache_is_bounded_in_bytes():
    cache = FitCache(max_bytes=100)
    for i in range(5):
        cache.put(i, f"fit{i}", 30)
    assert cache.nbytes == 90 and len(cache) == 3
    assert cache.get(0) is None and cache.get(4) == ("fit4", 30)
    cache.put("huge", "x", 101)  # larger than the whole cache: not kept
    assert cache.get("huge") is None and cache.nbytes <= 100


def test_fit_cells_fits_only_what_is_missing_on_threads():
    cache = FitCache(max_bytes=10_000)
    seen, threads = [], set()

    def make(job):
        seen.append(job)
        threads.add(threading.get_ident())
        return job * 2, 8

    progress = []
    out = fit_cells([(i, i) for i in range(6)], cache, make,
                    lambda d, t: progress.append((d, t)), threads=2)
    assert out == [0, 2, 4, 6, 8, 10] and sorted(seen) == list(range(6))
    assert progress[0] == (0, 6) and progress[-1] == (6, 6)
    seen.clear()
    out = fit_cells([(i, i) for i in range(8)], cache, make, threads=2)
    assert out == [2 * i for i in range(8)] and sorted(seen) == [6, 7]  # only the new cells


def test_a_failed_fit_is_returned_and_not_kept():
    cache = FitCache(max_bytes=10_000)

    def make(job):
        return (ValueError("diverged"), 0) if job == 1 else (job, 8)

    out = fit_cells([(i, i) for i in range(3)], cache, make, threads=2)
    assert out[0] == 0 and out[2] == 2 and isinstance(out[1], ValueError)
    assert cache.get(1) is None and len(cache) == 2


def test_cells_fit_on_threads_equal_single_fits_bit_for_bit():
    import explorer
    from explorer import dataset
    from explorer.numbers.record import encode
    from explorer.numbers.grid import make_grid
    state = State.from_query(dict(sweep="lr:0.1,0.5", sweep2="depth:1,3", rounds=30))
    made = dataset.make(state)
    sweep = plan(state)

    def make(cell):
        trace = explorer.fit(made.train.X, made.train.y, X_valid=made.valid.X,
                             y_valid=made.valid.y, **cell.state.fit_params())
        return trace, 1

    fits = fit_cells([(c.label, c) for c in sweep.cells], FitCache(), make, threads=2)
    for cell, trace in zip(sweep.cells, fits):
        alone = explorer.fit(made.train.X, made.train.y, X_valid=made.valid.X,
                             y_valid=made.valid.y, learning_rate=cell.state.lr,
                             max_depth=cell.state.depth, n_rounds=30)
        grid = make_grid(alone, resolution=20)
        assert encode(trace, grid) == encode(alone, grid)
        assert np.array_equal(trace.raw, alone.raw)
        assert np.array_equal(trace.valid_loss, alone.valid_loss)
