"""Tree page: tree m on the plane, the selected leaf's Newton step, and the tree as a diagram."""

import streamlit as st

from explorer import app
from explorer.figures.pages import TITLES
from explorer.text import XGB_SYMBOLS, no_tree
from explorer.numbers import splits, summaries

ctx = app.page(TITLES["tree"])


def body(ctx):
    s = app.round_bar(ctx)
    app.lesson(ctx, s, "tree")
    m = s.round
    tr = ctx.trace
    if m == 0:
        st.info(no_tree("tree 1"),
                icon=":material/info:")
        app.f0_block(ctx)
        app.lesson_file(ctx, s, "tree")
        return
    left, right = st.columns([3, 2], gap="medium")
    k = app.class_picker(ctx, s, right)  # with K >= 3 classes: tree (m, k)
    leaf, followed = summaries.resolve_leaf(tr, m, s.leaf, s.sample, k)
    # the charts take the selection (s.leaf, s.sample) and find the leaf of each round
    charts = app.charts(ctx, s, "tree")
    with left:
        app.chart(app.follow(ctx, s, charts.chart("regions")), s, "regions",
                  key="chart_regions", on_select=app.select_leaf_from, live=True)
    with right:
        app.leaf_picker(ctx, m, leaf, followed, k)
        app.leaf_block(ctx, m, leaf, followed, s.sample, k)
    app.chart(app.follow(ctx, s, charts.chart("update")), s, "update", live=True)
    app.chart(app.follow(ctx, s, charts.chart("tree")), s, "tree", key="chart_diagram",
              on_select=app.select_leaf_from, live=True)
    st.caption(f"On each node, {splits.improvement_name(tr)} (Splits page)."
               + (" " + XGB_SYMBOLS if tr.second_order else ""))
    name = f"tree ({m}, {k})" if tr.is_multiclass else f"tree {m}"
    with st.expander(f"Every node of {name} as a table"):
        st.dataframe(summaries.node_table(tr, m, ctx.feature_names, k), hide_index=True,
                     width="stretch")
    app.lesson_file(ctx, s, "tree")


app.run_page(body, ctx)
