"""Sample page: one training point's ledger over every round."""

import streamlit as st

from explorer import app
from explorer.figures.pages import TITLES
from explorer.numbers import summaries

ctx = app.page(TITLES["sample"])


def body(ctx):
    s = app.round_bar(ctx)
    m = s.round
    tr = ctx.trace
    left, right = st.columns([1, 1], gap="medium")
    charts = app.charts(ctx, s, "sample")
    with left:
        app.chart(app.follow(ctx, s, charts.chart("sample_map")), s, "sample_map",
                  on_select=app.select_sample_from, live=True)
    ledger = summaries.ledger(tr, s.sample)
    with right:
        i = app.sample_picker(ctx, s)
        app.sample_block(ctx, i, m, ledger)
        app.chart(app.follow(ctx, s, charts.chart("trajectory")), s, "trajectory",
                  live=True)
    st.markdown(f"##### The ledger of sample #{i}: every round")
    app.ledger_table(ctx, ledger, m)
    app.lesson_file(ctx, s, "sample")


app.run_page(body, ctx)
