"""Speed and memory of the engine against the references, measured in one run.

    python benchmarks/bench_fit.py            # best of 3 everywhere (a few minutes)
    python benchmarks/bench_fit.py --quick    # best of 1, no cold-compile section
    python benchmarks/bench_fit.py --multiclass   # the three-class section alone
    python benchmarks/bench_fit.py --histogram    # the histogram section alone

Prints, for make_moons (noise 0.3), depth 3, learning rate 0.1, two features:
- fit with the full per-round record at 10,000 points x 500 rounds and at
  100,000 points x 100 rounds, and the ratios ours / theirs against LightGBM
  (one thread), xgboost exact and hist (one thread), HistGradientBoosting (one
  thread) and scikit-learn's GradientBoostingClassifier; then our fit of the same
  points with no two equal float32 values in a feature (the few equal ones nudged
  apart), which shows what keeping scikit-learn's order of equal values costs;
- all 500 rounds at 40,000 arbitrary points (``staged_decision_function``) against
  scikit-learn's staged_decision_function, and on a 200x200 grid
  (``staged_decision_grid``, the app's path), with max |dF| against scikit-learn;
- the record's memory per round per point;
- three classes (issue 14): a fit of 10,000 points x 200 rounds (three trees a round)
  against LightGBM's multiclass objective (one thread) and scikit-learn;
- the start of a new process with a cold and a warm numba cache (first fit, warmup);
- histogram trees (issue 28): explorer.fit(split="histogram") at both sizes against
  LightGBM and HistGradientBoosting, one thread each, in the same run, with 255 bins, at
  most 8 leaves, depth 3, at least 20 points per leaf, learning rate 0.1; the timed
  region is one fit() call with a warm numba cache, from the raw X (binning included) to
  the finished Trace; the fit is checked against HistGradientBoosting's (max |dF|).
Targets (issue 13): fit <= 1.0x LightGBM at both sizes; staged <= 1.0x scikit-learn.
Target (issue 28): the histogram fit <= 1.0x LightGBM at both sizes.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import make_blobs, make_moons
from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingClassifier
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import explorer  # noqa: E402

DEPTH, LR = 3, 0.1
SIZES = [(10_000, 500), (100_000, 100)]
MULTICLASS_SIZE = (10_000, 200)  # points, rounds: 3 classes, 3 trees a round


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def references(X, y, rounds):
    import lightgbm
    import xgboost

    return {
        "LightGBM (1 thread)": lambda: lightgbm.LGBMClassifier(
            n_estimators=rounds, max_depth=DEPTH, num_leaves=2**DEPTH, learning_rate=LR,
            num_threads=1, verbose=-1).fit(X, y),
        "xgboost exact (1 thread)": lambda: xgboost.XGBClassifier(
            n_estimators=rounds, max_depth=DEPTH, learning_rate=LR, tree_method="exact",
            n_jobs=1).fit(X, y),
        "xgboost hist (1 thread)": lambda: xgboost.XGBClassifier(
            n_estimators=rounds, max_depth=DEPTH, learning_rate=LR, tree_method="hist",
            n_jobs=1).fit(X, y),
        "HistGradientBoosting (1 thread)": lambda: HistGradientBoostingClassifier(
            max_iter=rounds, max_depth=DEPTH, learning_rate=LR, early_stopping=False).fit(X, y),
        "scikit-learn GBC": lambda: GradientBoostingClassifier(
            n_estimators=rounds, max_depth=DEPTH, learning_rate=LR, random_state=0).fit(X, y),
    }


def untied(X):
    """X with each feature's equal float32 values nudged apart, one float32 step at a time
    (the engine reads features as float32): data on which scikit-learn's tie order, which
    only its own introsort can give, costs nothing."""
    X32 = X.astype(np.float32)
    for f in range(X32.shape[1]):
        order = np.argsort(X32[:, f], kind="stable")
        v = X32[order, f]
        while (equal := np.flatnonzero(v[1:] <= v[:-1]) + 1).size:
            v[equal] = np.nextafter(v[equal - 1], np.float32(np.inf))
        X32[order, f] = v
    return X32.astype(np.float64)


def bench_fits(repeat):
    print(f"\n## Fit with the full record, depth {DEPTH}, two features (make_moons), seconds, "
          f"best of {repeat}")
    explorer.fit(*make_moons(100, random_state=0), n_rounds=2)  # compile outside the timing
    for n, rounds in SIZES:
        X, y = make_moons(n, noise=0.3, random_state=0)
        ours = best_of(lambda: explorer.fit(X, y, n_rounds=rounds, max_depth=DEPTH,
                                            learning_rate=LR), repeat)
        X_untied = untied(X)
        nudged = int((X_untied != X.astype(np.float32)).sum())
        ours_untied = best_of(lambda: explorer.fit(X_untied, y, n_rounds=rounds,
                                                   max_depth=DEPTH, learning_rate=LR), repeat)
        print(f"N={n:>7} x {rounds} rounds: explorer.fit (with record) {ours:7.3f}")
        theirs = {}
        with threadpool_limits(1):
            for name, run in references(X, y, rounds).items():
                theirs[name] = best_of(run, repeat)
                print(f"          {name:<32} {theirs[name]:7.3f}   "
                      f"ours/theirs = {ours / theirs[name]:6.2f}x")
        print(f"          the same points, {nudged} value{'s' * (nudged != 1)} nudged to make "
              f"each feature's float32 values distinct (no ties): ours {ours_untied:.3f}, "
              f"{ours_untied / theirs['LightGBM (1 thread)']:.2f}x LightGBM")


def bench_predictions(repeat, n_points=40_000):
    n, rounds = SIZES[0]
    print(f"\n## All {rounds} rounds at {n_points:,} points (model fitted on {n:,} points), "
          f"seconds, best of {repeat}")
    X, y = make_moons(n, noise=0.3, random_state=0)
    trace = explorer.fit(X, y, n_rounds=rounds, max_depth=DEPTH, learning_rate=LR)
    model = GradientBoostingClassifier(n_estimators=rounds, max_depth=DEPTH, learning_rate=LR,
                                       random_state=0).fit(X, y)
    points = np.random.RandomState(0).uniform([-2.5, -2.0], [3.5, 2.5], size=(n_points, 2))
    side = int(np.sqrt(n_points))
    xs, ys = np.linspace(-2.5, 3.5, side), np.linspace(-2, 2.5, side)
    xx, yy = np.meshgrid(xs, ys)
    grid = np.column_stack([xx.ravel(), yy.ravel()])
    for label, at, ours_run in [
            ("staged_decision_function", points, lambda: trace.staged_decision_function(points)),
            (f"staged_decision_grid ({side}x{side})", grid,
             lambda: trace.staged_decision_grid(xs, ys))]:
        reference = np.array([s.ravel() for s in model.staged_decision_function(at)])
        # checked first, which also loads our kernel from numba's cache (not timed)
        same = np.abs(ours_run().reshape(rounds + 1, -1)[1:] - reference).max()
        theirs = best_of(lambda: [s for s in model.staged_decision_function(at)], repeat)
        ours = best_of(ours_run, repeat)
        print(f"explorer {label:<38} {ours:7.3f}; scikit-learn staged_decision_function "
              f"{theirs:7.3f}; ours/theirs = {ours / theirs:.2f}x; max |dF| = {same:.1e}")
    per = trace.nbytes / (rounds * n)
    print(f"\n## Record of the {n:,} x {rounds} fit: {trace.nbytes / 2**20:.1f} MB, "
          f"{per:.1f} bytes per round per point (raw F float64 8, leaf id "
          f"{trace.leaf.itemsize}, trees {trace.nodes.nbytes / (rounds * n):.2f})")


def bench_multiclass(repeat):
    import lightgbm

    n, rounds = MULTICLASS_SIZE
    print(f"\n## Three classes (make_blobs, cluster_std 2), {n:,} points x {rounds} rounds "
          f"(3 trees a round), depth {DEPTH}, seconds, best of {repeat}")
    X, y = make_blobs(n, centers=3, cluster_std=2.0, random_state=0)
    explorer.fit(*make_blobs(60, centers=3, random_state=0), n_rounds=2)  # compile first
    ours = best_of(lambda: explorer.fit(X, y, n_rounds=rounds, max_depth=DEPTH,
                                        learning_rate=LR), repeat)
    print(f"explorer.fit (with record) {ours:7.3f}")
    with threadpool_limits(1):
        for name, run in {
                "LightGBM multiclass (1 thread)": lambda: lightgbm.LGBMClassifier(
                    objective="multiclass", n_estimators=rounds, max_depth=DEPTH,
                    num_leaves=2**DEPTH, learning_rate=LR, num_threads=1, verbose=-1).fit(X, y),
                "scikit-learn GBC": lambda: GradientBoostingClassifier(
                    n_estimators=rounds, max_depth=DEPTH, learning_rate=LR,
                    random_state=0).fit(X, y)}.items():
            theirs = best_of(run, repeat)
            print(f"          {name:<32} {theirs:7.3f}   ours/theirs = {ours / theirs:6.2f}x")


HIST = dict(max_bins=255, max_leaves=8, max_depth=DEPTH, min_samples_leaf=20, learning_rate=LR)


def bench_histogram(repeat):
    import lightgbm

    print(f"\n## Histogram trees: 255 bins, <= 8 leaves, depth {DEPTH}, >= 20 per leaf, "
          f"lr {LR}, two features (make_moons), seconds, best of {repeat}, one thread each")
    explorer.fit(*make_moons(100, random_state=0), n_rounds=2, split="histogram")  # compile
    for n, rounds in SIZES:
        X, y = make_moons(n, noise=0.3, random_state=0)
        ours = best_of(lambda: explorer.fit(X, y, n_rounds=rounds, split="histogram", **HIST),
                       repeat)
        with threadpool_limits(1):
            runs = {
                "LightGBM (1 thread)": lambda: lightgbm.LGBMClassifier(
                    n_estimators=rounds, max_depth=DEPTH, num_leaves=8, min_child_samples=20,
                    max_bin=255, learning_rate=LR, num_threads=1, verbose=-1).fit(X, y),
                "HistGradientBoosting (1 thread)": lambda: HistGradientBoostingClassifier(
                    max_iter=rounds, max_depth=DEPTH, max_leaf_nodes=8, min_samples_leaf=20,
                    max_bins=255, learning_rate=LR, early_stopping=False,
                    random_state=0).fit(X, y)}
            theirs = {name: best_of(run, repeat) for name, run in runs.items()}
            model = runs["HistGradientBoosting (1 thread)"]()
        trace = explorer.fit(X, y, n_rounds=rounds, split="histogram", **HIST)
        same = np.abs(trace.raw[1:] - np.array(list(model.staged_decision_function(X)))).max()
        print(f"N={n:>7} x {rounds} rounds: explorer.fit(split='histogram') {ours:7.3f}   "
              f"max |dF| against HistGradientBoosting = {same:.1e}")
        for name, seconds in theirs.items():
            print(f"          {name:<32} {seconds:7.3f}   ours/theirs = {ours / seconds:6.2f}x")


START = """
import time; t0 = time.perf_counter()
import numpy as np
import explorer
from sklearn.datasets import make_moons
X, y = make_moons(50, noise=0.3, random_state=0)
t1 = time.perf_counter()
explorer.fit(X, y, n_rounds=2)
t2 = time.perf_counter()
explorer.warmup()
t3 = time.perf_counter()
print(f"{t1 - t0:.3f} {t2 - t1:.3f} {t3 - t2:.3f}")
"""


def bench_start():
    print("\n## Start in a new process: import, first fit (log_loss, depth-first, 50 points, "
          "2 rounds), then explorer.warmup(), seconds")
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
        for label in ("cold cache", "warm cache"):
            out = subprocess.run([sys.executable, "-c", START], env=env, capture_output=True,
                                 text=True, check=True).stdout.split()
            print(f"{label}: import {float(out[0]):.3f}, first fit {float(out[1]):.3f}, "
                  f"warmup {float(out[2]):.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="best of 1, and skip the cold-compile section")
    parser.add_argument("--multiclass", action="store_true",
                        help="only the three-class fit against LightGBM (best of 3)")
    parser.add_argument("--histogram", action="store_true",
                        help="only the histogram fits against LightGBM and "
                             "HistGradientBoosting (best of 3)")
    args = parser.parse_args()
    if args.multiclass:
        bench_multiclass(3)
        sys.exit()
    if args.histogram:
        bench_histogram(3)
        sys.exit()
    repeat = 1 if args.quick else 3
    if not args.quick:
        bench_start()
    bench_fits(repeat)
    bench_predictions(repeat)
    bench_multiclass(repeat)
    bench_histogram(repeat)
