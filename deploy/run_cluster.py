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
   until ``/nginx-health`` and every app's ``/_stcore/health`` answer.

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


def render(port: int, app_ports: list[int], prefix: Path, workers: str = "1") -> str:
    """The nginx configuration for these ports (the template with its placeholders filled)."""
    values = {
        "@PREFIX@": str(prefix),
        "@LISTEN@": f"127.0.0.1:{port}",
        "@WORKERS@": workers,
        "@UPSTREAMS@": "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;"
                                  for p in app_ports),
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
    """nginx on ``url`` in front of ``apps``; :meth:`stop` ends them all."""

    url: str
    apps: list[AppServer]
    nginx: subprocess.Popen | None
    prefix: Path
    _own_prefix: bool = field(default=False, repr=False)

    def app_for(self, upstream: str) -> AppServer:
        """The app process behind an ``X-Upstream`` value such as ``127.0.0.1:40123``."""
        for app in self.apps:
            if upstream.endswith(f":{app.port}"):
                return app
        raise KeyError(upstream)

    def stop(self) -> None:
        if self.nginx is not None:
            stop_process(self.nginx)  # SIGTERM: nginx's fast shutdown
            self.nginx = None
        for app in self.apps:
            app.stop()
        if self._own_prefix:
            shutil.rmtree(self.prefix, ignore_errors=True)


def warm_numba_cache() -> None:
    """Compile the engine once so every app process loads it from numba's disk cache."""
    subprocess.run([sys.executable, "-m", "explorer", "warmup"], cwd=ROOT,
                   check=True, timeout=600)


def start_cluster(apps: int = 2, port: int | None = None, prefix: Path | None = None,
                  warm: bool = True, timeout: float = 120.0) -> Cluster:
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
    """
    own = prefix is None
    prefix = Path(tempfile.mkdtemp(prefix="bx-nginx-")) if own else Path(prefix)
    prefix.mkdir(parents=True, exist_ok=True)
    # nginx started as root runs its workers as "nobody": they must reach the temp dirs.
    prefix.chmod(0o755)
    cluster = Cluster("", [], None, prefix, own)
    try:
        if warm:
            warm_numba_cache()
        env = {"STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(32)}
        for i in range(apps):
            cluster.apps.append(start_server(prefix / f"app-{i}.log", env=env,
                                             timeout=timeout, count_fits=True))
        port = port or free_port()
        conf = prefix / "nginx.conf"
        conf.write_text(render(port, [a.port for a in cluster.apps], prefix))
        with open(prefix / "nginx.out", "w") as out:
            cluster.nginx = subprocess.Popen(
                [nginx_binary(), "-p", str(prefix), "-c", str(conf),
                 "-e", str(prefix / "error.log"), "-g", "daemon off;"],
                stdout=out, stderr=subprocess.STDOUT)
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
    stop = []
    for sig in (signal.SIGTERM, signal.SIGINT):  # SIGINT too: a background job ignores it
        signal.signal(sig, lambda *_: stop.append(1))
    try:
        while not stop:
            for app in cluster.apps:
                if app.process.poll() is not None:
                    print(f"app pid {app.pid} exited; stopping", file=sys.stderr)
                    stop.append(1)
            if cluster.nginx.poll() is not None:
                print("nginx exited; stopping", file=sys.stderr)
                stop.append(1)
            time.sleep(1)
    finally:
        cluster.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
