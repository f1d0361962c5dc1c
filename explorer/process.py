"""Start and stop the app's Streamlit server on loopback: one place for the tests, the
benchmarks and ``deploy/``.

:func:`start_server` runs ``streamlit run app.py`` (or another script) headless on
127.0.0.1 (a free port unless given), writes its output to a log file and waits until
``/_stcore/health`` answers; :func:`stop_process` ends a process and the children it
started. The standard library only: Streamlit is imported by the server process, never
here.

With ``count_fits=True`` the server runs in a small wrapper, this module run as

    python -m explorer.process --server.port=8501 ...   (flags for ``streamlit run``)

which starts a thread that prints ``explorer.fit_count()`` to the log whenever it
changes, then runs ``streamlit run app.py`` in the same process (the app imports the
same ``explorer`` module object); :meth:`AppServer.fits` reads the last count.
"""

from __future__ import annotations

import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"
HOST = "127.0.0.1"
# streamlit run's flags for a server nobody watches: no browser tab, no usage statistics,
# no file watcher, loopback only.
HEADLESS_ARGS = ("--server.headless=true", f"--server.address={HOST}",
                 "--browser.gatherUsageStats=false", "--server.fileWatcherType=none")

# The browser the browser tests and benchmarks/bench_app.py drive: Debian's, never a
# downloaded one, with the flags a headless run in a container needs.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

_FITS = re.compile(r"^\[explorer\] fits=(\d+)$", re.M)
_CACHES = re.compile(r"^\[explorer\] caches (\{.*\})$", re.M)
# Seconds between two reports of the caches' sizes by the fit-counting wrapper (unset:
# none; each report walks the caches, a few milliseconds).
CACHE_REPORT_ENV = "EXPLORER_CACHE_REPORT"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


@dataclass
class AppServer:
    """A Streamlit server (of the app, unless another script was given) on loopback,
    started by :func:`start_server`."""

    url: str
    port: int
    process: subprocess.Popen
    log: Path
    started: float = field(default=0.0)  # time.perf_counter() when the process started

    @property
    def pid(self) -> int:
        return self.process.pid

    def fits(self) -> int:
        """Fits the process has started so far (the last count its wrapper printed;
        0 unless started with ``count_fits=True``)."""
        time.sleep(0.15)  # the wrapper polls every 50 ms
        counts = _FITS.findall(self.log.read_text(errors="replace"))
        return int(counts[-1]) if counts else 0

    def caches(self) -> dict:
        """The last report of the process's cache sizes in bytes (:func:`cache_bytes`),
        or {} (started without ``count_fits`` and :data:`CACHE_REPORT_ENV`)."""
        import json
        reports = _CACHES.findall(self.log.read_text(errors="replace"))
        return json.loads(reports[-1]) if reports else {}

    def rss(self) -> int:
        """Resident memory of the server and its children, in bytes."""
        return tree_rss(self.pid)

    def stop(self) -> None:
        stop_process(self.process)


def start_server(log: Path, *, port: int | None = None, extra_args: tuple = (),
                 env: dict | None = None, timeout: float = 120.0,
                 count_fits: bool = False, app: Path = APP,
                 keep_log: bool = False) -> AppServer:
    """Start ``streamlit run app.py`` (or another script, ``app``) on 127.0.0.1 and wait
    for its health check.

    Parameters
    ----------
    log : Path
        File that receives the server's output (and the fit counts).
    port : int, optional
        Port to listen on; a free one by default.
    extra_args : tuple of str
        More ``--section.option=value`` flags for ``streamlit run``.
    env : dict, optional
        Extra environment variables.
    timeout : float
        Seconds to wait for ``/_stcore/health``.
    count_fits : bool
        Run the server in this module's wrapper, which logs the process's fit count
        (read it with :meth:`AppServer.fits`); app.py only.
    app : Path
        The Streamlit script to run: the app by default (benchmarks/bench_app.py also
        times a bare one).
    keep_log : bool
        Add to ``log`` instead of starting it anew (a process started again on the
        same port by ``deploy/run_cluster.py`` keeps its predecessor's output above).

    Raises
    ------
    ValueError
        If ``count_fits`` is asked of a script other than app.py.
    RuntimeError
        If the process exits or does not answer within ``timeout``; the message ends
        with the tail of its log. The process is stopped first.
    """
    if count_fits and app != APP:
        raise ValueError("count_fits runs app.py only")
    port = port or free_port()
    args = [f"--server.port={port}", *HEADLESS_ARGS, *extra_args]
    command = ([sys.executable, "-m", "explorer.process", *args] if count_fits
               else [sys.executable, "-m", "streamlit", "run", str(app), *args])
    log.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with open(log, "a" if keep_log else "w") as out:
        if keep_log:
            out.write(f"--- started again {time.strftime('%Y-%m-%d %H:%M:%S')} ---\n")
        process = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
    server = AppServer(f"http://{HOST}:{port}", port, process, log, started)
    try:
        wait_healthy(server.url, timeout, process)
    except RuntimeError as error:
        server.stop()
        raise RuntimeError(f"{error}\n{log.read_text(errors='replace')[-3000:]}") from None
    except BaseException:
        server.stop()
        raise
    return server


def wait_healthy(url: str, timeout: float, process: subprocess.Popen | None = None,
                 path: str = "/_stcore/health") -> None:
    """Poll ``url + path`` until it answers 200 (or raise RuntimeError with the reason)."""
    deadline = time.monotonic() + timeout
    while True:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{process.args[:3]} exited with {process.returncode}")
        try:
            if _status(url, path) == 200:
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} did not become healthy in {timeout:.0f} s")
        time.sleep(0.1)


def _status(url: str, path: str) -> int:
    """The status of a GET (http.client: no proxy from the environment on loopback)."""
    host, _, port = url.split("://", 1)[-1].partition(":")
    conn = http.client.HTTPConnection(host, int(port or 80), timeout=2)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def stop_process(process: subprocess.Popen, timeout: float = 15.0) -> None:
    """SIGTERM, then SIGKILL after ``timeout`` s; then the same for any child it left.

    Only the process we started and its own descendants (noted before it is stopped,
    each checked by its start time so a reused pid is never signalled).
    """
    children = [(p, _start_time(p)) for p in descendants(process.pid)[1:]]
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
    left = [(p, t) for p, t in children if t is not None and _start_time(p) == t]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for p, _ in left:
            try:
                os.kill(p, sig)
            except OSError:
                pass
        deadline = time.monotonic() + 5
        while left and time.monotonic() < deadline:
            left = [(p, t) for p, t in left if _start_time(p) == t]
            time.sleep(0.05)


# --- a process and its descendants, from /proc ------------------------------------------


def _stat_fields(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as f:
        # the fields after the ")" that closes the command name: state, ppid, ...
        return f.read().rsplit(")", 1)[1].split()


def _start_time(pid: int) -> int | None:
    try:
        fields = _stat_fields(pid)
    except (OSError, IndexError):
        return None
    return None if fields[0] == "Z" else int(fields[19])  # a zombie is gone already


def descendants(pid: int) -> list[int]:
    """A process and all its descendants (from /proc/*/stat), the process first."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(_stat_fields(int(entry))[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(children.get(p, ()))
    return found


def _over_tree(pid: int, read) -> int:
    """The sum of ``read(p)`` over a process and its descendants (gone ones count 0)."""
    total = 0
    for p in descendants(pid):
        try:
            total += read(p)
        except (OSError, IndexError, ValueError):
            pass
    return total


def _rss(p: int) -> int:
    with open(f"/proc/{p}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def _cpu_ticks(p: int) -> int:
    fields = _stat_fields(p)
    return int(fields[11]) + int(fields[12])  # utime, stime in clock ticks


def tree_rss(pid: int) -> int:
    """VmRSS of a process and all its descendants, in bytes (0 if it is gone)."""
    return _over_tree(pid, _rss)


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by a process and its descendants."""
    return _over_tree(pid, _cpu_ticks) / os.sysconf("SC_CLK_TCK")


# --- the wrapper that counts fits --------------------------------------------------------


def _serve(argv: list[str]) -> int:
    """Run ``streamlit run app.py <argv>`` in this process, printing the fit count."""
    import threading

    import explorer
    from streamlit.web import cli

    def report_fits():
        last = None
        while True:
            count = explorer.fit_count()
            if count != last:
                print(f"[explorer] fits={count}", flush=True)
                last = count
            time.sleep(0.05)

    def report_caches(every: float):
        import json
        while True:
            time.sleep(every)
            try:
                print(f"[explorer] caches {json.dumps(cache_bytes())}", flush=True)
            except Exception as error:  # a report is never worth the server
                print(f"[explorer] caches not measured: {error!r}", flush=True)

    threading.Thread(target=report_fits, name="fit-count", daemon=True).start()
    if os.environ.get(CACHE_REPORT_ENV):
        threading.Thread(target=report_caches, args=(float(os.environ[CACHE_REPORT_ENV]),),
                         name="cache-report", daemon=True).start()
    sys.argv = ["streamlit", "run", str(APP), *argv]
    return cli.main()


def _size(nbytes) -> int:
    return nbytes() if callable(nbytes) else nbytes


def cache_bytes() -> dict[str, int]:
    """Bytes the app's caches hold in this server process, by kind: fits (each cached
    Trace's record, ``Trace.nbytes``), grids (F on the plane), records (the browser's
    bytes of a fit), figures (the JSON of the figure caches and of the sweep's fits),
    data (the toy sets' points), blobs (the chart addresses' store, strings shared with
    the figure caches). Every ``st.cache_resource`` of every session is walked; an
    object held twice counts once."""
    import dataclasses

    import numpy as np
    from streamlit.runtime.caching import cache_resource_api

    from explorer.app import blobs
    from explorer.app.figure_cache import FigureCache
    from explorer.dataset import Data
    from explorer.numbers.grid import Grid
    from explorer.sweep import FitCache
    from explorer.trace import Trace

    sizes = dict(fits=0, grids=0, records=0, figures=0, data=0)
    seen = set()

    def add(value, depth=0):
        if id(value) in seen or depth > 3:
            return
        seen.add(id(value))
        if isinstance(value, Trace):
            sizes["fits"] += _size(value.nbytes)
        elif isinstance(value, Grid):
            sizes["grids"] += value.F.nbytes
        elif isinstance(value, (bytes, bytearray)):
            sizes["records"] += len(value)
        elif isinstance(value, FigureCache):
            sizes["figures"] += _size(value.nbytes)
        elif isinstance(value, FitCache):
            with value._lock:
                entries = list(value._items.values())
            for entry in entries:
                add(entry, depth + 1)
        elif isinstance(value, Data):
            for part in (value.train, value.valid):
                if part is not None:
                    arrays = (getattr(part, f.name) for f in dataclasses.fields(part))
                    sizes["data"] += sum(a.nbytes for a in arrays if isinstance(a, np.ndarray))
        elif isinstance(value, tuple):  # (trace, grid, key), (fitted, size), ...
            for item in value:
                add(item, depth + 1)

    caches = cache_resource_api._resource_caches
    with caches._caches_lock:
        every = [c for per in caches._function_caches.values() for c in per.values()]
    for cache in every:
        with cache._mem_cache_lock:
            values = [result.value for result in cache._mem_cache.values()]
        for value in values:
            add(value)
    sizes["blobs"] = blobs._bytes
    return sizes


if __name__ == "__main__":
    sys.exit(_serve(sys.argv[1:]))
