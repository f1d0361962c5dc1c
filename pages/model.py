"""Model page: the model and the residuals after round m (and f0 at round 0).

Classification: the probability map and the residual map (with three classes or more:
the most probable class, or one class's p_k, and one class's residuals y_k - p_k).
Regression with one input:
the staircase F_m(x) with the residuals as bars, one wide chart; with two inputs: the
surface F_m as a heat map and the residual map.
"""

import streamlit as st

from explorer import app
from explorer.app.text import sub
from explorer.figures.pages import TITLES

ctx = app.page(TITLES["model"], drawing=True)


def body(ctx):
    s = app.round_bar(ctx)
    m = s.round
    app.lesson(ctx, s, "model")
    tr, grid = ctx.trace, ctx.grid
    app.field("showvalid", s, on_change=app.mark_acted, disabled=ctx.valid is None)
    if tr.is_multiclass:
        pick, toggle = st.columns([2, 1], vertical_alignment="bottom")
        app.class_picker(ctx, s, pick)
        app.field("pk", s, toggle, on_change=app.mark_acted)
    charts = app.charts(ctx, s, "model")  # the class and p_k as the State has them
    model = app.follow(ctx, s, charts.chart("model"))
    # on drawn data a click on the plane adds or removes a point
    clicked = dict(on_select=app.edit_points, draw=True) if s.is_drawn else dict(
        on_select=app.select_sample_from)
    if grid.is_line:  # one input: the residuals are the chart's own bars
        app.chart(model, s, "model", live=True, **clicked)
    else:
        left, right = st.columns(2, gap="small")
        with left:
            app.chart(model, s, "model", live=True, **clicked)
        with right:
            app.chart(app.follow(ctx, s, charts.chart("residuals")), s, "residuals",
                      on_select=app.select_sample_from, live=True)
    app.metrics_row(ctx, m)
    if m == 0:
        st.markdown("##### Round 0: the best constant f₀")
        app.f0_block(ctx)
    else:
        trees = (f"{tr.n_classes} trees, tree ({m}, k) fitted to class k's residuals "
                 f"yₖ − pₖ of round {m - 1}: F{sub(f'{m},k')} = F{sub(f'{m - 1},k')} + "
                 f"ν · tree ({m}, k)"
                 if tr.is_multiclass else
                 f"tree {m}, fitted to the residuals of round {m - 1}: "
                 f"F{sub(m)} = F{sub(m - 1)} + ν · tree {m}")
        st.caption(f"Round {m} added {trees}. The Tree page shows that tree, its leaf "
                   "values and the update.")
    app.lesson_file(ctx, s, "model")


app.run_page(body, ctx)
