"""Run N app processes and nginx in front of them, all on loopback.

    python -m deploy.run_cluster                 # 2 apps behind http://127.0.0.1:8080
    python -m deploy.run_cluster --apps 3 --port 9000

Ctrl-C stops nginx and the apps. What it does, in order:

1. compiles the numba engine once into the shared cache (``python -m explorer warmup`` in a
   short-lived process), so the apps load compiled kernels instead of each compiling;
2. starts the apps on free loopback ports (:func:`explorer.process.start_server`,
   with ``count_fits=True`` so each process logs its fit count) with one shared
   ``server.cookieSecret``, so an XSRF cookie from one process is valid in another
   if a browser ever moves;
3. writes ``deploy/nginx.conf.template`` with those ports into a private prefix
   directory and runs nginx there in the foreground (no root paths), then waits
   until ``/nginx-health`` and every app's ``/_stcore/health`` answer;
4. supervises: an app process that exits (killed, out of memory, a crash) is started
   again on its own port, and nginx meanwhile passes its browsers to the others; nginx
   is started again too if it exits. Nothing else stops.

:func:`start_cluster` does the same for the tests and returns a :class:`Cluster`.
"""

from __future__ import annotations

import argparse
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from explorer.process import (ROOT, AppServer, free_port, start_server, stop_process,
                              wait_healthy)

TEMPLATE = Path(__file__).with_name("nginx.conf.template")


def nginx_binary() -> str:
    found = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(found).exists():
        raise RuntimeError("nginx is missing: apt-get install nginx (make test does it)")
    return found


# A process that refused a connection is passed over for this long, then tried again:
# a restarted one gets its browsers back. A refused connection costs nothing, so short.
FAIL_TIMEOUT = "2s"


def render(port: int, app_ports: list[int], prefix: Path, workers: str = "1") -> str:
    """The nginx configuration for these ports (the template with its placeholders filled)."""
    def server(p, backup=False):
        return (f"        server 127.0.0.1:{p}{' backup' if backup else ''} "
                f"max_fails=1 fail_timeout={FAIL_TIMEOUT};")

    routes = []
    for n, p in enumerate(app_ports):  # process n first, the others if it refuses
        routes += [f"    upstream bx_app_{n} {{", server(p),
                   *(server(q, backup=True) for q in app_ports if q != p), "    }"]
    values = {
        "@PREFIX@": str(prefix),
        "@LISTEN@": f"127.0.0.1:{port}",
        "@WORKERS@": workers,
        "@ANY@": "\n".join(server(p) for p in app_ports),
        "@ROUTES@": "\n".join(routes),
        "@ROUTE_MAP@": "\n".join(f"        {n} bx_app_{n};" for n in range(len(app_ports))),
        "@SERVED_MAP@": "\n".join(f'        "~127\\.0\\.0\\.1:{p}$" {n};'
                                   for n, p in enumerate(app_ports)),
    }
    lines = []
    for line in TEMPLATE.read_text().splitlines():
        if not line.lstrip().startswith("#"):  # the comments name the placeholders too
            for name, value in values.items():
                line = line.replace(name, value)
        lines.append(line)
    return "\n".join(lines) + "\n"


@dataclass
class Cluster:
    """nginx on ``url`` in front of ``apps``; :meth:`stop` ends them all.

    :meth:`revive` starts again, each on its own port, the app processes (and nginx)
    that have exited; :meth:`supervise` does it on a thread until :meth:`stop`.
    """

    url: str
    apps: list[AppServer]
    nginx: subprocess.Popen | None
    prefix: Path
    _own_prefix: bool = field(default=False, repr=False)
    env: dict = field(default_factory=dict)  # the apps' environment (the cookie secret)
    timeout: float = 120.0
    restarts: list = field(default_factory=list)  # (what, port, exit code, seconds to healthy)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _stopping: threading.Event = field(default_factory=threading.Event, repr=False)
    _supervisor: threading.Thread | None = field(default=None, repr=False)
    _next_try: dict = field(default_factory=dict, repr=False)  # app index -> (time, delay)

    def app_for(self, upstream: str) -> AppServer:
        """The app process behind an ``X-Upstream`` value such as ``127.0.0.1:40123``."""
        for app in self.apps:
            if upstream.endswith(f":{app.port}"):
                return app
        raise KeyError(upstream)

    def stop(self) -> None:
        self._stopping.set()
        if self._supervisor is not None:
            self._supervisor.join()
            self._supervisor = None
        with self._lock:
            if self.nginx is not None:
                stop_process(self.nginx)  # SIGTERM: nginx's fast shutdown
                self.nginx = None
            for app in self.apps:
                app.stop()
        if self._own_prefix:
            shutil.rmtree(self.prefix, ignore_errors=True)

    # --- supervision ---

    def revive(self, log=None) -> list[int]:
        """Start again every app process that has exited, on the port it had (nginx's
        configuration names the ports), and nginx if it has exited; returns the indexes
        of the apps started. A process that exits again soon after its start is
        started again after a delay that doubles each time (1 s up to 30 s), so that a
        process that cannot start does not take the machine's cores."""
        started = []
        with self._lock:
            for i, app in enumerate(self.apps):
                if self._stopping.is_set() or app.process.poll() is None:
                    continue
                code = app.process.returncode
                due, delay = self._next_try.get(i, (0.0, 0.0))
                if time.monotonic() < due:
                    continue
                _say(log, f"app {i} (pid {app.pid}, port {app.port}) exited with "
                          f"{_exit_text(code)}; starting it again on port {app.port}")
                began = time.perf_counter()
                try:
                    self.apps[i] = start_server(
                        self.prefix / f"app-{i}.log", port=app.port, env=self.env,
                        timeout=self.timeout, count_fits=True, keep_log=True)
                except RuntimeError as error:
                    _say(log, f"app {i} did not start: {str(error).splitlines()[0]}")
                    delay = min(max(2 * delay, 1.0), 30.0)
                    self._next_try[i] = (time.monotonic() + delay, delay)
                    continue
                seconds = time.perf_counter() - began
                # ran less than a minute: the next restart waits (a crash at start)
                ran = began - app.started if app.started else 60.0
                delay = 0.0 if ran >= 60 else min(max(2 * delay, 1.0), 30.0)
                self._next_try[i] = (time.monotonic() + delay, delay)
                self.restarts.append((f"app {i}", app.port, code, seconds))
                _say(log, f"app {i} answers again (pid {self.apps[i].pid}, "
                          f"{seconds:.1f} s)")
                started.append(i)
            if (not self._stopping.is_set() and self.nginx is not None
                    and self.nginx.poll() is not None):
                code = self.nginx.returncode
                _say(log, f"nginx exited with {_exit_text(code)}; starting it again")
                self.nginx = _start_nginx(self.prefix)
                self.restarts.append(("nginx", None, code, 0.0))
        return started

    def supervise(self, interval: float = 0.2, log=None) -> None:
        """Revive exited processes every ``interval`` seconds, on a thread, until
        :meth:`stop`."""
        def watch():
            while not self._stopping.wait(interval):
                self.revive(log)

        self._supervisor = threading.Thread(target=watch, name="cluster-supervisor",
                                            daemon=True)
        self._supervisor.start()


def _exit_text(code: int | None) -> str:
    if code is not None and code < 0:
        return f"signal {signal.Signals(-code).name}"
    return f"code {code}"


def _say(log, text: str) -> None:
    print(time.strftime("%H:%M:%S ") + text, file=log or sys.stderr, flush=True)


def warm_numba_cache() -> None:
    """Compile the engine once so every app process loads it from numba's disk cache."""
    subprocess.run([sys.executable, "-m", "explorer", "warmup"], cwd=ROOT,
                   check=True, timeout=600)


def start_cluster(apps: int = 2, port: int | None = None, prefix: Path | None = None,
                  warm: bool = True, timeout: float = 120.0,
                  env: dict | None = None) -> Cluster:
    """Start ``apps`` app processes and nginx in front of them on 127.0.0.1.

    Parameters
    ----------
    apps : int
        Number of app processes.
    port : int, optional
        nginx's port; a free one by default.
    prefix : Path, optional
        Directory for nginx's configuration, pid, logs and temp files and the apps'
        logs; a new temporary one (removed by :meth:`Cluster.stop`) by default.
    warm : bool
        Compile the numba engine into the disk cache first.
    timeout : float
        Seconds to wait for each process to answer its health check.
    env : dict, optional
        More environment variables for the apps.
    """
    own = prefix is None
    prefix = Path(tempfile.mkdtemp(prefix="bx-nginx-")) if own else Path(prefix)
    prefix.mkdir(parents=True, exist_ok=True)
    # nginx started as root runs its workers as "nobody": they must reach the temp dirs.
    prefix.chmod(0o755)
    env = {"STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(32), **(env or {})}
    cluster = Cluster("", [], None, prefix, own, env=env, timeout=timeout)
    try:
        if warm:
            warm_numba_cache()
        for i in range(apps):
            cluster.apps.append(start_server(prefix / f"app-{i}.log", env=env,
                                             timeout=timeout, count_fits=True))
        port = port or free_port()
        (prefix / "nginx.conf").write_text(render(port, [a.port for a in cluster.apps],
                                                  prefix))
        cluster.nginx = _start_nginx(prefix)
        cluster.url = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(cluster.url, timeout, cluster.nginx,
                         path="/nginx-health")
        except RuntimeError as error:
            raise RuntimeError(f"{error}\n{_tail(prefix / 'error.log')}"
                               f"{_tail(prefix / 'nginx.out')}") from None
    except BaseException:
        cluster.stop()
        raise
    return cluster


def _start_nginx(prefix: Path) -> subprocess.Popen:
    with open(prefix / "nginx.out", "a") as out:
        return subprocess.Popen(
            [nginx_binary(), "-p", str(prefix), "-c", str(prefix / "nginx.conf"),
             "-e", str(prefix / "error.log"), "-g", "daemon off;"],
            stdout=out, stderr=subprocess.STDOUT)


def _tail(path: Path, n: int = 2000) -> str:
    return path.read_text(errors="replace")[-n:] if path.exists() else ""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apps", type=int, default=2, help="app processes (default 2)")
    parser.add_argument("--port", type=int, default=8080, help="nginx port (default 8080)")
    parser.add_argument("--prefix", type=Path,
                        help="directory for nginx's files and the logs (default: a temp dir)")
    args = parser.parse_args(argv)
    cluster = start_cluster(args.apps, args.port, args.prefix)
    print(f"Boosting Explorer on {cluster.url} ({args.apps} processes: "
          + ", ".join(f"pid {a.pid} on :{a.port}" for a in cluster.apps)
          + f"); nginx files and logs in {cluster.prefix}. Ctrl-C stops.", flush=True)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):  # SIGINT too: a background job ignores it
        signal.signal(sig, lambda *_: stop.set())
    try:
        # An app that exits is started again on its port; nginx keeps serving meanwhile,
        # passing its browsers to the other processes (deploy/README.md).
        while not stop.wait(0.5):
            cluster.revive()
    finally:
        cluster.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
