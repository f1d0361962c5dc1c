"""Compare page: two settings side by side on the same data, one round control."""

import streamlit as st

from explorer import figures, math_figures, session
from explorer.state import COMPARISONS

ctx = session.page_context("Compare: two settings on the same data, round by round")


def body(ctx):
    st.selectbox("Comparison", list(COMPARISONS), key="pair", bind="query-params",
                 format_func=lambda key: COMPARISONS[key][0], on_change=session.mark_acted,
                 help="Each side is your setting from the sidebar, changed as the pair says.")
    m = session.round_bar(ctx)
    s = session.view_state(ctx, m)
    a, b, flip = s.compared()
    fits = []
    for side in (a, b):
        try:
            fits.append(session.variant(ctx, side, flip))
        except ValueError as error:
            st.error(f"{COMPARISONS[s.pair][0]}: this setting cannot be fitted: "
                     f"{session.md_escape(str(error))}", icon=":material/error:")
            return
    labels = [COMPARISONS[s.pair][0].split(" against ")[0],
              COMPARISONS[s.pair][0].split(" against ")[1].split(",")[0]]
    if flip:
        st.caption(f"{flip:.0%} of the training labels are flipped on both sides: the points "
                   "the exponential loss weighs by e^(−yF) pull its boundary much harder.")
    columns = st.columns(2, gap="small")
    for side, column, (trace, grid, key), label in zip("ab", columns, fits, labels):
        with column:
            st.markdown(f"**{session.md_escape(label)}**")
            session.chart(figures.probability_map(
                trace, m, grid, feature_names=ctx.feature_names, classes=ctx.classes,
                uirevision=key), s, f"compare_{side}")
    session.chart(math_figures.compare_curves(fits[0][0], fits[1][0], m, labels=labels,
                                              uirevision=ctx.key), s, "compare_curves")


session.run_page(body, ctx)
