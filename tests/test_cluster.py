"""Two app processes behind nginx on loopback (deploy/): spread, sticky, and correct.

The test starts the cluster with ``deploy/run_cluster.py`` (nginx's pid, logs and
temp files in a private directory) and opens sessions through the proxy with the
load harness's WebSocket client (``benchmarks/load.py``), each with its own cookie
jar, as separate browsers would. Which process served a request is seen from both
sides: nginx's ``X-Upstream`` header, and the process itself (its fit count, and
whether it recognises a session id on reconnect).
"""

from __future__ import annotations

import asyncio

import pytest

from benchmarks import load
from conftest import run_async
from deploy.run_cluster import start_cluster

pytestmark = pytest.mark.cluster

MAX_SESSIONS = 24  # all on one of two processes by chance: 2 ** -23


@pytest.fixture(scope="module")
def cluster(warm_engine):
    cluster = start_cluster(apps=2, warm=False)  # warm_engine filled numba's disk cache
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
        assert s.cookies.get("bx_route"), "nginx sets the sticky cookie on the first page"
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
