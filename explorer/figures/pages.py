"""Each page's charts that follow the round, described once, outside Streamlit.

A page (Model, Tree, Sample, Curves; presenter mode is the same charts made for a
projector) shows a few charts that follow the round: for each, the view's name, the
figure function and the arguments it is given besides the round. :func:`describe` says
which, from the fit (trace and grid), the State (the selection, the class, the options)
and the data's names. The app's pages draw these charts (``explorer/app``'s
``following``), and so does the lesson file that steps offline
(:mod:`explorer.export.interactive`): both from this one description.

:func:`step` is how one chart follows the round, as the browser gets it: the template's
round, the bindings, round 0's figure where it is its own, and the tables as base64
(:func:`explorer.figures.bindings.bind`).

Plain Python: no Streamlit.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass, field

from . import bindings
from .charts import curves, sample_trajectory, tree_diagram
from .model import model_view, sample_map_title
from .panels import plain, to_json
from .regions import tree_regions
from .residuals import residual_map
from .presenter import presented
from .sweep import colours, sweep_curves, sweep_heat, sweep_map, value_range
from .update import update_panels


@dataclass(frozen=True, eq=False)
class Chart:
    """A chart that follows the round: ``draw(*before, m, *after, **kwargs)``.

    ``view`` names it (the page's chart, its image file names); ``wide`` when the page
    gives it the page's whole width."""

    view: str
    draw: Callable
    before: tuple
    after: tuple = ()
    kwargs: dict = field(default_factory=dict)
    wide: bool = False
    # (trace, grid, key) of the fit it steps with, where that is not the page's own (the
    # Sweep page's cells): the browser computes its terms from that fit's record
    fit: tuple = ()

    def at(self, m: int, present: bool = False):
        """The figure at round m (made for a projector when ``present``)."""
        return figure(self.draw, (*self.before, m, *self.after), self.kwargs, present)

    def json_at(self, m: int, present: bool = False) -> str:
        """:meth:`at` as the browser gets it (:func:`figure_json`)."""
        return figure_json(self.draw, (*self.before, m, *self.after), self.kwargs, present)[0]


def figure(draw, args: tuple, kwargs: dict, present: bool = False):
    """``draw(*args, **kwargs)``, made for a projector when ``present``."""
    fig = draw(*args, **kwargs)
    return presented(fig) if present else fig


def figure_json(draw, args: tuple, kwargs: dict, present: bool = False) -> tuple[str, dict]:
    """:func:`figure` as plotly's JSON, drawn plain (not validated: :func:`.panels.to_json`),
    and its layout's width and height where it names them."""
    with plain():
        fig = figure(draw, args, kwargs, present)
    layout = fig["layout"] if isinstance(fig, dict) else fig.layout.to_plotly_json()
    return to_json(fig), dict(width=layout.get("width"), height=layout.get("height"))


@dataclass(frozen=True, eq=False)
class Page:
    """A page's charts that follow the round, and the text panels the app shows beside
    them (updated by the app's rerun at rest)."""

    name: str
    title: str
    path: str  # the page's address in the app
    charts: tuple[Chart, ...]
    panels: tuple[str, ...]

    def chart(self, view: str) -> Chart:
        return next(c for c in self.charts if c.view == view)


# the pages' titles, as the app prints them
TITLES = {
    "model": "Model: the prediction after round m, and what the next tree fits",
    "tree": "Tree m: its regions, its leaf values, and the update it makes",
    "sample": "Sample: one point's account, round by round",
    "curves": "Curves: loss and accuracy round by round, and where it starts",
    "sweep": "Sweep: one setting or two over a few values, every fit stepped together",
}
PATHS = {"model": "/", "tree": "/tree", "sample": "/sample", "curves": "/curves",
         "sweep": "/sweep"}


def _model(trace, grid, state, names, key):
    k = state.cls if trace.is_multiclass else 0
    one = k if trace.is_multiclass and state.pk else None
    charts = [Chart("model", model_view, (trace,), (grid,),
                    dict(show_valid=state.showvalid, sample=state.sample, uirevision=key,
                         k=one, **names), wide=grid.is_line)]
    if not grid.is_line:  # with one input the residuals are the model chart's own bars
        charts.append(Chart("residuals", residual_map, (trace,), (grid,),
                            dict(feature_names=names["feature_names"], sample=state.sample,
                                 uirevision=key, k=k, classes=names["classes"])))
    return charts, ("the loss and accuracy at round m", "round 0's f₀ and its formula",
                    "the round's caption")


def _tree(trace, grid, state, names, key):
    k = state.cls if trace.is_multiclass else 0
    common = dict(feature_names=names["feature_names"], uirevision=key, k=k)
    return [
        Chart("regions", tree_regions, (trace,), (grid,),
              dict(classes=names["classes"], leaf=state.leaf, sample=state.sample, **common)),
        Chart("update", update_panels, (trace,), (grid,), common, wide=True),
        Chart("tree", tree_diagram, (trace,), (),
              dict(leaf=state.leaf, sample=state.sample, classes=names["classes"], **common),
              wide=True),
    ], ("the leaf picker and the leaf's Newton step", "every node as a table",
        "round 0's f₀ and its formula")


def _sample(trace, grid, state, names, key):
    return [
        Chart("sample_map", model_view, (trace,), (grid,),
              dict(sample=state.sample, uirevision=key, height=520, title=sample_map_title,
                   **names)),
        Chart("trajectory", sample_trajectory, (trace, state.sample), (),
              dict(uirevision=key, height=320, classes=names["classes"])),
    ], ("the sample picker and its account at round m", "the ledger of every round")


def _curves(trace, grid, state, names, key):
    # the loss axis's scale is the State's, so that the link (and a lesson file) carries it
    return [Chart("curves", curves, (trace,), (), dict(uirevision=key, log=state.logscale),
                  wide=True)], (
        "the loss and accuracy at round m", "round 0's f₀ and its formula")


_PAGES = {"model": _model, "tree": _tree, "sample": _sample, "curves": _curves}
PAGES = tuple(_PAGES)


def describe(page: str, trace, grid, state, names: dict, key: str = "") -> Page:
    """The charts that follow the round on ``page`` (one of :data:`PAGES`) for this fit,
    the State's selection and options (``state``: its sample and class within the fit),
    and the data's ``names`` (feature_names, classes, target_name); ``key`` names the fit
    (the charts' uirevision)."""
    if page not in _PAGES:
        raise ValueError(f"page must be one of {', '.join(PAGES)}; got {page!r}.")
    charts, panels = _PAGES[page](trace, grid, state, dict(names), key)
    return Page(page, TITLES[page], PATHS[page], tuple(charts), panels)


def describe_sweep(axes, cells, fits, state, key: str = "") -> Page:
    """The Sweep page's charts for the ``axes`` and ``cells`` of a sweep
    (:func:`explorer.sweep.plan`; the cells that could be fitted) and their ``fits``
    (each (trace, grid, key), in the cells' order): each cell's map with its own fit, the
    curves of every fit, and with two settings and validation points the heat map."""
    traces = [f[0] for f in fits]
    scale = None if traces[0].is_classifier else value_range(traces, [f[1] for f in fits])
    charts = [Chart(f"sweep_{c.row}_{c.col}", sweep_map, (f[0],), (f[1],),
                    dict(label=c.label, value_range=scale, uirevision=f[2],
                         columns=len(axes[0][1])), fit=tuple(f[:3]))
              for c, f in zip(cells, fits)]
    first = axes[0][1]
    palette = dict(zip(first, colours(len(first))))
    charts.append(Chart("sweep_curves", sweep_curves, tuple(traces), (),
                        dict(labels=[c.label for c in cells],
                             colors=[palette[c.values[0]] for c in cells],
                             # a second setting: thin to thick, as its values go
                             widths=[2.0 + 2.0 * c.row for c in cells] if len(axes) == 2
                             else None,
                             log=state.logscale, uirevision=key),
                        wide=True, fit=tuple(fits[0][:3])))
    if len(axes) == 2 and traces[0].valid_loss is not None:
        (a, across), (d, down) = axes
        charts.append(Chart("sweep_heat", sweep_heat, tuple(traces), (),
                            dict(grid_of=[(c.row, c.col) for c in cells],
                                 across=[a.label(v) for v in across],
                                 down=[d.label(v) for v in down], across_name=a.name,
                                 down_name=d.name, uirevision=key),
                            wide=True, fit=tuple(fits[0][:3])))
    return Page("sweep", TITLES["sweep"], PATHS["sweep"], tuple(charts),
                ("the sentence naming the best cell",))


def step(chart: Chart, trace, grid, present: bool = False) -> dict:
    """How ``chart`` follows the round in the browser: ``at`` (the template's round; the
    template is ``chart.at(at)``), ``bindings``, ``zero`` (round 0's figure as plotly's
    JSON, where it is not the template with other values) and ``tables`` (base64).
    Raises :class:`explorer.figures.bindings.TooLarge` beyond the browser's budget."""
    bound = bindings.bind(chart.draw, trace, grid, chart.before, chart.after, chart.kwargs,
                          present=present)
    zero = None if bound.zero is None else chart.json_at(0, present)
    return dict(at=bound.at, bindings=bound.bindings, zero=zero,
                tables=base64.b64encode(bound.tables).decode("ascii"))


def image_names(state, view: str, rounds: int) -> list[str]:
    """The image file name of ``view`` at each round 0 to ``rounds`` (a chart's toolbar
    camera, in the app and in the lesson file): ``boosting_<view>_<the State's slug>``.
    The round is the slug's last part (Settings.slug), so the rest is made once: a slug a
    round took 20 ms of a Tree page's run at 100 rounds."""
    head = f"boosting_{view}_{state.with_round(0).slug()}".removesuffix("_m0")
    return [f"{head}_m{m}" for m in range(rounds + 1)]
