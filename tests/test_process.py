"""explorer.process: free ports, waiting for a health check, and stopping a process with
the children it started. (Starting the app itself is exercised by the browser, load and
cluster tests.)"""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import pytest

from explorer.process import descendants, free_port, stop_process, wait_healthy


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_free_port_can_be_listened_on():
    port = free_port()
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))
        s.listen()


def test_stopping_a_process_stops_the_children_it_started():
    # a parent whose child (sleeping 120 s) would outlive it unless stopped too
    code = ("import subprocess, sys, time; "
            "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); "
            "time.sleep(120)")
    parent = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 30
        while len(descendants(parent.pid)) < 2:
            assert time.monotonic() < deadline, "the child never started"
            time.sleep(0.05)
        (child,) = descendants(parent.pid)[1:]
        stop_process(parent)
        assert parent.returncode is not None
        deadline = time.monotonic() + 10
        while alive(child):
            assert time.monotonic() < deadline, "the child outlived stop_process"
            time.sleep(0.05)
    finally:
        if parent.poll() is None:
            parent.kill()


def test_waiting_names_a_process_that_exited():
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    with pytest.raises(RuntimeError, match="exited with 0"):
        wait_healthy(f"http://127.0.0.1:{free_port()}", 30, done)


def test_waiting_gives_up_after_the_timeout():
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="did not become healthy"):
        wait_healthy(f"http://127.0.0.1:{free_port()}", 0.5)
    assert time.monotonic() - start < 10
