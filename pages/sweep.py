"""Sweep page: one or two settings over a few values each, a fit per cell, stepped
together: the cells' maps, their loss curves, and with two settings a heat map."""

import streamlit as st

from explorer import app
from explorer.best_round import best_round
from explorer.figures.pages import TITLES, describe_sweep
from explorer.sweep import AXES, MAX_VALUES, plan, text

ctx = app.page(TITLES["sweep"])

_NONE = "(none)"


def _set(source: str) -> None:
    """Callback of a sweep's two widgets: write the axis and its values into the State
    (a new axis starts from its ready values)."""
    app.mark_acted()
    ss = st.session_state
    key = ss[f"{source}_axis"]
    words = ss.get(f"{source}_values", "") if ss.get(f"_{source}_was") == key else ""
    app.update(**{source: "" if key == _NONE else
                  f"{key}:{words.replace(' ', '')}" if words else key})


def _controls(sweep) -> None:
    """The two axes: a setting and its values each (the values as typed, comma-separated)."""
    chosen = {source: (axis.key, values) for source, (axis, values)
              in zip(("sweep", "sweep2"), sweep.axes)}
    for source, label, options in (("sweep", "Vary", tuple(AXES)),
                                   ("sweep2", "and", (_NONE,) + tuple(AXES))):
        key, values = chosen.get(source, (_NONE, ()))
        ss = st.session_state
        ss[f"{source}_axis"] = key
        ss[f"_{source}_was"] = key
        ss[f"{source}_values"] = ", ".join(AXES[key].field.format(v) for v in values) \
            if key != _NONE else ""
        left, right = st.columns([1, 2], vertical_alignment="bottom")
        left.selectbox(label, options, key=f"{source}_axis", on_change=_set, args=(source,),
                       format_func=lambda k: k if k == _NONE else AXES[k].name)
        right.text_input(f"Values (at most {MAX_VALUES}, comma-separated)",
                         key=f"{source}_values", on_change=_set, args=(source,),
                         disabled=key == _NONE)


def _sentence(cells, fits, sweep) -> str:
    """The best cell, by its best round's validation loss (the first on ties)."""
    found = [(best_round(f.trace), c) for c, f in zip(cells, fits)]
    if any(b is None for b, _ in found):
        return ("No validation points (validation share 0): the maps show the fits, and "
                "there is no best round to name.")
    best, cell = min(found, key=lambda bc: bc[0].valid)
    loss = fits[0].trace.loss.replace("_", "-")
    own = (" Each cell has its own points and its own validation points (the data is "
           "swept)." if sweep.own_data else "")
    return (f"Best: {cell.label}, at round {best.round}, validation {loss} "
            f"{best.valid:.4f} (train {best.train:.4f}).{own}")


def body(ctx):
    s = app.state()
    sweep = plan(s)
    _controls(sweep)
    for note in sweep.notes:
        st.warning(app.md_escape(note), icon=":material/warning:")
    s = app.round_bar(ctx)
    progress = st.progress(0.0, text="Fitting the sweep…")

    def report(done, total):
        progress.progress(done / max(total, 1), text=f"Fitting the sweep: {done} of {total} "
                                                     "cells")
    fits = app.sweep_cells(ctx, sweep, report)
    progress.empty()
    if isinstance(fits, str):
        st.error(app.md_escape(fits), icon=":material/error:")
        return
    cells = list(sweep.cells)
    for cell, fit in zip(cells, fits):
        if isinstance(fit, ValueError):
            st.error(f"{app.md_escape(cell.label)}: this setting cannot be fitted: "
                     f"{app.md_escape(str(fit))}", icon=":material/error:")
    kept = [(c, f) for c, f in zip(cells, fits) if not isinstance(f, ValueError)]
    if not kept:
        return
    cells, fits = [c for c, _ in kept], [f for _, f in kept]
    traces = [f.trace for f in fits]
    app.lesson(ctx, s, "sweep", *traces)
    st.info(app.md_escape(_sentence(cells, fits, sweep)), icon=":material/trophy:")
    st.caption("Every map is on one colour scale: " + (
        "p(class 1) from 0 (blue) to 1 (orange), the boundary p = 0.5 in black."
        if traces[0].is_classifier and not traces[0].is_multiclass else
        "the most probable class, paler where unsure." if traces[0].is_multiclass else
        "F, from the lowest target or F of any cell to the highest."))
    page = describe_sweep(sweep.axes, cells, fits, s, ctx.key)
    by_key = {f.key: f for f in fits}
    charts = {chart.view: chart for chart in page.charts}
    rows, columns = sweep.shape
    for row in range(rows):
        places = st.columns(columns, gap="small")
        for col, place in enumerate(places):
            chart = charts.get(f"sweep_{row}_{col}")
            if chart is not None:
                with place:
                    app.chart(app.follow(by_key[chart.fit[2]], s, chart), s, chart.view,
                              live=True)
    app.field("logscale", s, on_change=app.mark_acted)
    for view in ("sweep_curves", "sweep_heat"):
        if view in charts:
            app.chart(app.follow(fits[0], s, charts[view]), s, view, live=True)
    st.caption("The link holds the sweep: " + " and ".join(
        f"`{text(axis, values)}`" for axis, values in sweep.axes))
    app.lesson_file(ctx, s, "sweep", described=page)


app.run_page(body, ctx)
