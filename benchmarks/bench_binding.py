"""What binding a new fit's charts costs: ``explorer.figures.pages.step`` for every chart
of the Model, Tree, Sample and Curves pages (and one chart in presenter mode), on a set
of fits made as the app makes them, in this process with numba's cache warm. Times are
this process's CPU time (the least of ``--repeat`` runs): the machine is shared.

    python -m benchmarks.bench_binding                  # the table: ms per chart and page
    python -m benchmarks.bench_binding --save old.json  # and each step's digest, kept
    python -m benchmarks.bench_binding --check old.json # and each compared with those
    python -m benchmarks.bench_binding --only moons-500 --repeat 1
    python -m benchmarks.bench_binding --every-present  # every chart in presenter mode too

A step's digest is the sha1 of its dict as JSON (orjson, keys sorted): two digests are
equal only where the template's round, the bindings, round 0's figure and the tables
are the same to the byte. ``--check`` also prints the ratio of the saved times to these.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time

import orjson

import explorer
from explorer import dataset
from explorer.figures import pages, panels
from explorer.figures.bindings import TooLarge
from explorer.numbers import terms
from explorer.numbers.grid import make_grid
from explorer.state import State

# name: the State's settings (the rest are the app's defaults: moons, 400 points)
FITS = {
    "moons-100": dict(rounds=100),
    "moons-500": dict(rounds=500),
    "iris": dict(data="iris", rounds=100),
    "sine": dict(data="sine", rounds=100),
    "hessian": dict(rounds=100, split="hessian"),
    "histogram": dict(rounds=100, split="histogram"),
    "moons-2500-d6": dict(n=2500, rounds=500, depth=6),
}
PAGES = ("model", "tree", "sample", "curves")
PRESENT = ("moons-100", "curves", "curves")  # (fit, page, view) also timed present=True


def fitted(settings: dict):
    """(trace, grid, state, names) as the app makes them from a State."""
    state = State.from_mapping(settings)
    made = dataset.make(state)
    valid = made.valid
    trace = explorer.fit(made.train.X, made.train.y,
                         X_valid=None if valid is None else valid.X,
                         y_valid=None if valid is None else valid.y, **state.fit_params())
    names = dict(feature_names=made.train.feature_names,
                 classes=made.train.classes or ("0", "1"), target_name=made.train.target_name)
    return trace, make_grid(trace), state, names


def digest(step: dict) -> str:
    return hashlib.sha1(orjson.dumps(step, option=orjson.OPT_SORT_KEYS)).hexdigest()


def forget() -> None:
    """Forget what the figures keep from one chart to the next (the boundaries of
    ``explorer.figures.panels``, the grid's probabilities of ``explorer.numbers.terms``):
    each page is timed as a new fit's first binding."""
    for kept in (getattr(panels, "_BOUNDARIES", None), getattr(terms, "_KEPT", None)):
        if kept is not None:
            kept.clear()
    if hasattr(terms, "_kept"):
        terms._kept[0] = 0


def step_of(chart, trace, grid, present: bool) -> tuple[float, str]:
    """(ms, the step's digest) of one ``pages.step``."""
    start = time.process_time()
    try:
        step = pages.step(chart, trace, grid, present)
    except TooLarge as refused:
        step = {"too_large": str(refused)}
    return (time.process_time() - start) * 1e3, digest(step)


def run(fits, repeat: int, every_present: bool = False) -> dict:
    """{(fit, page, view, present): (ms, digest)} with a line printed for each; every
    chart in presenter mode too with ``every_present``. A page's charts are bound in
    their order, ``repeat`` times, from nothing kept (:func:`forget`); each chart's least
    time is kept."""
    results = {}
    for name in fits:
        trace, grid, state, names = fitted(dict(FITS[name]))
        groups = [(page, False, pages.describe(page, trace, grid, state, names,
                                               key=name).charts) for page in PAGES]
        if every_present:
            groups += [(page, True, charts) for page, _, charts in groups]
        else:
            groups += [(page, True, [pages.describe(page, trace, grid, state, names,
                                                    key=name).chart(view)])
                       for fit, page, view in [PRESENT] if fit == name]
        for page, present, charts in groups:
            for _ in range(repeat):
                forget()
                for chart in charts:
                    ms, sha = step_of(chart, trace, grid, present)
                    key = (name, page, chart.view, present)
                    if key in results and results[key][1] != sha:
                        raise AssertionError(f"{key}: two runs gave two steps")
                    results[key] = (min(ms, results.get(key, (ms,))[0]), sha)
            for chart in charts:
                label = chart.view + (" (present)" if present else "")
                print(f"  {name:14} {page:7} {label:20}"
                      f"{results[name, page, chart.view, present][0]:9.1f} ms",
                      file=sys.stderr, flush=True)
    return results


def table(results: dict, old: dict | None) -> str:
    """Per chart and per page (the sum of its charts, presenter mode apart)."""
    rows = [("fit", "page", "chart", "old ms", "new ms", "old/new", "same")]
    pages_of = {}
    for (name, page, view, present), (ms, sha) in results.items():
        key = "|".join([name, page, view, str(present)])
        before = old.get(key) if old else None
        label = view + (" (present)" if present else "")
        rows.append((name, page, label, f"{before[0]:.1f}" if before else "",
                     f"{ms:.1f}", f"{before[0] / ms:.1f}x" if before else "",
                     ("yes" if before[1] == sha else "NO") if before else ""))
        if not present:
            total = pages_of.setdefault((name, page), [0.0, 0.0])
            total[0] += before[0] if before else 0.0
            total[1] += ms
    for (name, page), (was, now) in pages_of.items():
        rows.append((name, page, "= page", f"{was:.1f}" if old else "", f"{now:.1f}",
                     f"{was / now:.1f}x" if old else "", ""))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) if i < 3 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths))) for r in rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", choices=list(FITS), default=list(FITS))
    parser.add_argument("--repeat", type=int, default=3, help="runs per chart (the least)")
    parser.add_argument("--every-present", action="store_true",
                        help="every chart in presenter mode too (not in the page sums)")
    parser.add_argument("--save", help="write each chart's time and digest to this file")
    parser.add_argument("--check", help="compare with the times and digests of this file")
    args = parser.parse_args(argv)
    old = orjson.loads(open(args.check, "rb").read()) if args.check else None
    results = run(args.only, args.repeat, args.every_present)
    print(table(results, old))
    if args.save:
        with open(args.save, "wb") as out:
            out.write(orjson.dumps({"|".join(map(str, k)): v for k, v in results.items()}))
    if old is not None:
        keys = ["|".join(map(str, k)) for k in results]
        differ = [k for k, (_, sha) in zip(keys, results.values()) if old[k][1] != sha]
        print(f"{len(keys) - len(differ)} of {len(keys)} steps identical to {args.check}")
        if differ:
            print("DIFFERENT: " + ", ".join(differ))
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
