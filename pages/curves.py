"""Curves page: loss and accuracy against rounds (click to go to a round), the round of
the lowest validation loss, and f0."""

import streamlit as st

from explorer import app
from explorer.figures.pages import TITLES
from explorer.best_round import best_round

ctx = app.page(TITLES["curves"])


def body(ctx):
    s = app.round_bar(ctx)
    app.lesson(ctx, s, "curves")
    m = s.round
    chart = app.charts(ctx, s, "curves").chart("curves")
    app.chart(app.follow(ctx, s, chart), s, "curves", key="chart_curves",
              on_select=app.select_round_from, live=True)
    best = best_round(ctx.trace)
    said, acts = st.columns([3, 1], vertical_alignment="center")
    if best is None:
        said.caption("No validation points (validation share 0): no validation loss, so no "
                     "best round to mark. Set a validation share in the sidebar to see where "
                     "it is lowest.")
    else:
        said.markdown(f"★ {best.sentence(ctx.trace.n_rounds)}")
    with acts:
        app.field("logscale", s, on_change=app.mark_acted)
        if best is not None:
            # the round bar's own way to a round picked on the chart
            st.button(f"Go to round {best.round}", key="goto_best", icon=":material/star:",
                      on_click=app.select_round_from, args=("goto_best", [{"x": best.round}]),
                      disabled=m == best.round, width="stretch",
                      help="Move the round bar to the round of the lowest validation loss.")
    app.metrics_row(ctx, m)
    st.markdown("##### Round 0: the best constant f₀")
    app.f0_block(ctx)
    app.lesson_file(ctx, s, "curves")


app.run_page(body, ctx)
