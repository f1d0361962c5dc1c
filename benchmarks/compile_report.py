"""What compiling the engine costs, kernel by kernel, from an empty numba cache.

    python -m benchmarks.compile_report

Compiles the engine's parts (``explorer.numbers.warmup.PARTS``, in the app's order) in a
new process whose NUMBA_CACHE_DIR is a new empty folder, recording numba's compile events
(``numba.core.event``), and prints each part's seconds, then each jitted function of the
engine with its number of compiled signatures, its own compile time ("self": its typing
and machine code, with the numba library code it brought in, but not the engine functions
it called, which are compiled on their own and counted on their own lines) and the time
with those callees ("with callees"), sorted by self time. The self times add up to the
compile time of the whole engine. The machine's load matters (2 shared CPUs here).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

from explorer.process import ROOT

# Run in the new process: compile the parts, print one JSON object.
_MEASURE = r"""
import json, time
from numba.core import event
from explorer.numbers.warmup import PARTS

recorder = event.RecordingListener()
event.register("numba:compile", recorder)
parts = []
for part in PARTS:
    start, cpu = time.perf_counter(), time.process_time()
    part.compile()
    parts.append([part.name, time.perf_counter() - start, time.process_time() - cpu])
events = []
for at, ev in recorder.buffer:
    d = ev.data["dispatcher"]
    events.append([at, ev.is_start, d.py_func.__module__ + "." + d.py_func.__qualname__,
                   str(ev.data["args"])])
print(json.dumps({"parts": parts, "events": events}))
"""


def measure(cache_dir: str | None = None) -> dict:
    """Compile every part in a new process with an empty cache (``cache_dir``, or a new
    temporary folder). Returns {"parts": [(name, seconds, CPU seconds)], "kernels": [row]}
    where a row is (name, signatures, self seconds, seconds with callees), by self time."""
    with tempfile.TemporaryDirectory() as fresh:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir or fresh, PYTHONPATH=str(ROOT))
        out = subprocess.run([sys.executable, "-c", _MEASURE], cwd=ROOT, env=env, check=True,
                             capture_output=True, text=True).stdout
    data = json.loads(out.strip().splitlines()[-1])
    return {"parts": data["parts"], "kernels": _kernels(data["events"])}


def _kernels(events) -> list:
    """Self and inclusive compile seconds per engine function, from start/end events."""
    own = defaultdict(float)
    whole = defaultdict(float)
    signatures = defaultdict(set)
    stack = []  # [start time, name, seconds of the engine callees compiled inside]
    for at, is_start, name, args in events:
        if is_start:
            stack.append([at, name, 0.0])
            continue
        began, name, callees = stack.pop()
        seconds = at - began
        engine = name.startswith("explorer.")
        if engine:
            own[name] += seconds - callees
            whole[name] += seconds
            signatures[name].add(args)
        # library code counts for the engine function that brought it in
        for frame in reversed(stack):
            if engine:
                frame[2] += seconds
                break
            if frame[1].startswith("explorer."):
                break
    rows = [(name.removeprefix("explorer."), len(signatures[name]), own[name], whole[name])
            for name in own]
    return sorted(rows, key=lambda row: -row[2])


def print_report(report: dict) -> None:
    total = sum(part[1] for part in report["parts"])
    cpu = sum(part[2] for part in report["parts"])
    print(f"## Compiling the engine from an empty cache, part by part (the app's order): "
          f"{total:.1f} s ({cpu:.1f} s of CPU: less sensitive to a shared machine's load)")
    for k, (name, seconds, cpu) in enumerate(report["parts"], 1):
        print(f"  part {k} of {len(report['parts'])}: {name:<38} {seconds:5.1f} s  "
              f"(CPU {cpu:5.1f} s)")
    print("\n## Each jitted function: compiled signatures, self, with callees (seconds)")
    for name, n, own, whole in report["kernels"]:
        print(f"  {name:<42} {n:>2} {own:6.2f} {whole:6.2f}")
    print(f"  {'all (sum of self)':<42}    {sum(r[2] for r in report['kernels']):6.2f}")


if __name__ == "__main__":
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print_report(measure())
