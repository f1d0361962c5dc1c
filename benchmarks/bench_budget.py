"""What one setting costs the server: the fit, its grid and curves as the app's cached fit
makes them, their time (best of 3) and the bytes the cache then holds (and the peak).
The app's points budgets (explorer/app/controls.py) are set from these numbers.

    python -m benchmarks.bench_budget squared_error:20000:100 histogram:30000:100 \
        histogram:10000:100:blobs histogram:30000:100:sine

Each argument is rule:points:rounds[:toy set] (moons by default; 0.2 more points are drawn
and held out for validation, as the app does).
"""
import sys, time, gc, tracemalloc
import numpy as np
import explorer
from explorer.data import make_toy, split
from explorer.numbers.grid import make_grid

def nbytes(obj, seen=None):
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        root = obj
        while isinstance(root.base, np.ndarray):
            root = root.base
        if id(root) in seen and root is not obj:
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

def once(n, rounds, split_rule, data="moons"):
    train, valid = split(make_toy(data, n=int(n / 0.8), noise=0.3, seed=1), 0.2, 1)
    kw = dict(split=split_rule) if split_rule == "histogram" else {}
    if data == "sine":
        kw["loss"] = "squared_error"
    best = 1e9
    for _ in range(3):
        gc.collect()
        t0 = time.perf_counter()
        trace = explorer.fit(train.X, train.y, n_rounds=rounds, X_valid=valid.X, y_valid=valid.y, **kw)
        grid = make_grid(trace)
        _ = trace.train_loss, trace.valid_loss
        best = min(best, time.perf_counter() - t0)
    tracemalloc.start()
    trace = explorer.fit(train.X, train.y, n_rounds=rounds, X_valid=valid.X, y_valid=valid.y, **kw)
    grid = make_grid(trace)
    cur, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return best, nbytes(trace) + nbytes(grid), peak, len(train.y)

if __name__ == "__main__":
    for spec in sys.argv[1:]:
        rule, n, rounds, *rest = spec.split(":")
        t, kept, peak, used = once(int(n), int(rounds), rule, *(rest or ["moons"]))
        print(f"{rule:14s} {rest[0] if rest else 'moons':6s} {used:7d} pts x {int(rounds):4d} rounds = "
              f"{used * int(rounds) / 1e6:5.2f} M point-rounds: {t:6.3f} s, kept {kept / 2**20:6.1f} MB, "
              f"peak {peak / 2**20:6.1f} MB", flush=True)
