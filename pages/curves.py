"""Curves page: loss and accuracy against rounds (click to go to a round), and f0."""

import streamlit as st

from explorer import figures
from explorer.app import session

ctx = session.page_context("Curves: loss and accuracy round by round, and where it starts")


def body(ctx):
    m = session.round_bar(ctx)
    s = session.view_state(ctx, m)
    session.chart(session.figure(figures.curves, ctx.trace, m, uirevision=ctx.key), s, "curves",
                  key="chart_curves", on_select=session.select_round_from, live=True)
    session.metrics_row(ctx, m)
    st.markdown("##### Round 0: the best constant f₀")
    session.f0_block(ctx)


session.run_page(body, ctx)
