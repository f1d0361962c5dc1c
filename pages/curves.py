"""Curves page: loss and accuracy against rounds (click to go to a round), and f0."""

import streamlit as st

from explorer import app
from explorer.figures.pages import TITLES

ctx = app.page(TITLES["curves"])


def body(ctx):
    s = app.round_bar(ctx)
    app.lesson(ctx, s, "curves")
    m = s.round
    app.chart(app.follow(ctx, s, app.charts(ctx, s, "curves").chart("curves")), s,
              "curves", key="chart_curves", on_select=app.select_round_from, live=True)
    app.metrics_row(ctx, m)
    st.markdown("##### Round 0: the best constant f₀")
    app.f0_block(ctx)
    app.lesson_file(ctx, s, "curves")


app.run_page(body, ctx)
