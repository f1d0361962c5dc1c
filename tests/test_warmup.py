"""The engine compiled in parts: the default page's parts compile only the default fit's
loop, the background compiles the rest with progress k of n, and a fit that needs a part
still compiling waits for it and gives the same answer."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading

import pytest

from explorer.numbers import warmup
from explorer.numbers.warmup import Background, Part
from explorer.process import ROOT

from apptest_helpers import chart_payloads, new_app


def _run(code: str) -> dict:
    """Run ``code`` in a new process on the tests' warm numba cache (kernels load, none
    compile); it prints one JSON object."""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True,
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    return json.loads(out.stdout.strip().splitlines()[-1])


# One new process for the two tests that need one (each start imports numba and the
# engine: 4-5 s here). It first compiles the default page's parts alone and reads which
# kernels that gave; only then does a fit wait for a part still compiling, so the first
# reading is of those parts and nothing else.
FRESH = """
import json, threading
import numpy as np
from numba.core.compiler_lock import global_compiler_lock
import explorer
from explorer import boosting, trace
from explorer.numbers.warmup import Background, FIRST, Part, REST, compile_parts
compile_parts(FIRST)
first = {"names": [p.name for p in FIRST],
         "boost": [[str(s[6]), str(s[10])] for s in boosting._boost.signatures],
         "second_order": len(boosting._boost_second_order.signatures),
         "grids": [str(s[-1].dtype) for s in trace._staged_grid.signatures]}
# numba compiles (and loads from its cache) one thing at a time under one lock: a part
# holding it stands for a part compiling; the fit needing second-order trees waits for
# it, then gets its kernels, and its numbers are the ones a later fit gets.
release, holding = threading.Event(), threading.Event()
def held():
    with global_compiler_lock:
        holding.set()
        release.wait()
engine = Background([Part("held", held), *REST]).start()
holding.wait()
X = np.random.RandomState(1).normal(size=(60, 2))
y = (X[:, 0] + X[:, 1] > 0) * 1.0
result = {}
def fit():
    result["raw"] = explorer.fit(X, y, n_rounds=5, split="hessian").raw
worker = threading.Thread(target=fit)
worker.start()
worker.join(0.5)
waited = worker.is_alive()
release.set()
worker.join()
engine.wait()
again = explorer.fit(X, y, n_rounds=5, split="hessian").raw
print(json.dumps({"first": first, "waiting": {
    "waited": waited, "same": bool((result["raw"] == again).all()),
    "done": engine.done, "total": engine.total, "error": repr(engine.error)}}))
"""


@pytest.fixture(scope="module")
def fresh(warm_engine):
    return _run(FRESH)


def test_the_default_pages_parts_take_only_the_depth_first_loop(fresh):
    got = fresh["first"]
    assert got["names"] == ["depth-first trees", "the plane"]
    # max_leaves and uniforms None: the loop without best-first growth or subsampling
    assert got["boost"] == [["none", "none"]]
    assert got["second_order"] == 0
    assert got["grids"] == ["float32"]  # the app's plane only


def test_every_part_is_compiled_by_the_warm_up_in_the_apps_order():
    names = [part.name for part in warmup.PARTS]
    assert names[:2] == [part.name for part in warmup.FIRST]
    assert set(names) >= {"best-first trees", "subsampling", "second-order trees"}
    assert warmup.REST == warmup.PARTS[2:]
    assert all(name in warmup.MEASURED for name in names)  # the message's times


def test_the_background_reports_k_of_n_and_finishes():
    release = threading.Event()
    reports = []
    parts = [Part("one", lambda: None), Part("held", release.wait), Part("three", lambda: None)]
    engine = Background(parts, report=lambda k, n, part, s: reports.append((k, n, part.name)))
    engine.start()
    assert engine.wait(1, timeout=30)
    assert not engine.wait(timeout=0.05)
    assert (engine.done, engine.total, engine.current.name) == (1, 3, "held")
    release.set()
    assert engine.wait(timeout=30)
    assert engine.stopped and engine.error is None and engine.current is None
    assert reports == [(1, 3, "one"), (2, 3, "held"), (3, 3, "three")]


def test_a_failing_part_stops_the_background_and_is_kept():
    def broken():
        raise RuntimeError("no compiler")
    engine = Background([Part("broken", broken), Part("never", lambda: None)]).start()
    assert engine.wait(timeout=30)  # a waiting page is let go
    assert engine.done == 0 and isinstance(engine.error, RuntimeError)


def test_a_fit_that_needs_a_part_still_compiling_waits_for_it_and_is_right(fresh):
    got = fresh["waiting"]
    assert got["waited"]
    assert got["same"]
    assert got["done"] == got["total"] and got["error"] == "None"


def test_the_message_names_the_part_and_the_measured_time():
    from explorer.app.context import compiling_message
    engine = Background(warmup.PARTS)
    first = sum(warmup.MEASURED[part.name] for part in warmup.FIRST)
    assert (f"part 1 of {len(warmup.PARTS)} (depth-first trees), about {first:.0f} s more "
            "before the first chart") in compiling_message(engine)
    engine.done = 3
    assert (f"Compiling the rest of the engine in the background: part 4 of "
            f"{len(warmup.PARTS)} ({warmup.PARTS[3].name})") in compiling_message(engine)


@pytest.mark.parametrize("query", [{}, {"data": "draw"}])  # a page that stops: no fit yet
def test_the_sidebar_shows_the_background_compiles_progress(monkeypatch, warm_engine, query):
    from explorer.app import context
    release = threading.Event()
    parts = [*warmup.FIRST, Part("best-first trees", release.wait)]
    engine = Background(parts).start()
    try:
        assert engine.wait(len(warmup.FIRST), timeout=60)
        # as on a new machine: the first parts took seconds (compiled, not loaded), so the
        # page does not wait for the rest
        engine.seconds.update({part.name: 5.0 for part in warmup.FIRST})
        monkeypatch.setattr(context, "_engine", lambda: engine)
        at = new_app(**query).run()
        assert not at.exception
        [bar] = at.sidebar.get("progress")
        assert "part 3 of 3 (best-first trees)" in bar.proto.text
        assert len(chart_payloads(at)) == (1 if query else 2)  # the page is drawn meanwhile
    finally:
        release.set()
        engine.wait(timeout=60)
    at.run()
    assert not at.sidebar.get("progress")  # finished: gone


def test_the_warm_ups_fits_are_not_counted_as_users_fits(warm_engine):
    from explorer import boosting
    before = boosting.fit_count()
    warmup.compile_parts(warmup.PARTS)
    assert boosting.fit_count() == before
    X, y = boosting.warm_fit().X, boosting.warm_fit().y
    boosting.fit(X, y, n_rounds=2)
    assert boosting.fit_count() == before + 1


def test_a_warm_cache_loads_everything_before_the_first_chart(monkeypatch, warm_engine):
    from explorer.app import context
    engine = Background(warmup.PARTS).start()  # all in numba's cache: a second or so
    monkeypatch.setattr(context, "_engine", lambda: engine)
    at = new_app().run()
    assert not at.exception
    assert engine.stopped and engine.done == engine.total
    assert not at.sidebar.get("progress")


def test_the_command_compiles_every_part_once_a_process_per_core(warm_engine):
    """``python -m explorer warmup`` (make app and make test run it): every part reported
    once, k of n in the order they finish, from worker processes on a warm cache."""
    out = subprocess.run([sys.executable, "-m", "explorer", "warmup"], cwd=ROOT, check=True,
                         capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    workers = min(warmup.cores(), len(warmup.PARTS))
    assert f"in {len(warmup.PARTS)} parts on {workers} core" in out.stderr
    lines = re.findall(r"part (\d+) of (\d+): (.+) \(\d+\.\d s\)", out.stderr)
    assert [int(k) for k, _, _ in lines] == list(range(1, len(warmup.PARTS) + 1))
    assert {int(n) for _, n, _ in lines} == {len(warmup.PARTS)}
    assert sorted(name for *_, name in lines) == sorted(p.name for p in warmup.PARTS)
    assert "The engine is ready" in out.stderr
