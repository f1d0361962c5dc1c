"""Curves page: loss and accuracy against rounds (click to go to a round), and f0."""

import streamlit as st

from explorer import app, figures

ctx = app.page("Curves: loss and accuracy round by round, and where it starts")


def body(ctx):
    s = app.round_bar(ctx)
    app.lesson(ctx, s, "curves")
    m = s.round
    app.chart(app.following(ctx, s, "curves", figures.curves, uirevision=ctx.key), s,
              "curves", key="chart_curves", on_select=app.select_round_from, live=True)
    app.metrics_row(ctx, m)
    st.markdown("##### Round 0: the best constant f₀")
    app.f0_block(ctx)


app.run_page(body, ctx)
