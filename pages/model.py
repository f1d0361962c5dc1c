"""Model page: the model and the residuals after round m (and f0 at round 0).

Classification: the probability map and the residual map. Regression with one input:
the staircase F_m(x) with the residuals as bars, one wide chart; with two inputs: the
surface F_m as a heat map and the residual map.
"""

import streamlit as st

from explorer import figures
from explorer.app import session

ctx = session.page_context("Model: the prediction after round m, and what the next tree fits")


def body(ctx):
    m = session.round_bar(ctx)
    tr, grid = ctx.trace, ctx.grid
    st.toggle("Show validation points", key="showvalid", bind="query-params",
              on_change=session.mark_acted, disabled=ctx.valid is None,
              help="Hollow diamonds: points held out of the fit.")
    s = session.view_state(ctx, m)
    model = session.figure(figures.model_view, tr, m, grid, show_valid=s.showvalid,
                           sample=s.sample, uirevision=ctx.key, **ctx.names)
    if grid.is_line:  # one input: the residuals are the chart's own bars
        session.chart(model, s, "model", on_select=session.select_sample_from, live=True)
    else:
        left, right = st.columns(2, gap="small")
        with left:
            session.chart(model, s, "model", on_select=session.select_sample_from, live=True)
        with right:
            session.chart(session.figure(
                figures.residual_map, tr, m, grid, feature_names=ctx.feature_names,
                sample=s.sample, uirevision=ctx.key), s, "residuals",
                on_select=session.select_sample_from, live=True)
    session.metrics_row(ctx, m)
    if m == 0:
        st.markdown("##### Round 0: the best constant f₀")
        session.f0_block(ctx)
    else:
        st.caption(f"Round {m} added tree {m}, fitted to the residuals of round {m - 1}: "
                   f"F_{m} = F_{m - 1} + ν · tree {m}. The Tree page shows that tree, its leaf "
                   "values and the update.")


session.run_page(body, ctx)
