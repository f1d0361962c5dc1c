"""The explorer in a notebook: a page's charts that follow the round, as an anywidget widget
that steps in the browser, driven from Python.

    trace = explorer.fit(X, y, n_rounds=100)
    w = explorer.show(trace, page="tree", round=3)   # "model", "tree", "sample", "curves"
    w.round = 10                                     # the view steps
    w.observe(callback, names="round")              # stepping in the view, once it rests
    explorer.show(X, y, page="model", learning_rate=0.5, max_depth=2)  # fit and show
    explorer.warmup()                                # compile the engine, with progress

The widget is the lesson file's sibling (:mod:`explorer.export.interactive`): the same
page description (:func:`explorer.figures.pages.describe`), the same per-chart template,
bindings and tables (:func:`explorer.figures.pages.step`), the same record
(:func:`explorer.numbers.record.encode`) and the same browser modules, inlined into one
script (:func:`explorer.export.interactive.inline_modules`), with ``notebook.js`` (beside
``interactive.js``) as their entry. Python draws; the browser only binds.

What goes to the browser: the charts' templates and bindings as JSON text (``_spec``),
the record and the tables as binary buffers (``_record``, ``_tables``), and plotly.js
(the plotly package's copy) in one :class:`PlotlyJS` model per kernel session, which
every widget names (``_plotly``): its bytes cross once however many widgets are shown,
and a saved notebook stores them once.

anywidget is imported on first use (``pip install "boosting-explorer[notebook]"``):
``import explorer`` and :func:`warmup` do not need it.
"""

from __future__ import annotations

import base64
import functools
import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np

from . import browser
from .export import interactive
from .figures import pages
from .numbers.grid import make_grid
from .numbers.record import encode

PAGES = pages.PAGES[:4]  # model, tree, sample, curves
# the browser's modules (arrays, record, bindings, stepper), from the one place that
# names them, and the widget's entry module beside the lesson file's
MODULES = browser.MODULES
ENTRY = Path(interactive.__file__).with_name("notebook.js")
_CSS = """
.explorer-widget { font-family: system-ui, -apple-system, "Segoe UI", sans-serif;
                   color: #31333f; }
.explorer-widget .explorer-title { font-weight: 600; margin: 0.25rem 0; }
.explorer-widget .explorer-charts { display: grid; grid-template-columns: 1fr 1fr;
                                    gap: 0.5rem 1rem; }
.explorer-widget .slot { min-width: 0; }
.explorer-widget .slot.wide { grid-column: 1 / -1; }
@media (max-width: 900px) { .explorer-widget .explorer-charts { grid-template-columns: 1fr; } }
"""
_keys = itertools.count(1)
_PLACE = "// the browser modules, inlined here (explorer/notebook.py)\n"


@functools.cache
def esm() -> str:
    """The widget's ES module: the browser modules as one factory,
    ``__explorerModules(document, window)`` (each view of a widget calls it with a
    document and a window scoped to itself, so that several widgets on a notebook page
    step apart), then ``notebook.js``."""
    entry = ENTRY.read_text(encoding="utf-8")
    if entry.count(_PLACE) != 1:
        raise ValueError(f"{ENTRY.name} must hold the line {_PLACE!r} once")
    return entry.replace(_PLACE, interactive.inline_modules(MODULES))


@functools.cache
def css() -> str:
    return browser.CSS.read_text(encoding="utf-8") + _CSS


def plotly_js() -> bytes:
    """plotly.js as the plotly package installs it (no CDN)."""
    return interactive._plotly_js().encode("utf-8")


# --- what a widget sends ------------------------------------------------------------------


def names_of(trace, feature_names=None, classes=None, target_name=None) -> dict:
    """The data's names as the pages take them: given, else the trace's classes and
    x1, x2 (x with one input), as the toy sets name theirs."""
    n = trace.X.shape[1]
    if feature_names is None:
        feature_names = ("x",) if n == 1 else tuple(f"x{i + 1}" for i in range(n))
    if classes is None:
        classes = (tuple(_label(c) for c in trace.classes) if trace.is_classifier
                   else ("0", "1"))
    return dict(feature_names=tuple(str(f) for f in feature_names), classes=tuple(classes),
                target_name=str(target_name or "y"))


def _label(value) -> str:
    """A class label as text: 1.0 (a float array's label) as 1."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


def state_of(trace, *, round=0, sample=0, k=0, present=False, leaf=-1, show_valid=False,
             pk=False):
    """The State a page is described at: the fit's rounds, the round, the selection."""
    from dataclasses import replace
    from .state import State
    state = replace(State(), rounds=trace.n_rounds, round=int(round), sample=int(sample),
                    cls=int(k), present=bool(present), leaf=int(leaf),
                    showvalid=bool(show_valid), pk=bool(pk))
    state = state.for_samples(len(trace.y), trace.n_classes if trace.is_multiclass else 1)
    return state.with_round(state.round)


def payload(trace, grid, state, names: dict, page: str, key: str) -> tuple[str, bytes, bytes]:
    """(spec, record, tables) of ``page`` at ``state``: the spec as JSON text (each
    chart's view, template, bindings, round 0's figure where it is its own, and where
    its tables lie in ``tables``), the fit's record and every chart's tables, as bytes."""
    if page not in PAGES:
        raise ValueError(f"page must be one of {', '.join(PAGES)}; got {page!r}.")
    described = pages.describe(page, trace, grid, state, names, key=key)
    tables, charts, offset = [], [], 0
    for chart in described.charts:
        step = pages.step(chart, trace, grid, state.present)
        raw = base64.b64decode(step.pop("tables"))
        tables.append(raw)
        step["tables"] = [offset, len(raw)]
        offset += len(raw)
        template = chart.json_at(step["at"], state.present)
        charts.append(f'{{"view":{json.dumps(chart.view)},"wide":{json.dumps(chart.wide)},'
                      f'"figure":{template},'
                      f'"step":{json.dumps(step, separators=(",", ":"))}}}')
    present = " (presenter mode)" if state.present else ""
    spec = (f'{{"key":{json.dumps(key)},"page":{json.dumps(page)},'
            f'"title":{json.dumps(described.title + present)},'
            f'"rounds":{trace.n_rounds},"present":{json.dumps(bool(state.present))},'
            f'"config":{json.dumps(interactive.CONFIG)},"charts":[{",".join(charts)}]}}')
    return spec, encode(trace, grid, key), b"".join(tables)


# --- the widgets (anywidget, imported on first use) ---------------------------------------


@functools.cache
def _classes():
    try:
        import anywidget
        import traitlets
        from ipywidgets import widget_serialization
    except ImportError as error:  # pragma: no cover - the extra is not installed
        raise ImportError('explorer.show needs anywidget: pip install '
                          '"boosting-explorer[notebook]" (or pip install anywidget)') from error

    class PlotlyJS(anywidget.AnyWidget):
        """plotly.js, held once per kernel session for every explorer widget (never shown)."""
        _esm = traitlets.Unicode("export default {};\n").tag(sync=True)
        source = traitlets.Bytes(b"").tag(sync=True)

    class Explorer(anywidget.AnyWidget):
        """A page of the explorer that steps in the browser (see :func:`show`)."""
        _esm = traitlets.Unicode(esm()).tag(sync=True)
        _css = traitlets.Unicode(css()).tag(sync=True)
        _plotly = traitlets.Instance(PlotlyJS).tag(sync=True, **widget_serialization)
        _spec = traitlets.Unicode("{}").tag(sync=True)
        _record = traitlets.Bytes(b"").tag(sync=True)
        _tables = traitlets.Bytes(b"").tag(sync=True)
        round = traitlets.Int(0).tag(sync=True)
        sample = traitlets.Int(0).tag(sync=True)

        def __init__(self, trace, grid, names, page, state, **kwargs):
            self.trace, self.grid, self.names, self.page = trace, grid, names, page
            self._state = state
            self._key = f"notebook-{next(_keys)}"
            spec, record, tables = payload(trace, grid, state, names, page, self._key)
            super().__init__(_plotly=_holder(PlotlyJS), _spec=spec, _record=record,
                             _tables=tables, round=state.round, sample=state.sample,
                             **kwargs)

        @property
        def state(self):
            return self._state

        @traitlets.validate("round")
        def _round_in_range(self, proposal):
            return max(0, min(int(proposal["value"]), self.trace.n_rounds))

        @traitlets.validate("sample")
        def _sample_in_range(self, proposal):
            return max(0, min(int(proposal["value"]), len(self.trace.y) - 1))

        @traitlets.observe("round")
        def _round_changed(self, change):
            self._state = self._state.with_round(change["new"])

        @traitlets.observe("sample")
        def _sample_changed(self, change):
            # the selection is drawn into the charts: the page is described again
            from dataclasses import replace
            self._state = replace(self._state, sample=change["new"])
            spec, record, tables = payload(self.trace, self.grid, self._state, self.names,
                                           self.page, self._key)
            with self.hold_sync():  # one message: the view builds the page once
                self._record, self._tables, self._spec = record, tables, spec

        def figures(self, m: int | None = None) -> list:
            """The page's figures at round ``m`` (the widget's round by default), drawn in
            Python: what the view shows."""
            m = self.round if m is None else m
            described = pages.describe(self.page, self.trace, self.grid, self._state,
                                       self.names, key=self._key)
            return [chart.at(m, self._state.present) for chart in described.charts]

        def __repr__(self):
            return (f"<explorer widget: {self.page} page, round {self.round} of "
                    f"{self.trace.n_rounds}>")

    PlotlyJS.__module__ = Explorer.__module__ = __name__
    PlotlyJS.__qualname__, Explorer.__qualname__ = "PlotlyJS", "Explorer"
    return PlotlyJS, Explorer


_HELD = []  # the kernel session's PlotlyJS model, once made


def _holder(PlotlyJS):
    """The one PlotlyJS model of this kernel session (made again if it was closed)."""
    if not _HELD or getattr(_HELD[0], "comm", None) is None:
        _HELD[:] = [PlotlyJS(source=plotly_js())]
    return _HELD[0]


def show(data, y=None, *, page: str = "model", round: int = 0, k: int = 0,
         sample: int = 0, present: bool = False, leaf: int = -1, show_valid: bool = False,
         pk: bool = False, feature_names=None, classes=None, target_name=None,
         resolution: int | None = None, **fit_params):
    """A widget showing ``page`` (one of "model", "tree", "sample", "curves") of a fit,
    that steps through the rounds in the browser.

    ``data``: a Trace (``explorer.fit``'s), or X with ``y`` and ``fit``'s keyword
    arguments (then fitted here). ``round``: the round shown first, a synced trait of
    the widget; ``sample``: the selected point (a trait too); ``k``: the class shown with
    3-10 classes, as ``trace.tree(m, k=)`` takes it; ``present``: presenter mode, for a
    projector. ``feature_names``, ``classes``, ``target_name``: the data's names (X's
    columns and y's name when they are pandas'). The fit's inputs must be one or two
    columns: the charts draw the plane (or the line) of them.
    """
    from .trace import Trace
    if isinstance(data, Trace):
        if y is not None or fit_params:
            raise ValueError("show(trace, ...) takes no y or fit parameters: the trace is "
                             "fitted already.")
        trace = data
    else:
        if y is None:
            raise ValueError("show(X, y, **fit_params) needs y (or a Trace as its first "
                             "argument).")
        if feature_names is None and hasattr(data, "columns"):
            feature_names = [str(c) for c in data.columns]
        if target_name is None and getattr(y, "name", None) is not None:
            target_name = str(y.name)
        from .boosting import fit
        trace = fit(np.asarray(data), np.asarray(y), **fit_params)
    if page not in PAGES:
        raise ValueError(f"page must be one of {', '.join(PAGES)}; got {page!r}.")
    if trace.X.shape[1] not in (1, 2):
        raise ValueError(f"the pages draw the plane of two inputs (or the line of one); "
                         f"this fit has {trace.X.shape[1]}: fit on one or two columns.")
    if trace.is_multiclass and not 0 <= int(k) < trace.n_classes:
        raise ValueError(f"k must be a class in 0..{trace.n_classes - 1}; got {k!r}.")
    if not 0 <= int(round) <= trace.n_rounds:
        raise ValueError(f"round must be in 0..{trace.n_rounds}; got {round!r}.")
    names = names_of(trace, feature_names, classes, target_name)
    state = state_of(trace, round=round, sample=sample, k=k, present=present, leaf=leaf,
                     show_valid=show_valid, pk=pk)
    _, Explorer = _classes()
    return Explorer(trace, make_grid(trace, resolution), names, page, state)


def warmup(parts=None, *, progress: bool = True, file=None) -> float:
    """Compile the engine (numba) ahead of the first fit, with a line of progress for
    each part: about 24 s for the default fit's parts on a fresh environment (numba's disk
    cache then holds them, and a new kernel loads them in a fraction of a second), more
    for every part. ``parts``: names from :data:`explorer.numbers.warmup.PARTS` (all by
    default). Returns the seconds taken."""
    from .numbers.warmup import PARTS, expected_seconds
    chosen = PARTS if parts is None else tuple(p for p in PARTS if p.name in set(parts))
    if parts is not None and len(chosen) != len(set(parts)):
        known = ", ".join(p.name for p in PARTS)
        raise ValueError(f"parts must be among: {known}; got {parts!r}.")
    out = file or sys.stdout
    start = time.perf_counter()
    if progress:
        print(f"Compiling the engine: {len(chosen)} parts (up to about "
              f"{expected_seconds(chosen):.0f} s on a fresh environment, a few seconds "
              f"from numba's cache)", file=out, flush=True)
    for k, part in enumerate(chosen, 1):
        began = time.perf_counter()
        part.compile()
        if progress:
            print(f"  [{k}/{len(chosen)}] {part.name}: {time.perf_counter() - began:.1f} s",
                  file=out, flush=True)
    total = time.perf_counter() - start
    if progress:
        print(f"The engine is ready ({total:.1f} s).", file=out, flush=True)
    return total
