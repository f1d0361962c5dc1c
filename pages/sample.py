"""Sample page: one training point's ledger over every round."""

import streamlit as st

from explorer import figures
from explorer.app import session
from explorer.numbers import summaries

ctx = session.page_context("Sample: one point's account, round by round")


def body(ctx):
    m = session.round_bar(ctx)
    s = session.view_state(ctx, m)
    tr, grid = ctx.trace, ctx.grid
    left, right = st.columns([1, 1], gap="medium")
    with left:
        session.chart(session.figure(
            figures.model_view, tr, m, grid, sample=s.sample, uirevision=ctx.key, height=520,
            title=f"Click a point to follow it (round {m})", **ctx.names),
            s, "sample_map", on_select=session.select_sample_from, live=True)
    ledger = summaries.ledger(tr, s.sample)
    with right:
        i = session.sample_picker(ctx, s.sample)
        session.sample_block(ctx, i, m, ledger)
        session.chart(session.figure(figures.sample_trajectory, tr, i, m,
                                     uirevision=ctx.key, height=320), s, "trajectory", live=True)
    st.markdown(f"##### The ledger of sample #{i}: every round")
    session.ledger_table(ctx, ledger, m)


session.run_page(body, ctx)
