"""The browser's record of a fit (explorer/numbers/record.py, explorer/browser/record.js): in
Chromium, F_m at the training points and on the grid equal the engine's at every round,
bit for bit."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest

from explorer import fit
from explorer.data import make_toy, split
from explorer.numbers.grid import make_grid
from explorer.numbers.record import encode

RECORD_JS = Path(__file__).resolve().parents[1] / "explorer" / "browser" / "record.js"

pytestmark = pytest.mark.browser


def browser_numbers(browser, trace, grid) -> dict:
    """Every round's F at the points and on the grid, as record.js computes them."""
    page = browser.new_page()
    module = "data:text/javascript;base64," + base64.b64encode(RECORD_JS.read_bytes()).decode()
    record = base64.b64encode(encode(trace, grid)).decode()
    out = page.evaluate("""async ([module, record]) => {
        const { decode } = await import(module);
        const bytes = Uint8Array.from(atob(record), (c) => c.charCodeAt(0));
        const r = decode(bytes);
        const points = [], grid = [];
        for (let m = r.rounds; m >= 0; m--) {  // backwards: the caches fill from any round
            points[m] = Array.from(r.pointsF(m));
            grid[m] = Array.from(r.gridF(m));
        }
        return JSON.stringify({ points, grid });
    }""", [module, record])
    page.close()
    return json.loads(out)


def _data():
    train, _ = split(make_toy("moons", n=160, noise=0.3, seed=3), 0.2, 3)
    return train.X, train.y


def _tied():
    X, y = _data()
    return np.round(X * 2) / 2, y  # many equal float32 values


def _regression(name):
    data = make_toy(name, n=80, noise=0.2, seed=1)
    return data.X, data.y


# fitted when a test asks (collection fits nothing)
FITS = {
    "log-loss, subsample": lambda: fit(*_data(), n_rounds=15, learning_rate=0.3,
                                       subsample=0.7, random_state=1),
    "exponential, best-first": lambda: fit(*_data(), loss="exponential", n_rounds=12,
                                           max_leaves=5),
    "second order": lambda: fit(*_data(), n_rounds=12, split="hessian", learning_rate=0.5),
    "tied values": lambda: fit(*_tied(), n_rounds=10, max_depth=2, learning_rate=1.0),
    "regression, one input": lambda: fit(*_regression("sine"), loss="squared_error",
                                         n_rounds=10),
    "regression, two inputs": lambda: fit(*_regression("plane"), loss="squared_error",
                                          n_rounds=10),
}


@pytest.mark.parametrize("name", list(FITS))
def test_the_browser_adds_up_the_engines_numbers(browser, name):
    trace = FITS[name]()
    grid = make_grid(trace, resolution=37)
    got = browser_numbers(browser, trace, grid)
    for m in range(trace.n_rounds + 1):
        points = np.array(got["points"][m])
        assert points.tobytes() == np.asarray(trace.raw[m], dtype=np.float64).tobytes(), m
        cells = np.array(got["grid"][m], dtype=np.float32)
        assert cells.tobytes() == np.ascontiguousarray(grid.F[m]).ravel().tobytes(), m


def test_the_record_is_compact_and_binary(moons_fit):
    grid = make_grid(moons_fit)
    raw = encode(moons_fit, grid)
    n = int(np.frombuffer(raw[:4], dtype="<u4")[0])
    header = json.loads(raw[4:4 + n])
    assert header["rounds"] == moons_fit.n_rounds and "f0" in header["arrays"]
    nodes = len(moons_fit.nodes)
    # 4 + 8 + 4 + 4 + 8 bytes a node to step, 4 + 8 + 8 + 8 + 1 more for the Tree page's
    # views, the points as float32: no text numbers
    assert len(raw) < 65 * nodes + 20 * len(moons_fit.y) + 16 * 200 + 8 * n
