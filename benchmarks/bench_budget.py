"""What one setting costs the server: the fit, its grid and curves as the app's cached fit
makes them, their time (best of 3) and the bytes the cache then holds (and the peak).
The app's points budgets (explorer/dataset.py) are set from these numbers.

    python -m benchmarks.bench_budget squared_error:20000:100 histogram:30000:100 \\
        histogram:10000:100:blobs histogram:30000:100:sine

Each argument is rule:points:rounds[:toy set] (moons by default; a fifth more points are
drawn and held out for validation, as the app does).
"""

import gc
import sys
import time
import tracemalloc

import numpy as np

import explorer
from explorer.data import make_toy, split
from explorer.numbers.grid import make_grid


def nbytes(obj, seen=None) -> int:
    """The bytes of the numpy arrays ``obj`` holds (each array's memory counted once)."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        root = obj
        while isinstance(root.base, np.ndarray):
            root = root.base
        if root is not obj and id(root) in seen:
            return 0
        seen.add(id(root))
        return root.nbytes
    if isinstance(obj, dict):
        return sum(nbytes(v, seen) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(nbytes(v, seen) for v in obj)
    if hasattr(obj, "__dict__"):
        return nbytes(vars(obj), seen)
    if hasattr(obj, "__slots__"):
        return sum(nbytes(getattr(obj, k, None), seen) for k in obj.__slots__)
    return 0


def measure(n: int, rounds: int, rule: str, data: str = "moons"):
    """(seconds, bytes kept, peak bytes, training points) of one setting."""
    train, valid = split(make_toy(data, n=int(n / 0.8), noise=0.3, seed=1), 0.2, 1)
    kw = dict(split=rule) if rule == "histogram" else {}
    if data in ("sine", "steps", "plane"):
        kw["loss"] = "squared_error"

    def fit():
        trace = explorer.fit(train.X, train.y, n_rounds=rounds, X_valid=valid.X,
                             y_valid=valid.y, **kw)
        grid = make_grid(trace)
        _ = trace.train_loss, trace.valid_loss
        return trace, grid

    best = float("inf")
    for _ in range(3):
        gc.collect()
        start = time.perf_counter()
        fit()
        best = min(best, time.perf_counter() - start)
    tracemalloc.start()
    trace, grid = fit()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return best, nbytes(trace) + nbytes(grid), peak, len(train.y)


def main(specs) -> None:
    for spec in specs:
        rule, n, rounds, *rest = spec.split(":")
        data = rest[0] if rest else "moons"
        seconds, kept, peak, used = measure(int(n), int(rounds), rule, data)
        print(f"{rule:14s} {data:6s} {used:7d} pts x {int(rounds):4d} rounds = "
              f"{used * int(rounds) / 1e6:5.2f} M point-rounds: {seconds:6.3f} s, "
              f"kept {kept / 2**20:6.1f} MB, peak {peak / 2**20:6.1f} MB", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
