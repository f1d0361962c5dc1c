"""The load harness (benchmarks/load.py) against a server this test starts: a short
run has no failed session, and the server fits each distinct setting once for everyone.
Sessions speak Streamlit's WebSocket protocol, as the browser's frontend does."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from benchmarks import load
from conftest import run_async
from explorer.process import start_server
from test_cluster import RUNS, _settled, _view

pytestmark = pytest.mark.cluster


@pytest.fixture(scope="module")
def servers(tmp_path_factory, warm_engine):
    """The app server of this file's tests, held in a list: the restart test replaces it."""
    held = [start_server(tmp_path_factory.mktemp("load") / "server.log", count_fits=True)]
    yield held
    held[-1].stop()


@pytest.fixture
def load_server(servers):
    """An app server started by the load harness (it logs the process's fit count)."""
    return servers[-1]


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


def test_a_restart_brings_thirty_students_and_a_browser_back_to_their_views(
        servers, private_browser):
    """Issue 48: the one process stopped and started again on its port (numba's cache
    warm) while 30 students step: each is back at its page, round and settings, with no
    error. The time back is a speed target (10 s): benchmarks.load --restart measures it
    (benchmarks/README.md); here only that everyone comes back, as they were.

    A real browser on the same process, with the frontend's own reconnect held back (its
    host-config ping fails until the page is loaded again): only the round bar's poll
    (stepper.js awaitServer) can bring it back, and does, at its link, with no error
    box."""
    context = private_browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.add_init_script(RUNS)
        page.goto(servers[-1].url + "/?round=12&lr=0.2")
        _settled(page)
        page.evaluate("window.__old = 1")
        was, url = _view(page), page.url
        assert "round=12" in url
        held = {"on": True}
        page.route("**/_stcore/host-config",
                   lambda route: route.abort() if held["on"] else route.continue_())
        page.on("framenavigated", lambda frame: frame == page.main_frame and held.update(
            on=False, reloaded=held.get("reloaded", time.monotonic())))
        # on a thread of its own: the harness runs its own event loop, which asyncio
        # refuses beside a test process's Playwright browser (as conftest.run_async)
        with ThreadPoolExecutor(max_workers=1) as pool:
            future = pool.submit(load.restart, 30, before=2.0, after=4.0,
                                 server=servers[-1])
            back, deadline = None, None
            while back is None and (deadline is None or time.monotonic() < deadline):
                view = _view(page)
                if (view is not None and not view["old"] and view["script"] == "notRunning"
                        and view["link"] == "CONNECTED" and view["bar"] == was["bar"]
                        and view["charts"] >= was["charts"]):
                    back = (time.monotonic(), view)
                if deadline is None and future.done():
                    deadline = time.monotonic() + 30
                page.wait_for_timeout(100)
            backs, runs, timing, new = future.result()
        servers.append(new)
    finally:
        context.close()
    assert back is not None, "the browser did not come back"
    view = back[1]
    assert view["url"] == url and view["errors"] == 0, view
    assert "ν = 0.2, depth ≤ 3" in view["captions"], view["captions"]
    # the frontend's own pings fail until the page is loaded again: the bar's poll did it,
    # once the new process answered
    assert held["reloaded"] > timing["at"] + timing["stop"], (held, timing)
    assert [b.error for b in backs if b.error] == [], load.failure_table(backs)
    assert all(b.affected for b in backs)
    assert [b.student for b in backs if not b.equal] == []
    assert [b.student for b in backs if b.seconds is None] == [], load.failure_table(backs)
    # each view is shown no later than its charts' bindings arrive
    assert all(b.seconds <= b.bound for b in backs), load.failure_table(backs)
