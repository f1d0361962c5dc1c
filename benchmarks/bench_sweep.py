"""What a sweep costs the server: a 4 x 4 sweep (learning rate x depth) of moons, 1,000
training points, 500 rounds, with exact trees and with histogram trees, in this process
with numba's cache warm.

    python -m benchmarks.bench_sweep            # both rules, best of 3
    python -m benchmarks.bench_sweep --repeat 1

For each rule it prints the fits' wall time on one thread and on one thread per core
(the app's way: the engine's kernels release the GIL), the speed-up, the fits' CPU
time, then the binding of every chart of the page (16 maps, the curves, the heat map:
``explorer.figures.pages.step``) and the bytes the browser is sent (records and tables).
The fit, grid and record of a cell are made by the app's own job
(``explorer.app.context``).
"""

from __future__ import annotations

import argparse
import time

from explorer import dataset
from explorer.app.context import _cell_job
from explorer.figures import pages
from explorer.state import State
from explorer.sweep import FitCache, fit_cells, plan, workers

QUERY = dict(n=1250, rounds=500, sweep="lr:0.05,0.1,0.2,0.5", sweep2="depth:1,2,3,6")


def _jobs(state):
    sweep = plan(state)
    made = dataset.make(state)
    jobs = []
    for cell in sweep.cells:
        params = cell.state.fit_params()
        key = f"sweep|{made.key}|{tuple(sorted(params.items()))}"
        jobs.append((key, (key, made.train, made.valid, params)))
    return sweep, jobs


def _fits(jobs, threads):
    """(wall s, CPU s, results) of fitting every cell afresh on ``threads`` threads."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fit_cells(jobs, FitCache(), _cell_job, threads=threads)
    return time.perf_counter() - wall, time.process_time() - cpu, out


def _bind(state, sweep, fits):
    """(ms, table bytes) of binding every chart of the page, as the app describes it."""
    page = pages.describe_sweep(sweep.axes, sweep.cells, fits, state)
    began = time.perf_counter()
    size = sum(len(pages.step(chart, *chart.fit[:2])["tables"]) * 3 // 4
               for chart in page.charts)
    return (time.perf_counter() - began) * 1e3, size


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    cores = workers()
    print(f"4 x 4 sweep, moons, 1,000 training points, 500 rounds; {cores} cores; "
          f"best of {args.repeat}")
    print(f"{'rule':<14}{'1 thread s':>11}{f'{cores} threads s':>12}{'speed-up':>9}"
          f"{'fit CPU s':>10}{'bind ms':>9}{'records MB':>11}{'tables MB':>10}")
    for split in ("squared-error", "histogram"):
        state = State.from_query(dict(QUERY, split=split))
        sweep, jobs = _jobs(state)
        one = min((_fits(jobs, 1) for _ in range(args.repeat)), key=lambda r: r[0])
        many = min((_fits(jobs, cores) for _ in range(args.repeat)), key=lambda r: r[0])
        fits = many[2]
        bound = min((_bind(state, sweep, fits) for _ in range(args.repeat)), key=lambda r: r[0])
        records = sum(len(f.record) for f in fits)
        print(f"{split:<14}{one[0]:>11.2f}{many[0]:>12.2f}{one[0] / many[0]:>8.2f}x"
              f"{many[1]:>10.2f}{bound[0]:>9.0f}{records / 2**20:>11.1f}"
              f"{bound[1] / 2**20:>10.1f}")


if __name__ == "__main__":
    main()
