"""Speed and memory of the engine against the references, measured in one run.

    python benchmarks/bench_fit.py            # N = 2k, 10k, 50k (takes a few minutes)
    python benchmarks/bench_fit.py --quick    # N = 2k, 10k only

Prints times and ratios (ours / theirs) for a 500-round, depth-3 fit on two
features, with the full per-round record, against LightGBM (one thread),
xgboost hist (one thread), HistGradientBoosting (one thread) and scikit-learn's
GradientBoostingClassifier; all rounds on a 200x200 grid against scikit-learn's
staged_decision_function; the record's memory; and cold and warm start times.
Targets (issue 2): fit <= 1.0x LightGBM at 10k; grid <= 0.2x scikit-learn;
record <= 64 MB at 10k x 500; first fit in a new process <= 1 s with a warm cache.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import make_moons
from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingClassifier
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import explorer  # noqa: E402

ROUNDS, DEPTH, LR = 500, 3, 0.1


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def references(X, y):
    import lightgbm
    import xgboost

    return {
        "LightGBM (1 thread)": lambda: lightgbm.LGBMClassifier(
            n_estimators=ROUNDS, max_depth=DEPTH, num_leaves=2**DEPTH, learning_rate=LR,
            num_threads=1, verbose=-1).fit(X, y),
        "xgboost hist (1 thread)": lambda: xgboost.XGBClassifier(
            n_estimators=ROUNDS, max_depth=DEPTH, learning_rate=LR, tree_method="hist",
            n_jobs=1).fit(X, y),
        "HistGradientBoosting (1 thread)": lambda: HistGradientBoostingClassifier(
            max_iter=ROUNDS, max_depth=DEPTH, learning_rate=LR, early_stopping=False).fit(X, y),
        "scikit-learn GBC": lambda: GradientBoostingClassifier(
            n_estimators=ROUNDS, max_depth=DEPTH, learning_rate=LR, random_state=0).fit(X, y),
    }


def bench_fits(sizes):
    print(f"\n## Fit, {ROUNDS} rounds, depth {DEPTH}, two features (make_moons), seconds")
    explorer.fit(*make_moons(100, random_state=0), n_rounds=2)  # compile outside the timing
    for n in sizes:
        X, y = make_moons(n, noise=0.3, random_state=0)
        ours = best_of(lambda: explorer.fit(X, y, n_rounds=ROUNDS, max_depth=DEPTH), 3 if n <= 10_000 else 1)
        print(f"N={n:>6}: explorer.fit (with record) {ours:7.3f}")
        with threadpool_limits(1):
            for name, run in references(X, y).items():
                theirs = best_of(run, 1 if "GBC" in name or n > 10_000 else 3)
                print(f"          {name:<32} {theirs:7.3f}   ours/theirs = {ours / theirs:6.2f}x")


def bench_grid():
    print(f"\n## All {ROUNDS} rounds on a 200x200 grid (model fitted on 10k points), seconds")
    X, y = make_moons(10_000, noise=0.3, random_state=0)
    trace = explorer.fit(X, y, n_rounds=ROUNDS, max_depth=DEPTH)
    model = GradientBoostingClassifier(n_estimators=ROUNDS, max_depth=DEPTH, random_state=0).fit(X, y)
    xs, ys = np.linspace(-2.5, 3.5, 200), np.linspace(-2, 2.5, 200)
    xx, yy = np.meshgrid(xs, ys)
    grid = np.column_stack([xx.ravel(), yy.ravel()])
    theirs = best_of(lambda: [s for s in model.staged_decision_function(grid)], 3)
    reference = np.array([s.ravel() for s in model.staged_decision_function(grid)])
    for name, run in [("staged_decision_grid", lambda: trace.staged_decision_grid(xs, ys)),
                      ("staged_decision_function", lambda: trace.staged_decision_function(grid))]:
        ours = best_of(run, 3)
        same = np.abs(run().reshape(ROUNDS + 1, -1)[1:] - reference).max()
        print(f"explorer {name:<25} {ours:7.3f}; scikit-learn {theirs:7.3f}; "
              f"ratio {ours / theirs:.3f}x (target <= 0.2x); max |dF| = {same:.1e}")
    print(f"\n## Record of the 10k x {ROUNDS} fit: {trace.nbytes / 2**20:.1f} MB (target <= 64 MB)")


START = """
import time; t0 = time.perf_counter()
import explorer
from sklearn.datasets import make_moons
X, y = make_moons(2000, noise=0.3, random_state=0)
t1 = time.perf_counter()
explorer.fit(X, y, n_rounds=100)
t2 = time.perf_counter()
print(f"{t1 - t0:.3f} {t2 - t1:.3f}")
"""


def bench_start():
    print("\n## Start in a new process: import, then the first fit (2k points, 100 rounds), seconds")
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
        for label in ("cold cache", "warm cache"):
            out = subprocess.run([sys.executable, "-c", START], env=env, capture_output=True,
                                 text=True, check=True).stdout.split()
            print(f"{label}: import {float(out[0]):.3f}, first fit {float(out[1]):.3f}"
                  + ("   (target <= 1 s)" if label == "warm cache" else ""))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip N = 50k")
    args = parser.parse_args()
    bench_start()
    bench_fits([2_000, 10_000] if args.quick else [2_000, 10_000, 50_000])
    bench_grid()
