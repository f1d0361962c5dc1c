"""Compare page: two settings side by side on the same data, one round control."""

import streamlit as st

from explorer import app, figures
from explorer.figures.sweep import colours, sweep_curves
from explorer.data import deepest_row
from explorer.settings import Settings
from explorer.state import COMPARISONS, PAIRS, REGRESSION_PAIRS

# the settings line names what the two fits share, not the sidebar's one fit: written
# here once both are made
ctx = app.page("Compare: two settings on the same data, round by round", caption=False)
header = st.empty()


def shared_caption(ctx, fits, flip) -> str:
    """The two fits' settings line: the data, the settings both sides have and the
    labels flipped on both; each side's title names what differs."""
    also = ("one training label flipped (the point deepest inside its class)"
            if flip == "deepest" else f"{flip:.0%} of the training labels flipped"
            if flip else "")
    a, b = (Settings.of(fit[0].params) for fit in fits)
    return a.shared_caption(b, app.md_escape(ctx.data_label), also)


def body(ctx):
    s = app.state()
    # the pairs about classification's losses and trees have no regression twin
    app.field("pair", s, options=REGRESSION_PAIRS if s.is_regression else PAIRS,
              format_func=lambda key: COMPARISONS[key][0], on_change=app.mark_acted)
    s = app.round_bar(ctx)
    *sides, flip = s.compared()
    labels = [name for name, _ in sides]
    fits = []
    for name, side in sides:
        try:
            fits.append(app.variant(ctx, side, flip))
        except ValueError as error:
            st.error(f"{app.md_escape(name)}: this setting cannot be fitted: "
                     f"{app.md_escape(str(error))}", icon=":material/error:")
            return
    header.caption(shared_caption(ctx, fits, flip))
    app.lesson(ctx, s, "compare", fits[0][0], fits[1][0])
    if s.is_regression and s.pair == "leafrule":
        st.caption("With squared error every hessian is 1: the Newton step Σr / Σh is the "
                   "mean residual, so the two sides are the same fit.")
    marked = {}
    if flip == "deepest":
        i = deepest_row(ctx.train)
        marked = dict(sample=i, ring_label=f"flipped point #{i}")  # ringed on both maps
        st.caption(f"On both sides the training point deepest inside its class (#{i}, "
                   "ringed) has its label flipped: the exponential loss weighs it by "
                   "e^(−ỹF), ỹ = 2y − 1, which grows without bound, and log-loss by "
                   "|y − p| < 1.")
    elif flip:
        st.caption(f"{flip:.0%} of the training labels are flipped on both sides: the "
                   "points the exponential loss weighs by e^(−ỹF) (ỹ = 2y − 1) pull its "
                   "boundary much harder.")
    columns = st.columns(2, gap="small")
    for side, column, fit, label in zip("ab", columns, fits, labels):
        with column:
            st.markdown(f"**{app.md_escape(label)}**")
            app.chart(app.following(fit, s, f"compare_{side}", figures.model_view, fit[1],
                                    uirevision=fit[2], **marked, **ctx.names),
                      s, f"compare_{side}", live=True)
    # N fits' curves are the Sweep page's: here two
    app.chart(app.following(fits[0], s, "compare_curves", sweep_curves,
                            before=(fits[0][0], fits[1][0]), labels=labels,
                            colors=colours(2), log=s.logscale, uirevision=ctx.key),
              s, "compare_curves", live=True)


app.run_page(body, ctx)
