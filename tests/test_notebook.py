"""explorer.show, the notebook widget, in Python (no browser): its module is the browser
modules inlined plus notebook.js, its payload is the page's description (templates,
bindings, tables, record) with the record and tables as binary buffers, plotly.js goes
once per kernel session, and its traits round and sample follow the rules. The widget in
JupyterLab, Notebook 7 and marimo: tests/test_browser_notebook.py."""

from __future__ import annotations

import base64
import io
import json
import re
import subprocess
import sys

import numpy as np
import pytest

import explorer
from explorer import notebook
from explorer.export import interactive
from explorer.figures import pages
from explorer.numbers.record import encode
from test_interactive import lesson

anywidget = pytest.importorskip("anywidget")


class Recorded:
    """Every comm a widget opens and every message it sends, with their sizes."""

    def __init__(self, monkeypatch):
        import ipywidgets.widgets.widget as module
        self.sent = []  # (kind, data, buffers)
        recorder = self

        class Comm:
            def __init__(self, data=None, buffers=None, **kwargs):
                self.comm_id = kwargs.get("comm_id") or f"comm-{len(recorder.sent)}"
                self.kernel = object()  # a kernel to send to
                recorder.sent.append(("open", data, buffers or []))

            def send(self, data=None, metadata=None, buffers=None):
                recorder.sent.append(("msg", data, buffers or []))

            def on_msg(self, callback):
                pass

            def close(self, *args, **kwargs):
                pass

        monkeypatch.setattr(module.comm, "create_comm", lambda **kw: Comm(**kw))

    def bytes_sent(self) -> int:
        return sum(len(json.dumps(d).encode()) + sum(len(b) for b in bufs)
                   for _, d, bufs in self.sent)


@pytest.fixture
def comms(monkeypatch):
    monkeypatch.setattr(notebook, "_HELD", [])  # a fresh kernel session
    yield Recorded(monkeypatch)
    import ipywidgets
    ipywidgets.Widget.close_all()  # closed now, not by their __del__ at the process's exit


@pytest.fixture(scope="module")
def iris(warm_engine):
    return lesson("iris", rounds=6, sample=3)


def test_import_explorer_stays_free_of_anywidget():
    code = "import explorer, sys; explorer.show; print('anywidget' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


def test_the_module_is_the_browser_modules_inlined_and_its_entry():
    esm = notebook.esm()
    for path in notebook.MODULES:
        assert f'__modules["{path.name}"] = {{' in esm
    # the modules come from the lesson file's one list (a move is one path there)
    assert notebook.MODULES == tuple(interactive.MODULES[:-1])
    assert [line for line in esm.splitlines() if line.startswith(("import ", "export "))] == [
        "export default { render };"]
    checked = subprocess.run(["node", "--check", "--input-type=module"], input=esm,
                             text=True, capture_output=True)
    assert checked.returncode == 0, checked.stderr
    assert not re.search(r"https?://|import\(", esm)  # nothing fetched: no address, no import()


def test_the_payload_is_the_pages_description_with_binary_record_and_tables(iris):
    trace, grid, _, names = iris
    state = notebook.state_of(trace, round=2, sample=3, k=1)
    spec, record, tables = notebook.payload(trace, grid, state, names, "tree", "kx")
    data = json.loads(spec)
    described = pages.describe("tree", trace, grid, state, names, key="kx")
    assert [c["view"] for c in data["charts"]] == [c.view for c in described.charts]
    assert record == encode(trace, grid, "kx")
    for chart, sent in zip(described.charts, data["charts"]):
        step = pages.step(chart, trace, grid)
        at, length = sent["step"]["tables"]
        assert tables[at:at + length] == base64.b64decode(step["tables"])
        assert sent["step"]["bindings"] == json.loads(json.dumps(step["bindings"]))
        assert sent["figure"] == json.loads(chart.at(step["at"]).to_json())
    assert data["rounds"] == trace.n_rounds and data["key"] == "kx"


def test_the_widget_s_traits_and_buffers(iris, comms):
    from ipywidgets.widgets.widget import _remove_buffers
    trace, grid, _, names = iris
    w = explorer.show(trace, page="model", round=3, k=2, feature_names=names["feature_names"],
                      classes=names["classes"])
    assert (w.round, w.sample, w.page, w.state.cls) == (3, 0, "model", 2)
    _, paths, buffers = _remove_buffers(w.get_state())
    assert ["_record"] in paths and ["_tables"] in paths  # binary buffers, not JSON text
    assert sum(len(b) for b in buffers) >= len(w._record) + len(w._tables)
    w.round = 99  # clamped to the fit's rounds, as the bar is
    assert w.round == trace.n_rounds == w.state.round
    w.round = -4
    assert w.round == 0
    seen = []
    w.observe(lambda change: seen.append(change["new"]), names="round")
    w.round = 5
    assert seen == [5]
    # the figures the view shows are the page's, at the widget's round
    described = pages.describe("model", trace, grid, w.state, names, key=w._key)
    assert [f.to_json() for f in w.figures()] == [c.at(5).to_json() for c in described.charts]


def test_a_sample_set_in_python_is_drawn_anew_in_one_message(iris, comms):
    trace, grid, _, names = iris
    w = explorer.show(trace, page="sample", sample=2, classes=names["classes"])
    before = len(comms.sent)
    w.sample = 7
    assert w.state.sample == 7
    # the traits each message sets (the bytes ones as buffers)
    updates = [set(d["state"]) | {path[0] for path in d.get("buffer_paths", [])}
               for kind, d, _ in comms.sent[before:] if kind == "msg"]
    # the view builds the page once, from one message holding the spec and whichever of
    # the record and tables changed with it
    payloads = [u for u in updates if {"_spec", "_tables", "_record"} & u]
    assert len(payloads) == 1 and "_spec" in payloads[0]
    assert "sample #7" in w._spec and "sample #2" not in w._spec
    w.sample = 10_000
    assert w.sample == len(trace.y) - 1


def test_plotly_js_goes_once_per_kernel_session(iris, comms):
    trace, grid, _, names = iris
    first = explorer.show(trace, page="curves")
    size = len(notebook.plotly_js())
    opened = [bufs for kind, _, bufs in comms.sent if kind == "open"]
    assert any(len(b) == size for bufs in opened for b in bufs)
    before = len(comms.sent)
    second = explorer.show(trace, page="tree")
    later = comms.sent[before:]
    assert not any(len(b) == size for _, _, bufs in later for b in bufs)
    assert comms.bytes_sent() - sum(len(json.dumps(d).encode()) + sum(map(len, b))
                                    for _, d, b in comms.sent[:before]) < size / 4
    assert first._plotly is second._plotly


def test_show_fits_x_and_y_with_the_fit_s_parameters(warm_engine, comms):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    w = explorer.show(X, y, page="model", learning_rate=0.5, max_depth=2, n_rounds=7)
    assert w.trace.n_rounds == 7 and w.trace.params["learning_rate"] == 0.5
    assert json.loads(w._spec)["rounds"] == 7
    assert w.names["classes"] == ("0", "1")  # labels 0.0 and 1.0 of a float y read as 0, 1
    assert explorer.show(X, y.astype(float), n_rounds=2).names["classes"] == ("0", "1")
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, columns=["width", "height"])
    w = explorer.show(frame, pd.Series(y, name="label"), page="curves", n_rounds=3)
    assert w.names["feature_names"] == ("width", "height") and w.names["target_name"] == "label"


@pytest.mark.parametrize("args, match", [
    (dict(page="slides"), "page must be one of"),
    (dict(round=500), "round must be in"),
    (dict(k=3), "k must be a class"),
])
def test_show_names_what_is_wrong(iris, comms, args, match):
    with pytest.raises(ValueError, match=match):
        explorer.show(iris[0], **args)


def test_show_refuses_more_than_two_inputs_and_a_trace_with_fit_parameters(iris, comms):
    rng = np.random.RandomState(0)
    trace = explorer.fit(rng.normal(size=(60, 3)), np.arange(60) % 2, n_rounds=2)
    with pytest.raises(ValueError, match="one or two columns"):
        explorer.show(trace)
    with pytest.raises(ValueError, match="no y or fit parameters"):
        explorer.show(iris[0], learning_rate=0.3)


def test_warmup_compiles_with_a_line_of_progress_per_part(warm_engine):
    out = io.StringIO()
    seconds = explorer.warmup(["the plane"], file=out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("Compiling the engine: 1 parts")
    assert lines[1].startswith("  [1/1] the plane: ") and lines[-1].startswith("The engine is ready")
    assert seconds >= 0
    with pytest.raises(ValueError, match="parts must be among"):
        explorer.warmup(["no such part"])
