"""Model page: the model and the residuals after round m (and f0 at round 0).

Classification: the probability map and the residual map (with three classes or more:
the most probable class, or one class's p_k, and one class's residuals y_k - p_k).
Regression with one input:
the staircase F_m(x) with the residuals as bars, one wide chart; with two inputs: the
surface F_m as a heat map and the residual map.
"""

import streamlit as st

from explorer import app, figures
from explorer.app.text import sub

ctx = app.page("Model: the prediction after round m, and what the next tree fits",
               drawing=True)


def body(ctx):
    s = app.round_bar(ctx)
    m = s.round
    app.lesson(ctx, s, "model")
    tr, grid = ctx.trace, ctx.grid
    app.field("showvalid", s, on_change=app.mark_acted, disabled=ctx.valid is None)
    k, one = 0, None
    if tr.is_multiclass:
        pick, toggle = st.columns([2, 1], vertical_alignment="bottom")
        k = app.class_picker(ctx, s, pick)
        app.field("pk", s, toggle, on_change=app.mark_acted)
        one = k if s.pk else None
    model = app.following(ctx, s, "model", figures.model_view, grid, show_valid=s.showvalid,
                          sample=s.sample, uirevision=ctx.key, k=one, **ctx.names)
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
            app.chart(app.following(
                ctx, s, "residuals", figures.residual_map, grid,
                feature_names=ctx.feature_names, sample=s.sample, uirevision=ctx.key, k=k,
                classes=ctx.classes), s, "residuals", on_select=app.select_sample_from,
                live=True)
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


app.run_page(body, ctx)
