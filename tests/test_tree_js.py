"""The Tree page's views drawn in the browser (explorer/app/tree.js) against the server's
(figures.tree_regions, update_panels, tree_diagram): in Chromium, from the fit's record and
the server's figure of another round, tree.js draws every round's figure equal to the one
the server draws for it; and its numbers print as Python's num / signed print them, its
colours as plotly's sample_colorscale samples them."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import numpy as np
import pytest
from plotly.colors import sample_colorscale

from explorer import figures, fit
from explorer.data import make_toy, split
from explorer.figures.theme import DIVERGING, num, signed
from explorer.numbers.grid import make_grid
from explorer.numbers.record import encode

APP = Path(__file__).resolve().parents[1] / "explorer" / "app"



def _module(name: str) -> str:
    return "data:text/javascript;base64," + base64.b64encode((APP / name).read_bytes()).decode()


def _boundary_lines() -> str:
    """stepper.js's boundaryLines, the function tree.js is handed for the update's F = 0."""
    source = (APP / "stepper.js").read_text()
    return re.search(r"function boundaryLines\(.*?\n}\n", source, re.S).group(0)


@pytest.fixture(scope="module")
def page(browser):
    page = browser.new_page()
    page.evaluate("""async ([record, tree, lines]) => {
        window.rec = await import(record);
        window.tree = await import(tree);
        window.boundaryLines = new Function(lines + "; return boundaryLines;")();
    }""", [_module("record.js"), _module("tree.js"), _boundary_lines()])
    yield page
    page.close()


def plain(node):
    """A figure's JSON with plotly's typed arrays decoded to lists."""
    if isinstance(node, dict):
        if "bdata" in node and "dtype" in node:
            a = np.frombuffer(base64.b64decode(node["bdata"]), dtype=np.dtype(node["dtype"]))
            if "shape" in node:
                a = a.reshape([int(s) for s in str(node["shape"]).split(",")])
            return a.tolist()
        return {k: plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    return node


@pytest.mark.browser
def test_numbers_print_as_python_prints_them(page):
    rng = np.random.default_rng(0)
    values = np.concatenate([
        rng.normal(size=300) * 10.0 ** rng.integers(-9, 9, size=300),
        [0.0, -0.0, 0.125, 0.375, 2.5, -2.5, 1234.5, 0.00015, 9.9995, 99999.5, 1e6, 2e6,
         -3e7, 1e-5, 0.0001, 123456.0, 0.5, 1.5, 5e-5, 0.045, 0.0445, 999.95, 1 / 3, 2 / 3],
        np.round(rng.normal(size=100), 3), np.round(rng.normal(size=100) * 100, 1),
        rng.integers(-2000, 2000, size=50) / 8])
    values = [float(v) for v in values]
    got = page.evaluate("""values => values.map(v => [1, 2, 3, 4, 6].map(d => tree.num(v, d))
        .concat([2, 3, 4].map(d => tree.signed(v, d))))""", values)
    want = [[num(v, d) for d in (1, 2, 3, 4, 6)] + [signed(v, d) for d in (2, 3, 4)]
            for v in values]
    assert got == want


@pytest.mark.browser
def test_colours_are_sampled_as_plotly_samples_them(page):
    points = [0.0, 1.0, 0.5, 0.2, 0.4, 0.6, 0.8] + [float(p) for p in
                                                     np.random.default_rng(1).random(300)]
    points += [0.5 + 0.3 * g for g in np.linspace(-1, 1, 41)]
    got = page.evaluate("([scale, points]) => points.map(p => tree.sampleColor(scale, p))",
                        [DIVERGING, points])
    assert got == sample_colorscale(DIVERGING, points)


def fits():
    train, _ = split(make_toy("moons", n=200, noise=0.3, seed=3), 0.2, 3)
    X, y = train.X, train.y
    plane = make_toy("plane", n=120, noise=0.2, seed=1)
    yield "log-loss", fit(X, y, n_rounds=8, learning_rate=0.3), dict(leaf=-1, sample=5)
    yield "subsample, a leaf chosen", fit(X, y, n_rounds=8, subsample=0.6, random_state=2,
                                          max_depth=4), dict(leaf=3, sample=0)
    yield "many leaves", fit(X, y, n_rounds=4, max_depth=6, min_samples_leaf=1), dict(
        leaf=-1, sample=17)
    yield "best-first, exponential", fit(X, y, loss="exponential", n_rounds=6,
                                         max_leaves=5), dict(leaf=-1, sample=3)
    yield "second order", fit(X, y, n_rounds=6, split="hessian", learning_rate=0.5), dict(
        leaf=-1, sample=9)
    yield "regression, two inputs", fit(plane.X, plane.y, loss="squared_error",
                                        n_rounds=6), dict(leaf=-1, sample=2)


class _Ctx:  # what stepper.follows reads of a page's context
    def __init__(self, trace, grid):
        self.trace, self.grid, self.key = trace, grid, "test"
        self.feature_names = ("x1", "x<2>")


def server_figures(trace, grid, view: str, m: int, sel: dict):
    names = ("x1", "x<2>")
    if view == "regions":
        from explorer.numbers.summaries import resolve_leaf
        leaf, _ = resolve_leaf(trace, m, sel["leaf"], sel["sample"]) if m else (-1, False)
        return figures.tree_regions(trace, m, grid, feature_names=names, leaf=leaf,
                                    sample=sel["sample"], uirevision="u")
    if view == "update":
        return figures.update_panels(trace, m, grid, feature_names=names, uirevision="u")
    from explorer.numbers.summaries import resolve_leaf
    leaf, _ = resolve_leaf(trace, m, sel["leaf"], sel["sample"]) if m else (-1, False)
    return figures.tree_diagram(trace, m, feature_names=names, leaf=leaf, uirevision="u")


def _presenting(monkeypatch, present: bool) -> None:
    from explorer.app import store
    monkeypatch.setattr(store, "peek", lambda: type("S", (), {"present": present})())


@pytest.mark.browser
@pytest.mark.parametrize("name, trace, sel", list(fits()), ids=[n for n, _, _ in fits()])
@pytest.mark.parametrize("view", ["regions", "update", "diagram"])
def test_tree_js_draws_what_the_server_draws(page, monkeypatch, name, trace, sel, view):
    from explorer.app import stepper
    _presenting(monkeypatch, False)
    grid = make_grid(trace, resolution=41)
    ctx = _Ctx(trace, grid)
    spec = stepper.follows(ctx, view, **({} if view == "update" else sel))
    assert spec is not None and spec["kind"] == "tree"
    M = trace.n_rounds
    base = json.loads(server_figures(trace, grid, view, 1, sel).to_json())
    record = base64.b64encode(encode(trace, grid)).decode()
    got = json.loads(page.evaluate("""([record, base, meta, M]) => {
        const r = rec.decode(Uint8Array.from(atob(record), (c) => c.charCodeAt(0)));
        const out = [];
        for (let m = M; m >= 0; m--) {
            const fig = tree.draw(base, r, m, meta, boundaryLines);
            delete fig.layout.meta.step;
            out[m] = fig;
        }
        return JSON.stringify(out, (k, v) => ArrayBuffer.isView(v) ? Array.from(v) : v);
    }""", [record, base, spec, M]))
    for m in range(M + 1):
        want = plain(json.loads(server_figures(trace, grid, view, m, sel).to_json()))
        mine = plain(got[m])
        assert mine["layout"] == want["layout"], (m, _diff(mine["layout"], want["layout"]))
        assert mine["data"] == want["data"], (m, _diff(mine["data"], want["data"]))


def _diff(a, b, path=""):
    """The first place two JSON values differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if a.get(k, "<absent>") != b.get(k, "<absent>"):
                return _diff(a.get(k, "<absent>"), b.get(k, "<absent>"), f"{path}.{k}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _diff(x, y, f"{path}[{i}]")
    return path, str(a)[:300], str(b)[:300]


def test_the_specs_texts_are_the_servers_with_the_round_left_open(monkeypatch, moons_fit):
    from explorer.app import stepper
    _presenting(monkeypatch, False)
    grid = make_grid(moons_fit, resolution=21)
    ctx = _Ctx(moons_fit, grid)
    m = 7
    regions = stepper.follows(ctx, "regions", leaf=-1, sample=0)
    fig = figures.tree_regions(moons_fit, m, grid, leaf=-1)
    n = sum(1 for a in fig.layout.annotations if (a.name or "").startswith("label:"))
    assert n == len(moons_fit.tree(m)) // 2 + 1  # a label per leaf
    assert regions["title"].replace("{m}", str(m)).replace("{n}", str(n)) == \
        fig.layout.title.text.replace("<br>", " ")
    update = stepper.follows(ctx, "update")
    fig = figures.update_panels(moons_fit, m, grid)
    fill = lambda t: t.replace("{m0}", str(m - 1)).replace("{m}", str(m))  # noqa: E731
    assert [fill(t) for t in update["panels"]] == [a.text for a in fig.layout.annotations]
    assert fill(update["title"]) == fig.layout.title.text.replace("<br>", " ")
    assert stepper.follows(ctx, "diagram")["names"] == ["x1", "x&lt;2&gt;"]
    assert json.loads(figures.tree_diagram(moons_fit, 0).to_json())["layout"]["annotations"] \
        == stepper.follows(ctx, "diagram")["zero"]["layout"]["annotations"]


def test_one_input_and_presenter_mode_step_through_the_server(monkeypatch, moons_fit):
    from explorer.app import stepper
    sine = make_toy("sine", n=60, noise=0.2, seed=1)
    line = fit(sine.X, sine.y, loss="squared_error", n_rounds=3)
    _presenting(monkeypatch, False)
    for view in ("regions", "update", "diagram"):
        assert stepper.follows(_Ctx(line, make_grid(line)), view) is None
    _presenting(monkeypatch, True)
    for view in ("regions", "update", "diagram"):
        assert stepper.follows(_Ctx(moons_fit, make_grid(moons_fit, resolution=21)),
                               view) is None


def test_the_record_grows_by_the_tree_views_numbers_and_the_subsample(moons_fit):
    """Per node 29 bytes more (n, Σr, Σh, improvement, depth); per round of a subsampled
    fit one bit a point."""
    grid = make_grid(moons_fit, resolution=21)
    X, y = moons_fit.X, moons_fit.y
    for subsample in (1.0, 0.5):
        trace = fit(X, y, n_rounds=5, subsample=subsample, random_state=0)
        raw = encode(trace, grid)
        n = int(np.frombuffer(raw[:4], dtype="<u4")[0])
        arrays = json.loads(raw[4:4 + n])["arrays"]
        assert {"count", "sum_r", "sum_h", "improvement", "depth"} <= set(arrays)
        if subsample == 1.0:
            assert "bag" not in arrays
        else:
            assert arrays["bag"][2] == 6 * -(-len(y) // 8)
