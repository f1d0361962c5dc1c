"""Sample page: one training point's ledger over every round."""

import streamlit as st

from explorer import app, figures
from explorer.numbers import summaries

ctx = app.page("Sample: one point's account, round by round")


def body(ctx):
    s = app.round_bar(ctx)
    m = s.round
    tr, grid = ctx.trace, ctx.grid
    left, right = st.columns([1, 1], gap="medium")
    with left:
        app.chart(app.following(
            ctx, s, "sample_map", figures.model_view, grid, sample=s.sample,
            uirevision=ctx.key, height=520, title=figures.sample_map_title, **ctx.names),
            s, "sample_map", on_select=app.select_sample_from, live=True)
    ledger = summaries.ledger(tr, s.sample)
    with right:
        i = app.sample_picker(ctx, s)
        app.sample_block(ctx, i, m, ledger)
        app.chart(app.following(ctx, s, "trajectory", figures.sample_trajectory,
                                before=(tr, i), uirevision=ctx.key, height=320,
                                classes=ctx.classes), s, "trajectory", live=True)
    st.markdown(f"##### The ledger of sample #{i}: every round")
    app.ledger_table(ctx, ledger, m)


app.run_page(body, ctx)
