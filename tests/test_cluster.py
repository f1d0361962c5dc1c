"""Two app processes behind nginx on loopback (deploy/): spread, sticky, and correct; and
what a class sees when one of them dies (issue 48): a real browser on the killed process
comes back to its own view, the supervisor starts the process again, a link to an upload
says what is lost, and a short soak.

The test starts the cluster with ``deploy/run_cluster.py`` (nginx's pid, logs and
temp files in a private directory) and opens sessions through the proxy with the
load harness's WebSocket client (``benchmarks/load.py``), each with its own cookie
jar, as separate browsers would. Which process served a request is seen from both
sides: nginx's ``X-Upstream`` header, and the process itself (its fit count, and
whether it recognises a session id on reconnect).
"""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from benchmarks import load
from conftest import run_async
from deploy.run_cluster import start_cluster
from explorer import dataset, drawn
from explorer.process import CACHE_REPORT_ENV

pytestmark = pytest.mark.cluster

MAX_SESSIONS = 24  # all on one of two processes by chance: 2 ** -23


@pytest.fixture(scope="module")
def cluster(warm_engine):
    # warm_engine filled numba's disk cache; the processes report their caches for the soak
    cluster = start_cluster(apps=2, warm=False, env={CACHE_REPORT_ENV: "3"})
    cluster.supervise()
    yield cluster
    cluster.stop()


async def open_sessions(url: str) -> list[load.Session]:
    """Open sessions (each a new browser) until both processes have some, and at least 6."""
    sessions, upstreams = [], set()
    while len(sessions) < 6 or len(upstreams) < 2:
        assert len(sessions) < MAX_SESSIONS, f"all sessions went to {upstreams}"
        session = load.Session(url)
        await session.open()
        run = await session.load()
        assert run.round == 0 and run.rounds == 100
        sessions.append(session)
        upstreams.add(session.upstream)
    return sessions


def test_sessions_spread_stick_and_step_correctly(cluster):
    run_async(_scenario(cluster))


async def _scenario(cluster):
    sessions = await open_sessions(cluster.url)
    by_app = {app.port: [] for app in cluster.apps}
    for s in sessions:
        assert s.cookies.get("bx_route") in ("0", "1"), "nginx names the process in a cookie"
        by_app[cluster.app_for(s.upstream).port].append(s)
    assert all(by_app.values()), "both processes serve sessions"

    # Sticky, seen by nginx: every later request of a browser goes to its process.
    for s in sessions:
        for path in ("/", "/_stcore/health", "/_stcore/host-config"):
            status, headers, _ = await asyncio.to_thread(
                load.http_get, cluster.url, path, headers=s.cookie_header())
            assert status == 200, path
            assert dict(headers)["X-Upstream"] == s.upstream, path

    # Sticky, seen by the processes: each session asks for a setting of its own, and each
    # process fits exactly the settings of the sessions nginx says it serves.
    before = {app.port: app.fits() for app in cluster.apps}
    for i, s in enumerate(sessions):
        lr = round(0.41 + 0.01 * i, 2)
        run = await s.set_param("lr", lr)
        assert load.shown_setting(run.caption) == (lr, 3)
    for app in cluster.apps:
        assert app.fits() - before[app.port] == len(by_app[app.port]), app.port

    # Stepping rounds through the proxy gives the right rounds.
    for s in sessions:
        assert (await s.set_round(5)).round == 5
        assert (await s.click("next")).round == 6
        assert (await s.click("prev")).round == 5
        assert (await s.click("last")).round == 100
        assert (await s.set_round(42)).round == 42
        assert (await s.click("first")).round == 0

    # A reconnecting browser (same cookie, its session id in the subprotocol, as the
    # frontend sends it) lands on its process, which resumes the same session.
    for s in sessions:
        upstream, session_id = s.upstream, s.session_id
        await s.set_round(17)
        await s.close()
        await s.open()
        run = await s.rerun()
        assert s.upstream == upstream
        assert s.session_id == session_id, "the process knew the session: same process"
        assert run.round == 17
        assert load.shown_setting(run.caption)[0] != 0.1  # its own setting, kept
        await s.close()


def test_proxy_health_and_websocket_headers(cluster):
    status, _, body = load.http_get(cluster.url, "/nginx-health")
    assert (status, body) == (200, b"ok\n")
    status, headers, body = load.http_get(cluster.url, "/_stcore/health")
    assert (status, body) == (200, b"ok")
    assert dict(headers)["X-Upstream"] in {f"127.0.0.1:{a.port}" for a in cluster.apps}
    # Each app answers directly too (what a load balancer's health check would poll).
    for app in cluster.apps:
        assert load.http_get(app.url, "/_stcore/health")[0] == 200


# --- a process that dies (issue 48) ---------------------------------------------------


@pytest.fixture(scope="module")
def upload_link(cluster):
    """The run of a link that says data=upload, opened where no file has been read."""
    async def scenario():
        session = load.Session(cluster.url, query="data=upload&round=4")
        await session.open()
        try:
            return await session.load()
        finally:
            await session.close()
    return run_async(scenario())


def test_an_upload_link_without_its_file_says_so_and_shows_no_toy_set(upload_link):
    # no failure (the harness raises on an exception element), no fit of the toy default
    assert upload_link.rounds is None and "moons" not in upload_link.caption
    assert any("upload" in alert.lower() for alert in upload_link.alerts), upload_link.alerts


def test_an_upload_link_without_its_file_says_the_server_lost_it(upload_link):
    # the alert as its markdown source: every punctuation mark escaped (md_escape)
    assert dataset.LOST_FILE in [alert.replace("\\", "") for alert in upload_link.alerts]


def test_drawn_points_beyond_a_links_limit_are_said_lost_through_the_proxy(cluster):
    """A link with more drawn points than it holds, opened where they are not in memory
    (another process, or one started again): the page fits the link's points and says
    how many could not come back, with no failure."""
    pts = "~".join(f"{k % 2}_{k / 100:g}_{(k % 7) / 3:.2f}" for k in range(drawn.LINK_POINTS))
    link = f"data=draw&pts={pts}~more_9"

    async def scenario():
        session = load.Session(cluster.url, query=link)
        await session.open()
        try:
            return await session.load()
        finally:
            await session.close()

    run = run_async(scenario())  # the harness raises on an exception element
    assert run.rounds == 100 and "drawn points" in run.caption
    assert drawn.lost_message(pts + "~more_9") in run.alerts, run.alerts


RUNS = """(() => {  // counts the app's runs (a reload starts again from 0)
    window.__runs = 0;
    const watch = () => {
        const app = document.querySelector('[data-testid=stApp]');
        if (!app) { setTimeout(watch, 20); return; }
        new MutationObserver(() => {
            if (app.dataset.testScriptState === 'running') window.__runs++;
        }).observe(app, { attributes: true, attributeFilter: ['data-test-script-state'] });
    };
    watch();
})()"""
VIEW = """() => {
    const app = document.querySelector('[data-testid=stApp]');
    const charts = [...document.querySelectorAll('.explorer-chart')]
        .filter(c => c.querySelector('.main-svg')).length;
    return { runs: window.__runs, old: window.__old === 1, url: location.href, charts,
             script: app?.dataset.testScriptState, link: app?.dataset.testConnectionState,
             bar: document.querySelector('.explorer-stepper')?.dataset.round,
             captions: [...document.querySelectorAll('[data-testid=stCaptionContainer]')]
                 .map(c => c.innerText).join(' '),
             errors: document.querySelectorAll(
                 '[data-testid=stException], [data-testid=stAlertContentError]').length };
}"""
READY = "[data-testid=stApp][data-test-script-state=notRunning]"


def _view(page):
    try:
        return page.evaluate(VIEW)
    except Exception:  # the page is being loaded again
        return None


def _settled(page, runs_at_least: int = 0):
    """Wait until the page has run, rests, and its bar and charts are drawn."""
    page.wait_for_function(f"() => window.__runs >= {runs_at_least} && "
                           "document.querySelector('.explorer-stepper') !== null")
    page.wait_for_selector(READY, state="attached")
    page.wait_for_function("() => [...document.querySelectorAll('.explorer-chart')]"
                           ".some(c => c.querySelector('.main-svg'))")


def test_a_browser_on_a_killed_process_comes_back_to_its_view_and_the_process_restarts(
        cluster, private_browser):
    """Two browsers on one process: one has stepped (its last run a fragment's: Streamlit's
    frontend reruns the page on reconnecting), one has only loaded its link (the round
    bar's watchdog loads the page again). SIGKILL to the process: each is back on the
    other process, at its page, round and settings, with no error box; the supervisor
    starts the process again, and the browsers stay where they are. The time back is a
    speed target (10 s): benchmarks.load --failover measures it for its students
    (benchmarks/README.md); here a browser's is printed, and only asked to come back, as
    it was, within 40 s. (A bound of 15 s here
    failed on 2026-11-28, this test alone: 9.8-17.0 s over nine runs, with that day's code
    and the day before's alike; deploy/README.md.)"""
    contexts, pages = [], []
    for _ in range(2):
        contexts.append(private_browser.new_context(viewport={"width": 1400, "height": 900}))
    try:
        reader = contexts[0].new_page()
        reader.add_init_script(RUNS)
        response = reader.goto(cluster.url + "/tree?round=7&lr=0.3&depth=2")
        upstream = response.headers["x-upstream"]
        contexts[1].add_cookies(contexts[0].cookies())  # the same process
        stepper = contexts[1].new_page()
        stepper.add_init_script(RUNS)
        stepper.goto(cluster.url + "/?round=12&lr=0.2")
        pages = [reader, stepper]
        for page in pages:
            page.set_default_timeout(60_000)
            _settled(page)
        runs = stepper.evaluate("window.__runs")
        stepper.locator(".explorer-stepper [data-go=next]").click()
        _settled(stepper, runs + 1)  # the round at rest went to the server: a fragment run
        assert "round=13" in stepper.url
        before = {id(p): (p.url, _view(p)) for p in pages}
        for page in pages:
            page.evaluate("window.__old = 1")

        victim = cluster.app_for(upstream)
        index = cluster.apps.index(victim)
        killed = time.monotonic()
        os.kill(victim.pid, signal.SIGKILL)
        back = {}
        while len(back) < 2 and time.monotonic() - killed < 40:
            for page in pages:
                view = _view(page)
                url, was = before[id(page)]
                if id(page) in back or view is None:
                    continue
                fresh = not view["old"] or view["runs"] > was["runs"]
                if (fresh and view["script"] == "notRunning" and view["link"] == "CONNECTED"
                        and view["bar"] == was["bar"] and view["charts"] >= was["charts"]):
                    back[id(page)] = (time.monotonic() - killed, view)
            time.sleep(0.1)
        for page in pages:
            url, was = before[id(page)]
            assert id(page) in back, f"{url} not back within 40 s: {_view(page)}"
            seconds, view = back[id(page)]
            print(f"\n{url} back after {seconds:.1f} s")
            assert view["url"] == url and view["errors"] == 0, view
            setting = "ν = 0.3, depth ≤ 2" if "/tree" in url else "ν = 0.2, depth ≤ 3"
            assert setting in view["captions"], view["captions"]
        assert not back[id(reader)][1]["old"], "the reader's page was loaded again"

        # the supervisor started the process again on its port; the browsers stay put
        deadline = time.monotonic() + 30
        while cluster.apps[index].pid == victim.pid or not cluster.restarts:
            assert time.monotonic() < deadline, "the killed process was not started again"
            time.sleep(0.2)
        assert cluster.apps[index].port == victim.port
        assert load.http_get(cluster.apps[index].url, "/_stcore/health")[0] == 200
        routes = {c["value"] for ctx in contexts for c in ctx.cookies() if c["name"] == "bx_route"}
        assert routes == {str(1 - index)}, routes
    finally:
        for context in contexts:
            context.close()


def test_a_short_soak_on_two_processes(cluster):
    """The soak of issue 48, shortened for CI: students acting every 2 s (10% of the
    actions a setting) on the two processes; no failure, the caches within their
    bounds, each process under 1.5 GB."""
    rows = run_async(load.soak(cluster.url, cluster.apps, 40, 12.0, 6.0,
                              out=open(os.devnull, "w")))
    assert [r["failed"] for r in rows] == [0, 0]
    assert sum(r["reruns"] for r in rows) > 60
    for caches in rows[-1]["caches"]:
        assert caches, "the processes report their caches"
        assert caches["figures"] <= (32 + 96) * 2**20  # the two figure caches' bounds
        assert caches["fits"] + caches["grids"] + caches["records"] <= 12 * 60 * 2**20
    assert all(rss < 1.5 * 2**30 for rss in rows[-1]["rss"])
