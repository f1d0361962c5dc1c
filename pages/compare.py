"""Compare page: two settings side by side on the same data, one round control."""

from dataclasses import replace

import streamlit as st

from explorer import figures
from explorer.app import session
from explorer.state import BY_KEY, COMPARISONS, PAIRS, REGRESSION_PAIRS

ctx = session.page_context("Compare: two settings on the same data, round by round")


def body(ctx):
    # kept in the URL by hand, as the presenter flag: a bound select box lost ?pair= on load
    ss, qp = st.session_state, st.query_params
    # the pairs about classification's losses and trees have no regression twin
    pairs = REGRESSION_PAIRS if ctx.state.is_regression else PAIRS
    if ss.get("pair") not in pairs:
        wanted = BY_KEY["pair"].parse(qp.get("pair"))
        ss["pair"] = wanted if wanted in pairs else pairs[0]
    st.selectbox("Comparison", pairs, key="pair",
                 format_func=lambda key: COMPARISONS[key][0], on_change=session.mark_acted,
                 help="Each side is your setting from the sidebar, changed as the pair says.")
    if ss["pair"] == BY_KEY["pair"].default:
        qp.pop("pair", None)
    else:
        qp["pair"] = ss["pair"]
    m = session.round_bar(ctx)
    # the pair as just drawn: the context was read before this page's first select box
    s = replace(session.view_state(ctx, m), pair=st.session_state["pair"])
    *sides, flip = s.compared()
    labels = [name for name, _ in sides]
    fits = []
    for name, side in sides:
        try:
            fits.append(session.variant(ctx, side, flip))
        except ValueError as error:
            st.error(f"{session.md_escape(name)}: this setting cannot be fitted: "
                     f"{session.md_escape(str(error))}", icon=":material/error:")
            return
    if ctx.state.is_regression and s.pair == "leafrule":
        st.caption("With squared error every hessian is 1: the Newton step Σr / Σh is the "
                   "mean residual, so the two sides are the same fit.")
    if flip:
        st.caption(f"{flip:.0%} of the training labels are flipped on both sides: the points "
                   "the exponential loss weighs by e^(−yF) pull its boundary much harder.")
    columns = st.columns(2, gap="small")
    for side, column, (trace, grid, key), label in zip("ab", columns, fits, labels):
        with column:
            st.markdown(f"**{session.md_escape(label)}**")
            session.chart(session.figure(figures.model_view, trace, m, grid,
                                         uirevision=key, **ctx.names),
                          s, f"compare_{side}", live=True)
    session.chart(session.figure(figures.compare_curves, fits[0][0], fits[1][0], m,
                                 labels=labels, uirevision=ctx.key),
                  s, "compare_curves", live=True)


session.run_page(body, ctx)
