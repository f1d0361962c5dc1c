"""Classroom load: many sessions stepping rounds at once, spoken in Streamlit's own protocol.

    python -m benchmarks.load                   # 1, 10, 30 and 60 sessions, 20 s each
    python -m benchmarks.load --apps 2          # the same against 2 processes behind nginx
    python -m benchmarks.load --sessions 30 --think 2 --full-steps
    python -m benchmarks.load --sessions 30 --heavy 1000x500   # memory: a distinct large
                                                               # fit in every session
    python -m benchmarks.load --url http://127.0.0.1:8080      # a running server (loopback)

A browser per simulated student does not fit on two cores, so each session is a
WebSocket client that talks to ``/_stcore/stream`` as the browser's frontend does:

* it fetches ``/`` first (the page a browser loads; behind nginx this sets the
  sticky cookie), then opens the WebSocket with the subprotocols
  ``["streamlit", <xsrf placeholder>, <previous session id>]``;
* every run starts with a ``BackMsg.rerun_script`` (a ``ClientState``): the page's
  query string, the ``page_script_hash`` the server announced in ``new_session``,
  the value of every widget the user has set so far, as the browser sends all its
  widget states (a slider sends ``double_array_value``, a clicked button
  ``trigger_value``; without the others, Streamlit would take a bound widget
  outside the fragment back from the URL), the ``fragment_id`` when the widget
  lives in a fragment (the round bar does: a step reruns only the fragment),
  and the hashes of the large messages it already holds (``cached_message_hashes``,
  the browser's message cache: the server then sends a ``ref_hash`` instead);
* the server streams ``ForwardMsg`` frames (``new_session``, ``delta`` elements,
  ``page_info_changed``, ...) until ``script_finished``. The time from sending the
  BackMsg to ``script_finished`` is one rerun. Widget ids are read from the deltas:
  a keyed widget's id ends with ``-<key>`` (e.g. ``$$ID-2ac6...-round``).

Each session loads the Model page, then repeatedly steps the rounds and now and
then changes the learning rate or the depth (a full rerun that needs a fit),
pausing a random "think time" between actions. In a browser the round bar steps
on its own (explorer/browser/stepper.js) and sends one rerun when stepping rests, so a
session steps a burst of rounds (1 to 2 x ``--burst`` - 1, mean ``--burst``) and then
sends that one fragment rerun at the new round (a click on "next" every
CLICK_SECONDS); ``--burst 1`` is a server that reruns at every step, as before
browser stepping. A run is checked, not only timed: it must finish without an exception
element, the round label must show the round the session asked for, and after
a parameter change the page's caption must state the new setting at the same
round; a session with any failed run, timeout or dropped connection counts as
failed.

The harness starts and stops its own server on 127.0.0.1 with
``explorer.process.start_server`` (a fresh one per level, so memory and fit
counts are per level; with ``--apps N``, N processes behind nginx started by
``deploy/run_cluster.py``). The server runs in a small wrapper (``python -m
explorer.process``) that prints ``explorer.fit_count()`` whenever it changes, so
the harness can show that each distinct data + parameters setting is fitted
once for everyone. Memory is the resident set of the server and its children
(``/proc/<pid>/status``), sampled every half second; the peak is reported. The
server's CPU time per rerun (``/proc/<pid>/stat``) gives its capacity whatever
else runs on the machine; the load average says whether something else did.

Targets (issue 6), on a 2-core machine: 30 sessions stepping at once, p95 <=
500 ms per rerun, no failed session, server memory <= 1.5 GB.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import os
import random
import re
import signal
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlparse

from deploy.run_cluster import start_cluster
from explorer.process import CACHE_REPORT_ENV, start_server, tree_cpu, tree_rss

# Bounds: the harness refuses to go beyond these (it is a benchmark, not a stress tool).
MAX_SESSIONS = 100
MAX_SECONDS = 300.0
RUN_TIMEOUT = 60.0  # seconds one rerun may take before the session counts as failed
CLICK_SECONDS = 0.3  # between two clicks on "next" in a burst of steps
# The round bar's watchdog (explorer/browser/stepper.js RECONNECT_MS, STUCK_MS, POLL_MS)
RECONNECT_S = 0.5
STUCK_S = 1.0
POLL_S = 0.5
_KEPT = re.compile(r'"(/(?:[^"\s]*/)?_explorer/blob/[0-9a-f]+)"')  # a chart's address

_ROUND_LABEL = re.compile(r"^\*\*Round (\d+)\*\* / (\d+)$")
XSRF_PLACEHOLDER = "PLACEHOLDER_AUTH_TOKEN"  # what the frontend sends without an XSRF cookie


# --- talking to the server ---------------------------------------------------------------


def http_get(url: str, path: str, *, headers: dict | None = None, timeout: float = 10,
             method: str = "GET"):
    """GET (or ``method``) ``path`` from a loopback ``url``; returns (status, headers as a
    list, body)."""
    u = urlparse(url)
    check_loopback(u.hostname)
    conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=timeout)
    try:
        conn.request(method, path, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.getheaders(), response.read()
    finally:
        conn.close()


def check_loopback(host: str | None) -> None:
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError(f"the load harness only talks to loopback, not {host!r}")


# --- one session -----------------------------------------------------------------------


class SessionError(Exception):
    """A run that failed: timeout, exception in the page, wrong round, closed connection."""


@dataclass
class Run:
    """One rerun as the client saw it."""

    kind: str  # "load", "step" (fragment rerun) or "full"
    seconds: float
    messages: int
    nbytes: int
    round: int | None  # from the round label "**Round m** / M"
    rounds: int | None
    caption: str  # the run's captions, one a line (one states the data and parameters)
    at: float = 0.0  # time.monotonic() when it finished
    alerts: tuple = ()  # the text of each st.error / warning / info box of the run
    # time.monotonic() when its view was first whole on screen: a new fit's charts are
    # drawn by a first part of the run, which then binds them (explorer/app/component.py
    # bind_later: its placeholder, an empty element, is the part's last) and repeats
    # itself to send their bindings: the view is whole at the part's last other element;
    # else when the run finished
    shown: float = 0.0
    # when that part ended, the bindings made (stepping in the browser again); else when
    # the run finished
    bound: float = 0.0


@dataclass
class Session:
    """A simulated browser tab: one WebSocket to ``/_stcore/stream`` and its client state.

    Parameters
    ----------
    url : str
        The server (or proxy) base URL, loopback only.
    query : str
        The page's query string, as in the address bar (``round=6&lr=0.2``).
    """

    url: str
    query: str = ""
    page: str = ""  # the page's path on the first run ("sweep"); "" for the main page
    cookies: dict = field(default_factory=dict)
    session_id: str = ""  # the server's id for this session (new_session.initialize)
    upstream: str = ""  # X-Upstream of the WebSocket handshake, when behind the proxy
    page_hash: str = ""  # page_script_hash of the page being shown
    widget_ids: dict = field(default_factory=dict)  # user key -> widget id
    fragments: dict = field(default_factory=dict)  # user key -> fragment id ("" if none)
    round: int | None = None
    rounds: int | None = None
    values: dict = field(default_factory=dict)  # user key -> slider value the user set
    last_kind: str = ""  # the last run's kind ("step" is a fragment's)
    connected_at: float = 0.0  # time.monotonic() when the WebSocket last opened
    kept: str = ""  # an address a chart of the page was fetched from (the server's blob)
    _alerts: list = field(default_factory=list)
    _ws: object = None
    _held: dict = field(default_factory=dict)  # cacheable message hash -> run number
    _runs: int = 0

    async def open(self) -> None:
        """Load the page (for cookies, as a browser does) and open the WebSocket."""
        status, headers, _ = await asyncio.to_thread(
            http_get, self.url, "/?" + self.query if self.query else "/",
            headers=self.cookie_header())
        if status != 200:
            raise SessionError(f"GET / answered {status}")
        self._take_cookies(headers)
        await self._connect()

    async def _connect(self) -> None:
        """Open the WebSocket (with the previous session id, as the frontend sends it)."""
        import websockets

        ws_url = "ws" + self.url[len("http"):] + "/_stcore/stream"
        protocols = ["streamlit", XSRF_PLACEHOLDER] + ([self.session_id] if self.session_id
                                                       else [])
        self._ws = await websockets.connect(ws_url, subprotocols=protocols, max_size=None,
                                            additional_headers=self.cookie_header(),
                                            open_timeout=30, compression=None)
        self.upstream = self._ws.response.headers.get("X-Upstream", "")
        self.connected_at = time.monotonic()

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
            self._ws = None

    def cookie_header(self) -> dict:
        if not self.cookies:
            return {}
        return {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}

    def _take_cookies(self, headers) -> None:
        for name, value in headers:
            if name.lower() == "set-cookie":
                key, _, rest = value.partition("=")
                self.cookies[key.strip()] = rest.split(";", 1)[0]

    # --- actions ---

    async def load(self) -> Run:
        """The first run, as a browser opening the address."""
        return await self._rerun("load")

    async def rerun(self) -> Run:
        """A full rerun with what the session has set (as after a reconnect)."""
        return await self._rerun("full")

    async def set_round(self, m: int, *, fragment: bool = True,
                        timeout: float = RUN_TIMEOUT) -> Run:
        """Move the round slider to m (a fragment rerun, unless fragment=False)."""
        run = await self._rerun("step" if fragment else "full",
                                slider={"round": float(m)}, fragment_of="round" if fragment
                                else None, query={"round": str(m)}, timeout=timeout)
        if run.round != m:
            raise SessionError(f"asked for round {m}, the page shows {run.round}")
        return run

    async def click(self, key: str) -> Run:
        """Click a button (the round bar's first / prev / next / last)."""
        return await self._rerun("step", trigger=key, fragment_of=key)

    async def set_param(self, key: str, value: float) -> Run:
        """Move a sidebar slider (a fit or data parameter): a full rerun."""
        return await self.set_params({key: value})

    async def set_params(self, values: dict) -> Run:
        """Move several sidebar sliders at once (one full rerun)."""
        return await self._rerun("full", slider={k: float(v) for k, v in values.items()},
                                 query={k: f"{v:g}" for k, v in values.items()})

    # --- after the server process died ---

    def view(self) -> tuple:
        """What the student sees, as the link says it: the page's path (the harness's
        students stay on the Model page, "/"; the page hash a first run announces can be
        the main script's rather than the page's, so it is not compared) and the query
        string (round and every setting)."""
        return ("/", tuple(sorted(parse_qsl(self.query))))

    async def closed(self) -> None:
        """Return when the WebSocket is closed (the browser hears of it at once)."""
        await self._ws.wait_closed()

    async def recover(self) -> tuple[Run, str]:
        """What a browser does when its WebSocket drops, until its view is back: a run.

        Two clocks race. Streamlit 1.67's frontend (``WebsocketConnection``) waits
        250-500 ms, then polls ``/_stcore/health`` until it answers, 100 ms after the
        first poll, then 200, 400, ... ms, each x 0.7-1 at random, at most 4 s apart; and
        reconnects with its session id. The round bar (explorer/browser/stepper.js) polls
        every POLL_S: once the server answers and a chart's address of the page is not
        found there (a new process), it loads the page again at its link ("reload": a new
        session, the address's query string, no widget state). If the frontend wins and
        its last run was a fragment's, it asks for a full run ("rerun"). Else the bar
        sends its round RECONNECT_S later: a process that still has the session runs it
        ("bar"); one that does not drops it, and after STUCK_S the bar's watchdog
        reloads. Returns the run and which of the three it was.
        """
        await self.close_quietly()
        kept = self.kept
        frontend = asyncio.ensure_future(self._frontend_reconnects())
        bar = asyncio.ensure_future(self._bar_sees_a_new_process(kept))
        await asyncio.wait({frontend, bar}, return_when=asyncio.FIRST_COMPLETED)
        if not frontend.done() or frontend.exception() is not None:
            frontend.cancel()
            await self.close_quietly()
            return await self._reload(), "reload"
        bar.cancel()
        if self.last_kind == "step":
            return await self._rerun("full"), "rerun"
        await asyncio.sleep(RECONNECT_S)
        try:
            m = int(dict(parse_qsl(self.query)).get("round", 0))  # the bar's, in the link
            return await self.set_round(m, timeout=STUCK_S), "bar"
        except SessionError:
            pass
        while (await asyncio.to_thread(http_get, self.url, "/_stcore/health",
                                       headers=self.cookie_header()))[0] != 200:
            await asyncio.sleep(STUCK_S)
        await self.close_quietly()
        return await self._reload(), "reload"

    async def _frontend_reconnects(self) -> None:
        """Streamlit's frontend: its wait, its pings (see :meth:`recover`), the WebSocket."""
        await asyncio.sleep(random.uniform(0.25, 0.5))
        pings = 0
        while True:
            try:
                status, headers, _ = await asyncio.to_thread(
                    http_get, self.url, "/_stcore/health", headers=self.cookie_header(),
                    timeout=5)
                self._take_cookies(headers)
                if status == 200:
                    await self._connect()
                    return
            except Exception:  # refused, reset: the next ping
                await self.close_quietly()
            pings += 1
            wait = 0.1 * 2 ** (pings - 1)
            await asyncio.sleep(min(4.0, wait) * (1 if pings == 1 else random.uniform(0.7, 1)))

    async def _bar_sees_a_new_process(self, kept: str) -> None:
        """The round bar's poll: returns once the server answers and ``kept`` is not
        found there; never without an address to ask for."""
        if not kept:
            await asyncio.Event().wait()
        while True:
            await asyncio.sleep(POLL_S)
            try:
                health = await asyncio.to_thread(http_get, self.url, "/_stcore/health",
                                                 headers=self.cookie_header(), timeout=5)
                if health[0] == 200 and (await asyncio.to_thread(
                        http_get, self.url, kept, headers=self.cookie_header(),
                        timeout=5, method="HEAD"))[0] == 404:
                    return
            except OSError:
                pass

    async def _reload(self) -> Run:
        """The page loaded again at its link: a new session."""
        self.session_id, self.page_hash, self.values, self._held = "", "", {}, {}
        self.kept = ""
        await self.open()
        return await self.load()

    async def close_quietly(self) -> None:
        try:
            await self.close()
        except Exception:
            self._ws = None

    # --- the protocol ---

    async def _rerun(self, kind: str, *, slider: dict | None = None, trigger: str = "",
                     fragment_of: str | None = None, query: dict | None = None,
                     timeout: float = RUN_TIMEOUT) -> Run:
        from streamlit.proto.BackMsg_pb2 import BackMsg

        if query:  # a bound widget rewrites the address bar; the browser sends it along
            pairs = dict(parse_qsl(self.query))
            pairs.update(query)
            self.query = urlencode(pairs)
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query
        state.page_script_hash = self.page_hash
        if not self.page_hash:  # the first run: the page the address names
            state.page_name = self.page
        if fragment_of is not None:
            state.fragment_id = self.fragments.get(fragment_of, "")
        # Like the browser, send the value of every widget the user has set, not only the
        # one that changed: the server would otherwise fall back to the URL for it.
        self.values.update(slider or {})
        for key, value in self.values.items():
            widget = state.widget_states.widgets.add()
            widget.id = self._widget_id(key)
            widget.double_array_value.data.append(value)
        if trigger:
            widget = state.widget_states.widgets.add()
            widget.id = self._widget_id(trigger)
            widget.trigger_value = True
        # The browser keeps large messages of the last two runs and says which it holds.
        self._runs += 1
        self._held = {h: n for h, n in self._held.items() if n >= self._runs - 2}
        state.cached_message_hashes.extend(self._held)
        started = time.perf_counter()
        await self._ws.send(msg.SerializeToString())
        try:
            run = await asyncio.wait_for(self._receive(kind, started), timeout)
        except asyncio.TimeoutError:
            raise SessionError(f"no script_finished within {timeout:.0f} s") from None
        return run

    def _widget_id(self, key: str) -> str:
        try:
            return self.widget_ids[key]
        except KeyError:
            raise SessionError(f"no widget with key {key!r} on the page") from None

    async def _receive(self, kind: str, started: float) -> Run:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        n = nbytes = 0
        shown = bound = viewed = 0.0
        trailing_empty = False  # the latest element is empty: bind_later's placeholder
        captions = []
        self._alerts = []
        while True:
            raw = await self._ws.recv()
            n += 1
            nbytes += len(raw)
            msg = ForwardMsg()
            msg.ParseFromString(raw)
            what = msg.WhichOneof("type")
            if what == "delta":
                trailing_empty = (msg.delta.WhichOneof("type") == "new_element"
                                  and msg.delta.new_element.WhichOneof("type") == "empty")
                viewed = viewed if trailing_empty else time.monotonic()
            if msg.metadata.cacheable and msg.hash:
                self._held[msg.hash] = self._runs
            elif what == "ref_hash":
                self._held[msg.ref_hash] = self._runs
            if what == "delta":
                captions.append(self._read_delta(msg.delta))
            elif what == "new_session":
                self.page_hash = msg.new_session.page_script_hash
                self.session_id = msg.new_session.initialize.session_id or self.session_id
            elif what == "page_info_changed":
                self.query = msg.page_info_changed.query_string
            elif what == "script_finished":
                status = msg.script_finished
                if status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    if trailing_empty and not bound:  # bind_later's part, not another rerun
                        bound, shown = time.monotonic(), viewed
                    continue  # st.rerun() inside the script: the run goes on
                if status == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                    raise SessionError("the script did not compile")
                self.last_kind = kind
                now = time.monotonic()
                return Run(kind, time.perf_counter() - started, n, nbytes, self.round,
                           self.rounds, "\n".join(c for c in captions if c), now,
                           tuple(self._alerts), shown or now, bound or now)

    def _read_delta(self, delta) -> str:
        """Note widget ids, fragment ids and the round label; return a caption's text."""
        if delta.WhichOneof("type") != "new_element":
            return ""
        element = delta.new_element
        what = element.WhichOneof("type")
        body = getattr(element, what)
        if what == "exception":
            raise SessionError(f"the page shows an exception: {body.message[:200]}")
        if what == "alert":
            self._alerts.append(body.body)
        if what == "bidi_component":
            found = _KEPT.search(body.json)
            self.kept = found[1] if found else self.kept
        widget_id = getattr(body, "id", "")
        if widget_id.startswith("$$ID-"):
            key = widget_id.rsplit("-", 1)[-1]
            self.widget_ids[key] = widget_id
            self.fragments[key] = delta.fragment_id
            if key in self.values and getattr(body, "set_value", False):
                self.values[key] = body.value[0]  # the script set it (e.g. the next button)
        if what == "markdown":
            label = _ROUND_LABEL.match(body.body)
            if label:
                self.round, self.rounds = int(label[1]), int(label[2])
            elif body.element_type == body.CAPTION:
                return body.body
        return ""


# --- a level: N sessions at once -------------------------------------------------------

# Fit parameters the sessions move between: 3 x 3 = 9 settings, fewer than the app's
# fit cache holds (12), so a setting once fitted stays cached and a refit would be a bug.
PARAM_VALUES = {"lr": (0.1, 0.2, 0.5), "depth": (2, 3, 4)}
DEFAULTS = {"lr": 0.1, "depth": 3}
# The largest fit the app's controls allow (with --heavy, on data of each session's own).
HEAVY = {"n": 5000, "rounds": 500, "depth": 8}


_SETTING = re.compile(r"ν = ([\d.]+), depth ≤ (\d+)")


def shown_setting(caption: str) -> tuple | None:
    """(lr, depth) as the page's captions state them ("... ν = 0.1, depth ≤ 3 ...")."""
    found = _SETTING.search(caption)
    return (float(found[1]), int(found[2])) if found else None


@dataclass
class LevelResult:
    sessions: int
    seconds: float
    runs: list
    failed: list  # (session index, reason)
    settings: set  # distinct (upstream, lr, depth) the sessions asked for
    peak_rss: int = 0
    fits: int | None = None
    server_cpu: float | None = None  # CPU seconds the server processes used in the level
    rounds: int = 0  # rounds the sessions stepped (in the browser, between reruns)
    load: float | None = None  # the machine's 1-minute load average at the end

    def times(self, *kinds) -> list:
        return [r.seconds for r in self.runs if not kinds or r.kind in kinds]


async def simulate(i: int, url: str, deadline: float, think: float, param_share: float,
                   full_steps: bool, heavy: dict | None, rng: random.Random,
                   result: LevelResult, burst: int = 1, sweep: bool = False) -> None:
    """One student: load, then step rounds and sometimes change lr or depth until the deadline.

    With ``heavy`` (slider values such as :data:`HEAVY`), the student first asks for
    that large fit on data of its own (its own noise and balance): every session then
    holds a distinct large fit, the worst case for memory. With ``sweep`` the student
    opens the Sweep page at :func:`_sweep_link` and only steps.
    """
    session = Session(url, query=_sweep_link(i), page="sweep") if sweep else Session(url)
    setting = dict(DEFAULTS)

    def note():
        result.settings.add((session.upstream, *sorted(setting.items())))

    try:
        await session.open()
        result.runs.append(await session.load())
        if heavy:
            own = {"noise": round((i % 21) * 0.05, 2),  # 21 x 9 distinct data sets
                   "balance": round(0.5 - 0.05 * (i // 21 % 9), 2)}
            setting.update(heavy, **own)
            result.runs.append(await session.set_params({**heavy, **own}))
        note()
        while time.monotonic() < deadline:
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            if rng.random() < param_share:
                key = rng.choice(tuple(PARAM_VALUES))
                setting[key] = rng.choice(PARAM_VALUES[key])
                note()
                before = session.round
                run = await session.set_param(key, setting[key])
                # Checked, not only timed: the page shows this setting at the same round.
                asked = (setting["lr"], setting["depth"])
                if shown_setting(run.caption) != asked or run.round != before:
                    raise SessionError(f"asked for {asked} at round {before}, the page shows "
                                       f"{shown_setting(run.caption)} at round {run.round}")
            else:  # a burst of steps in the browser, then its one rerun
                k = rng.randint(1, 2 * burst - 1)
                m = 0 if session.round >= session.rounds else min(session.round + k,
                                                                 session.rounds)
                result.rounds += max(m - session.round, 1)
                await asyncio.sleep(CLICK_SECONDS * (k - 1))  # the clicks of the burst
                run = await session.set_round(m, fragment=not full_steps)
            result.runs.append(run)
    except Exception as error:  # any failure fails the session; the reason is reported
        result.failed.append((i, f"{type(error).__name__}: {error}"))
    finally:
        try:
            await session.close()
        except Exception:
            pass


async def run_level(url: str, n: int, seconds: float, *, think: float = 1.0,
                    param_share: float = 0.1, full_steps: bool = False, heavy: dict | None = None,
                    seed: int = 0, rss=None, ramp: float = 2.0, burst: int = 1,
                    sweep: bool = False) -> LevelResult:
    """Run n sessions against url for about ``seconds`` (plus the last runs in flight).

    Sessions start spread over ``ramp`` seconds (students do not click at the same
    millisecond); ``rss`` is an optional callable sampled every 0.5 s for the peak.
    """
    if not 1 <= n <= MAX_SESSIONS or not 0 < seconds <= MAX_SECONDS:
        raise ValueError(f"sessions must be 1..{MAX_SESSIONS} and seconds 0..{MAX_SECONDS}")
    result = LevelResult(n, seconds, [], [], set())
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            result.peak_rss = max(result.peak_rss, rss())
            stop.wait(0.5)

    sampler = threading.Thread(target=sample, daemon=True) if rss else None
    if sampler:
        sampler.start()
    started = time.monotonic()
    deadline = started + seconds

    async def delayed(i):
        await asyncio.sleep(ramp * i / n)
        await simulate(i, url, deadline, think, param_share, full_steps, heavy,
                       random.Random(seed * 1000 + i), result, burst, sweep)

    await asyncio.gather(*(delayed(i) for i in range(n)))
    result.seconds = time.monotonic() - started
    stop.set()
    if sampler:
        sampler.join()
    return result


# --- a process that dies, a restart, an hour --------------------------------------------


@dataclass
class Back:
    """One student through a failure: where it was, how its view came back."""

    student: int
    before: str  # the process (X-Upstream, or the server's port) it was on
    after: str = ""
    seconds: float | None = None  # from the kill to the run that showed its view again
    bound: float | None = None  # to that run's charts stepping in the browser again
    linked: float | None = None  # from the kill to the WebSocket open that led there
    how: str = ""  # "rerun", "bar" or "reload" (Session.recover)
    equal: bool | None = None  # page, round and settings as before
    error: str = ""
    affected: bool = False  # its connection dropped


def _sweep_link(i: int) -> str:
    """Student i's sweep (the Sweep page): learning rate x depth, 4 x 4, 100 rounds; one
    in three the class's shared one, the others with a last learning rate of their own
    (the other 12 cells are the shared sweep's, fitted once: explorer/sweep.py)."""
    last = 0.5 if i % 3 == 0 else round(0.3 + 0.01 * (i % 20), 2)
    return urlencode({"sweep": f"lr:0.05,0.1,0.2,{last:g}", "sweep2": "depth:1,2,3,6",
                      "round": 3 + i % 40})


def _link(i: int) -> str:
    """Student i's own view: a round and a setting of its own (three depths, five rates)."""
    return urlencode({"round": 3 + i % 40, "lr": PARAM_VALUES["lr"][i % 3],
                      "depth": PARAM_VALUES["depth"][i // 3 % 3]})


async def _student(i: int, url: str, clock: dict, think: float, killed: dict,
                   back: Back, rng: random.Random, started: asyncio.Event | None = None
                   ) -> list:
    """Step rounds (a fragment rerun every ``think`` s on average) until the deadline; when
    the connection drops, recover as a browser does and check the view that comes back."""
    session = Session(url, query=_link(i))
    runs = []
    try:
        await session.open()
        runs.append(await session.load())
        back.before = session.upstream or url
    except Exception as error:
        back.error = f"load: {type(error).__name__}: {error}"
        if started is not None:
            started.set()
        return runs
    if started is not None:
        started.set()
    reading = i % 3 == 2  # reads the page it loaded until the kill: its last run was a full one
    while time.monotonic() < clock["deadline"]:
        try:
            wait = think * rng.uniform(0.5, 1.5) if not reading or "at" in killed else 0.2
            pause = asyncio.ensure_future(asyncio.sleep(wait))
            closed = asyncio.ensure_future(session.closed())
            await asyncio.wait({pause, closed}, return_when=asyncio.FIRST_COMPLETED)
            pause.cancel(), closed.cancel()
            if session._ws.state.name != "OPEN":
                raise ConnectionError("closed")
            if reading and "at" not in killed:
                continue
            m = session.round + 1 if session.round < session.rounds else 0
            runs.append(await session.set_round(m))
        except Exception as error:  # the connection dropped (or a run failed)
            if "at" not in killed or back.affected:
                back.error = back.error or f"{type(error).__name__}: {error}"
                break
            back.affected = True
            view = session.view()
            try:
                run, back.how = await asyncio.wait_for(session.recover(), 60)
            except Exception as error:
                back.error = f"recover: {type(error).__name__}: {error}"
                break
            runs.append(run)
            back.seconds = run.shown - killed["at"]  # the view on screen again
            back.bound = run.bound - killed["at"]
            back.linked = session.connected_at - killed["at"]
            back.after = session.upstream or url
            link = dict(view[1])  # a setting at its default is not in the link
            m = int(link.get("round", 0))
            shown = shown_setting(run.caption)
            asked = (float(link.get("lr", DEFAULTS["lr"])),
                     int(link.get("depth", DEFAULTS["depth"])))
            back.equal = session.view() == view and run.round == m and shown == asked
            if not back.equal:
                back.error = (f"view {view} -> {session.view()}, round {m} -> {run.round}, "
                              f"setting {asked} -> {shown}")
    await session.close_quietly()
    return runs


async def failure(url: str, n: int, kill, *, before: float = 6.0, after: float = 12.0,
                  think: float = 1.0, seed: int = 0) -> tuple[list, list]:
    """n students stepping at ``url``; ``before`` s after the last has loaded, ``kill()``
    (on a thread), then ``after`` s more. Returns (one Back per student, their runs)."""
    rng = random.Random(seed)
    killed = {}
    backs = [Back(i, "") for i in range(n)]
    loaded = [asyncio.Event() for _ in range(n)]
    clock = {"deadline": float("inf")}  # set once everyone is in and the kill is done

    async def student(i):
        await asyncio.sleep(2.0 * i / n)
        return await _student(i, url, clock, think, killed, backs[i],
                              random.Random(rng.random()), loaded[i])

    async def killer():
        await asyncio.gather(*(e.wait() for e in loaded))
        await asyncio.sleep(before)
        killed["at"] = time.monotonic()
        await asyncio.to_thread(kill)
        clock["deadline"] = time.monotonic() + after

    tasks = [asyncio.ensure_future(student(i)) for i in range(n)]
    await killer()
    runs = [r for t in await asyncio.gather(*tasks) for r in t]
    return backs, runs


def failure_table(backs: list) -> str:
    lines = [f"{'student':>7} {'process':>16} {'then on':>16} {'linked s':>8} "
             f"{'back s':>7} {'bound s':>7} {'how':>7} {'view equal':>10}  error"]
    for b in backs:
        if not b.affected and not b.error:
            lines.append(f"{b.student:>7} {b.before:>16} {'(untouched)':>16} {'-':>8} "
                         f"{'-':>7} {'-':>7} {'-':>7} {'-':>10}")
            continue
        seconds = "-" if b.seconds is None else f"{b.seconds:.2f}"
        bound = "-" if b.bound is None else f"{b.bound:.2f}"
        linked = "-" if b.linked is None else f"{b.linked:.2f}"
        equal = "-" if b.equal is None else ("yes" if b.equal else "NO")
        lines.append(f"{b.student:>7} {b.before:>16} {b.after:>16} {linked:>8} {seconds:>7} "
                     f"{bound:>7} {b.how:>7} {equal:>10}  {b.error}")
    hit = [b for b in backs if b.affected]
    lines.append(f"{len(hit)} of {len(backs)} students on the process that died; back in "
                 f"{_spread([b.seconds for b in hit])} (stepping in the browser again in "
                 f"{_spread([b.bound for b in hit])}), connected again in "
                 f"{_spread([b.linked for b in hit])}, its first run after that "
                 f"{_spread([b.seconds - b.linked for b in hit if b.linked is not None])}; "
                 f"views equal {sum(bool(b.equal) for b in hit)} of {len(hit)}; errors "
                 f"{sum(bool(b.error) for b in backs)}")
    return "\n".join(lines)


def _spread(values) -> str:
    """min-max s (median) of the values that are there."""
    values = [v for v in values if v is not None]
    if not values:
        return "- s"
    return (f"{min(values):.2f}-{max(values):.2f} s (median "
            f"{statistics.median(values):.2f})")


def failover(n: int = 12, *, before: float = 6.0, after: float = 12.0, think: float = 1.0,
             prefix: Path | None = None) -> tuple[list, list, object]:
    """Two processes behind nginx, supervised; n students stepping; SIGKILL to the
    process of student 0. Returns (backs, runs, the cluster's restarts)."""
    cluster = start_cluster(2, prefix=prefix)
    cluster.supervise()
    try:
        for app in cluster.apps:
            asyncio.run(_warm(app.url))
        holder = {}

        def kill():
            victim = cluster.app_for(holder["first"])
            os.kill(victim.pid, signal.SIGKILL)

        async def scenario():
            task = asyncio.ensure_future(failure(cluster.url, n, kill, before=before,
                                                 after=after, think=think))
            while not holder:  # the process of the first student to load is killed
                await asyncio.sleep(0.05)
            return await task

        async def first_upstream():
            s = Session(cluster.url)
            await s.open()
            holder["first"] = s.upstream
            await s.close()

        asyncio.run(first_upstream())
        backs, runs = asyncio.run(scenario())
        return backs, runs, list(cluster.restarts)
    finally:
        cluster.stop()


def restart(n: int = 30, *, before: float = 4.0, after: float = 12.0, think: float = 1.0,
            server=None) -> tuple[list, list, dict, object]:
    """One process (``server``, or one started here) and n students stepping; the process
    is stopped (SIGTERM) and started again on its port, with numba's cache warm. Returns
    (backs, runs, timing, the new process: the caller stops it). ``timing``, in seconds:
    ``at`` (time.monotonic() when the stop began), ``stop`` (the old process stopping), ``start`` (the new one until its health check
    answers), the new process's CPU ``cpu_healthy`` by then and ``cpu_back`` by the time
    the last student was back, and ``load`` (the 1-minute load average then)."""
    if server is None:
        tmp = Path(tempfile.mkdtemp(prefix="load-restart-"))
        server = start_server(tmp / "server.log", count_fits=True)
    held = {"server": server}
    samples = []  # (time.monotonic(), CPU s of the new process)
    done = threading.Event()

    def sample(pid):
        while not done.is_set():
            samples.append((time.monotonic(), tree_cpu(pid)))
            done.wait(0.1)

    try:
        asyncio.run(_warm(server.url))

        def stop_and_start():
            held["at"] = time.monotonic()
            held["server"].stop()
            held["stop"] = time.monotonic() - held["at"]
            began = time.monotonic()
            held["server"] = start_server(server.log, port=server.port, count_fits=True,
                                          keep_log=True)
            held["start"] = time.monotonic() - began
            held["cpu_healthy"] = tree_cpu(held["server"].pid)
            threading.Thread(target=sample, args=(held["server"].pid,), daemon=True).start()

        backs, runs = asyncio.run(failure(server.url, n, stop_and_start, before=before,
                                          after=after, think=think))
    except BaseException:
        held["server"].stop()
        raise
    finally:
        done.set()
    back = held.get("at", 0.0) + max((b.seconds for b in backs if b.seconds is not None),
                                     default=0.0)
    cpu = [c for t, c in samples if t <= back]
    with open("/proc/loadavg") as f:
        load = float(f.read().split()[0])
    timing = dict(at=held.get("at", float("nan")), stop=held.get("stop", float("nan")),
                  start=held.get("start", float("nan")),
                  cpu_healthy=held.get("cpu_healthy", float("nan")),
                  cpu_back=cpu[-1] if cpu else float("nan"), load=load)
    return backs, runs, timing, held["server"]


# The soak: students keep going for the whole run; a window's row once it ends.
SOAK_HEADER = (f"{'window':>9} {'reruns':>7} {'p50 ms':>7} {'p95 ms':>7} {'failed':>6} "
               f"{'RSS MB':>15} {'fits MB':>11} {'grids MB':>11} {'records MB':>11} "
               f"{'figures MB':>11} {'data MB':>9} {'blobs MB':>9}")


def _mmss(seconds: float) -> str:
    return f"{int(seconds) // 60}:{int(seconds) % 60:02d}"


async def soak(url: str, apps: list, n: int, seconds: float, window: float, *,
               think: float = 2.0, param_share: float = 0.1, seed: int = 0,
               out=sys.stdout) -> list[dict]:
    """n students, each acting every ``think`` s on average (``param_share`` of the
    actions a change of lr or depth, the rest a burst of steps and its rerun), for
    ``seconds``; every ``window`` s a row: runs, p50/p95, failures, and per process its
    RSS and its caches' bytes (the processes report them: CACHE_REPORT_ENV)."""
    runs, failures, rows = [], [], []
    started = time.monotonic()
    deadline = started + seconds

    async def student(i):
        rng = random.Random(seed * 1000 + i)
        await asyncio.sleep(10.0 * i / n)  # students arrive over ten seconds
        while time.monotonic() < deadline:
            result = LevelResult(n, seconds, runs, failures, set())
            await simulate(i, url, deadline, think, param_share, False, None, rng, result,
                           burst=5)

    def row(k):
        lo, hi = started + k * window, started + (k + 1) * window
        times = [r.seconds for r in runs if lo <= r.at < hi]
        caches = [app.caches() for app in apps]
        mb = lambda key: "/".join(f"{c.get(key, 0) / 2**20:.1f}" for c in caches)  # noqa: E731
        fails = len(failures) - sum(r["failed"] for r in rows)
        rss = "/".join(f"{app.rss() / 2**20:.0f}" for app in apps)
        rows.append(dict(window=k, reruns=len(times), p50=1000 * percentile(times, 50),
                         p95=1000 * percentile(times, 95), failed=fails,
                         rss=[app.rss() for app in apps], caches=caches))
        label = f"{_mmss(k * window)}-{_mmss((k + 1) * window)}"
        print(f"{label:>9} {len(times):>7} "
              f"{rows[-1]['p50']:>7.0f} {rows[-1]['p95']:>7.0f} {fails:>6} {rss:>15} "
              f"{mb('fits'):>11} {mb('grids'):>11} {mb('records'):>11} {mb('figures'):>11} "
              f"{mb('data'):>9} {mb('blobs'):>9}", file=out, flush=True)

    async def windows():
        for k in range(int(round(seconds / window))):
            await asyncio.sleep(max(0.0, started + (k + 1) * window - time.monotonic()))
            await asyncio.to_thread(row, k)

    await asyncio.gather(windows(), *(student(i) for i in range(n)))
    for i, reason in failures[:10]:
        print(f"  student {i} failed: {reason}", file=out)
    return rows


# --- the report ------------------------------------------------------------------------


def percentile(values, q):
    if not values:
        return float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(
        values) > 1 else values[0]


HEADER = (f"{'sessions':>8} {'reruns':>7} {'p50 ms':>7} {'p95 ms':>7} {'step p95':>9} "
          f"{'full p95':>9} {'max ms':>7} {'reruns/s':>9} {'failed':>7} {'RSS MB':>7} "
          f"{'fits/settings':>14} {'CPU ms/run':>10} {'CPU s/min':>9} {'load':>5}")


def row(r: LevelResult) -> str:
    ms = lambda values, q: 1000 * percentile(values, q)  # noqa: E731
    every, steps, fulls = r.times(), r.times("step"), r.times("full", "load")
    fits = "-" if r.fits is None else f"{r.fits}/{len(r.settings)}"
    return (f"{r.sessions:>8} {len(r.runs):>7} {ms(every, 50):>7.0f} {ms(every, 95):>7.0f} "
            f"{ms(steps, 95):>9.0f} {ms(fulls, 95):>9.0f} "
            f"{1000 * max(every, default=float('nan')):>7.0f} "
            f"{len(r.runs) / r.seconds:>9.1f} {len(r.failed):>7} "
            f"{r.peak_rss / 2**20:>7.0f} {fits:>14} "
            f"{1000 * (r.server_cpu or float('nan')) / max(len(r.runs), 1):>10.0f} "
            f"{(r.server_cpu or float('nan')) / (r.sessions * r.seconds / 60):>9.2f} "
            f"{r.load if r.load is not None else float('nan'):>5.1f}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions",
                        help="comma-separated concurrent session counts (default 1,10,30,60; "
                             "--failover 12, --restart 30, --soak 100)")
    parser.add_argument("--duration", type=float,
                        help="seconds per level (default 20; --soak 3600)")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--failover", action="store_true",
                      help="2 processes behind nginx, supervised; students stepping; SIGKILL "
                           "to one process: per student the time back, the view, any error")
    what.add_argument("--restart", action="store_true",
                      help="1 process, students stepping; the process stopped and started "
                           "again on its port (numba's cache warm): the same table")
    what.add_argument("--soak", action="store_true",
                      help="students on 2 processes behind nginx, each acting every --think "
                           "s (default 2), 10%% of actions a setting: per --window, RSS, the "
                           "caches' bytes, p50/p95 and failures")
    parser.add_argument("--window", type=float, default=300.0,
                        help="--soak: seconds per row (default 300)")
    parser.add_argument("--think", type=float,
                        help="mean pause between a session's actions, s (0 = no pause; "
                             "default 1, --soak 2)")
    parser.add_argument("--param-share", type=float, default=0.1,
                        help="share of actions that change lr or depth (a full rerun)")
    parser.add_argument("--burst", type=int, default=5,
                        help="mean rounds a student steps in the browser before its one rerun "
                             "(default 5; 1 = a rerun at every step)")
    parser.add_argument("--full-steps", action="store_true",
                        help="send round steps as full-app reruns instead of fragment reruns")
    parser.add_argument("--heavy", nargs="?", const="5000x500", metavar="NxM",
                        help="each session first asks for a fit of N points, M rounds, depth 8 "
                             "(default 5000x500, the largest the app allows) on data of its "
                             "own: the worst case for memory")
    parser.add_argument("--apps", type=int, default=1,
                        help="app processes; more than 1 puts them behind nginx (deploy/)")
    parser.add_argument("--url", help="use this running server or proxy (loopback only) "
                                      "instead of starting one per level")
    parser.add_argument("--floor", action="store_true",
                        help="after each level, the same load on the floor (benchmarks/"
                             "floor_app.py: the same sidebar, fit and round bar, no chart), "
                             "and the app's ratio to it")
    parser.add_argument("--sweep", action="store_true",
                        help="each session opens the Sweep page, a 4 x 4 sweep (learning rate x "
                             "depth, 100 rounds): a third share one, the others change one "
                             "value of their own (4 cells of their own), then step")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.failover or args.restart or args.soak:
        return _failures(args)
    args.think = 1.0 if args.think is None else args.think
    args.duration = args.duration or 20.0
    levels = [int(s) for s in (args.sessions or "1,10,30,60").split(",")]
    if args.url:
        check_loopback(urlparse(args.url).hostname)

    where = (f"against {args.url}" if args.url else "one app process" if args.apps == 1
             else f"{args.apps} app processes behind nginx")
    heavy = None
    if args.heavy:
        n_points, n_rounds = (int(v) for v in args.heavy.lower().split("x"))
        heavy = {**HEAVY, "n": n_points, "rounds": n_rounds}
        where += f"; a distinct {n_points}-point {n_rounds}-round depth-8 fit per session"
    if args.sweep:  # a sweep's settings are its link's: the students only step
        args.param_share = 0.0
        where += "; every session on the Sweep page (4 x 4 sweeps, a third shared), stepping"
    print(f"{where}; think {args.think:g} s, {args.param_share:.0%} of actions change a "
          f"parameter, bursts of {args.burst} rounds on average stepped in the browser, each "
          f"then one {'full' if args.full_steps else 'fragment'} rerun, "
          f"{args.duration:g} s per level, {os.cpu_count()} cores")
    print(HEADER)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="load-") as tmp:
        for n in levels:
            result = measure(n, args, heavy, Path(tmp) / f"level-{n}")
            print(row(result), flush=True)
            for i, reason in result.failed[:5]:
                print(f"         session {i} failed: {reason}")
            failed += len(result.failed)
            if args.floor:
                floor = measure(n, args, heavy, Path(tmp) / f"floor-{n}", script=FLOOR)
                print(row(floor) + "  <- floor (no chart)", flush=True)
                print(f"{'':>8} app / floor: p95 {ratio(result.times(), floor.times(), 95)}, "
                      f"CPU per rerun {cpu_ratio(result, floor)}", flush=True)
                failed += len(floor.failed)
    print("RSS: peak resident memory of the app processes (and nginx), children included.\n"
          "CPU ms/run: CPU time of the app processes (and nginx) per rerun (1000 / it = the\n"
          "reruns/s one process can do on one core); CPU s/min: server CPU seconds a minute of\n"
          "one student's stepping costs; load: 1-minute load average at the end\n"
          "(above ~2 on 2 cores, something else competed for the CPU).\n"
          "fits/settings: fits the processes performed / distinct (process, lr, depth) the "
          "sessions used;\nequal = each setting fitted once per process, for everyone on it.")
    return 1 if failed else 0


def _failures(args) -> int:
    """--failover, --restart and --soak."""
    n = int(args.sessions or (12 if args.failover else 30 if args.restart else 100))
    if not 1 <= n <= MAX_SESSIONS:
        raise ValueError(f"sessions must be 1..{MAX_SESSIONS}")
    if args.soak:
        seconds = args.duration or 3600.0
        think = 2.0 if args.think is None else args.think
        print(f"soak: {n} students on 2 processes behind nginx for {seconds / 60:g} min, each "
              f"acting every {think:g} s on average, {args.param_share:.0%} of actions a "
              f"setting; a row per {args.window / 60:g} min; {os.cpu_count()} cores")
        print("RSS, caches: per process (a/b); fits, grids, records, figures, data, blobs: "
              "bytes the caches hold (explorer.process.cache_bytes)")
        print(SOAK_HEADER)
        with tempfile.TemporaryDirectory(prefix="soak-") as tmp:
            cluster = start_cluster(2, prefix=Path(tmp),
                                    env={CACHE_REPORT_ENV: str(min(30.0, args.window / 2))})
            cluster.supervise()
            try:
                for app in cluster.apps:
                    asyncio.run(_warm(app.url))
                rows = asyncio.run(soak(cluster.url, cluster.apps, n, seconds, args.window,
                                        think=think, param_share=args.param_share,
                                        seed=args.seed))
                restarts = list(cluster.restarts)
            finally:
                cluster.stop()
        if restarts:
            print(f"processes started again: {restarts}")
        return 1 if any(r["failed"] for r in rows) or restarts else 0
    think = 1.0 if args.think is None else args.think
    if args.failover:
        print(f"failover: {n} students stepping (one step every {think:g} s on average) on 2 "
              "processes behind nginx; SIGKILL to one process 6 s after all have loaded")
        backs, _, restarts = failover(n, think=think)
        print(failure_table(backs))
        print("the supervisor started the killed process again: "
              + ", ".join(f"{what} on port {port} ({s:.1f} s to healthy)"
                          for what, port, _, s in restarts))
    else:
        print(f"restart: {n} students stepping (one step every {think:g} s on average) on "
              "one process; the process stopped (SIGTERM) and started again on its port, "
              "numba's cache warm")
        backs, _, timing, server = restart(n, think=think)
        server.stop()
        print(failure_table(backs))
        print(f"the old process stopped in {timing['stop']:.1f} s; the new one answered its "
              f"health check {timing['start']:.1f} s later, having used {timing['cpu_healthy']:.1f}"
              f" s of CPU, and {timing['cpu_back']:.1f} s by the time the last student was "
              f"back; load average {timing['load']:.1f} then ({os.cpu_count()} cores)")
    print("linked s: from the kill to the WebSocket that brought the view back; back s: "
          "to the run that shows it\n(its last element before a new fit's charts are bound); "
          "bound s: to those bindings made (the run's\nfirst part over);\nhow: rerun = Streamlit's frontend reconnected and "
          "reran (its last run was a fragment's), bar = the\nround bar's round after the "
          "frontend reconnected, reload = the bar loaded the page again at its link (a new\n"
          "session: its poll found a new process, or its watchdog the session gone); view "
          "equal: page, round\nand settings as the link had them, shown by the page.")
    bad = [b for b in backs if b.error or (b.affected and not b.equal)]
    return 1 if bad else 0


FLOOR = Path(__file__).with_name("floor_app.py")


def ratio(app: list, floor: list, q: int) -> str:
    return f"{percentile(app, q) / percentile(floor, q):.2f}x"


def cpu_ratio(app: LevelResult, floor: LevelResult) -> str:
    per_run = lambda r: (r.server_cpu or float("nan")) / max(len(r.runs), 1)  # noqa: E731
    return f"{per_run(app) / per_run(floor):.2f}x"


def measure(n: int, args, heavy: dict | None, tmp: Path, script: Path | None = None
            ) -> LevelResult:
    """One level on a fresh server (or cluster), warmed first, stopped after; ``script``:
    a single process running another Streamlit script (the floor) instead of the app."""
    options = dict(think=args.think, param_share=args.param_share,
                   full_steps=args.full_steps, heavy=heavy, seed=args.seed, burst=args.burst,
                   sweep=args.sweep)
    if args.url:
        return asyncio.run(run_level(args.url, n, args.duration, **options))
    if script is not None:
        server = start_server(tmp / "server.log", app=script)
        url, apps, stop, extra = server.url, [server], server.stop, []
    elif args.apps > 1:
        cluster = start_cluster(args.apps, prefix=tmp)
        url, apps, stop = cluster.url, cluster.apps, cluster.stop
        extra = [cluster.nginx.pid]
    else:
        server = start_server(tmp / "server.log", count_fits=True)
        url, apps, stop, extra = server.url, [server], server.stop, []
    try:
        for app in apps:  # compile/warm the engine and fit the default setting, directly
            asyncio.run(_warm(app.url))
        base = sum(app.fits() for app in apps)
        pids = [app.pid for app in apps] + extra
        cpu = sum(tree_cpu(p) for p in pids)
        result = asyncio.run(run_level(url, n, args.duration,
                                       rss=lambda: sum(tree_rss(p) for p in pids), **options))
        result.server_cpu = sum(tree_cpu(p) for p in pids) - cpu
        with open("/proc/loadavg") as f:
            result.load = float(f.read().split()[0])
        # Each process fitted the default setting during the warm-up; count it once per
        # process that served a session (the settings include it for them).
        used = {s[0] for s in result.settings}
        result.fits = None if script else sum(app.fits() for app in apps) - base + len(used)
        return result
    finally:
        stop()


async def _warm(url: str) -> None:
    session = Session(url)
    await session.open()
    await session.load()
    await session.close()


if __name__ == "__main__":
    sys.exit(main())
