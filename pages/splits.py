"""Splits page: at a node of tree m, the gain of every threshold of every feature under both
split rules (squared error of the residuals; the second-order gain), the chosen split marked.
Histogram trees: split finding over the bins, the subtraction trick, best-first growth and
the leaf values (explorer.numbers.histograms, explorer.figures.histograms)."""

import streamlit as st

from explorer import app, figures, losses
from explorer.figures import histograms as hist_figures
from explorer.text import no_tree, number, table
from explorer.numbers import histograms, splits

ctx = app.page("Splits: every candidate threshold at a node, under both rules")


def node_picker(tree) -> int:
    ss = st.session_state
    nodes = list(range(len(tree)))
    if ss.get("splits_node") not in nodes:
        ss["splits_node"] = 0

    def label(k):
        kind = "leaf" if tree["left"][k] < 0 else "split"
        return f"node {k} ({kind}, depth {int(tree['depth'][k])}, n = {int(tree['n'][k])})"
    st.selectbox("Node of tree m", nodes, key="splits_node", format_func=label,
                 on_change=app.mark_acted)
    return int(ss["splits_node"])


def histogram_views(ctx, s, m, k, tree, node):
    """The lessons of histogram trees at node ``node`` of tree (m, k)."""
    tr, names, gain = ctx.trace, ctx.feature_names, splits.HISTOGRAM_GAIN
    name = f"tree ({m}, {k})" if tr.is_multiclass else f"tree {m}"
    found = histograms.split_finding(tr, m, node, k)
    st.markdown("##### Split finding at the node")
    app.chart(app.figure(hist_figures.split_finding, found, m, node, feature_names=names,
                         gain_name=gain, tree_name=name, uirevision=ctx.key),
              s, "histogram_split", key="chart_histogram_split", live=True)
    for line in histograms.split_text(found, [app.md_escape(n) for n in names], gain):
        st.caption(line)
    st.caption(f"The Tree page's improvement: {splits.improvement_name(tr)}.")
    children, leaves = histograms.subtraction(tr, m, k), histograms.leaf_values(tr, m, k)
    st.markdown("##### Best-first growth and the subtraction trick")
    app.chart(app.figure(hist_figures.growth, tree, histograms.growth(tr, m, k), children,
                         leaves, m, feature_names=names, tree_name=name, uirevision=ctx.key),
              s, "histogram_growth", key="chart_histogram_growth", live=True)
    st.caption(histograms.subtraction_text(children, node))
    st.dataframe(table(histograms.growth_rows(tr, m, k, names)), hide_index=True,
                 width="stretch")
    st.markdown("##### Leaf values")
    app.chart(app.figure(hist_figures.leaf_values, leaves, m, tree_name=name,
                         uirevision=ctx.key), s, "histogram_leaves", key="chart_histogram_leaves",
              live=True)
    st.dataframe(table(histograms.leaf_rows(leaves)), hide_index=True, width="stretch")


def body(ctx):
    s = app.round_bar(ctx)
    app.lesson(ctx, s, "splits")
    m = s.round
    tr = ctx.trace
    if m == 0:
        st.info(no_tree("the splits of tree 1"),
                icon=":material/info:")
        return
    k = app.class_picker(ctx, s)  # with K >= 3 classes: a node of tree (m, k)
    tree = tr.tree(m, k)
    node = node_picker(tree)
    scans = splits.scan(tr, m, node, k=k)
    if tr.histogram:
        histogram_views(ctx, s, m, k, tree, node)
        st.markdown("##### Each feature's best boundary at the node, under both rules")
        st.dataframe(table(splits.best_rows(scans, ctx.feature_names, splits.rules(tr))),
                     hide_index=True, width="stretch")
        return
    app.chart(app.figure(figures.split_scan, scans, m, node,
                                 feature_names=ctx.feature_names, uirevision=ctx.key),
                  s, "splits", key="chart_splits", live=True)
    rule = "second-order gain" if s.is_hessian else "squared-error reduction"
    weights = ("their hessian p(1 − p), so the two rules can prefer different thresholds"
               if losses.of(tr).is_classifier else "their hessian, which is 1 for squared error: the "
               "two rules differ only by λ, which shrinks the gain of small children")
    st.caption(f"This fit chooses splits by the {rule}. Squared error weighs every sample "
               "alike; the second-order gain ½[G_L²/(H_L + λ) + G_R²/(H_R + λ) − "
               f"G²/(H + λ)] − γ weighs them by {weights}. λ = {s.lam:g}, γ = {s.gamma:g} "
               "here (the second-order curve uses the fit's λ and γ, or 1 and 0).")
    if tree["left"][node] >= 0:  # the Tree page's number for this split, and how they relate
        improvement = float(tree["improvement"][node])
        st.caption(f"The Tree page shows this node's improvement, {number(improvement)}: "
                   f"{splits.improvement_name(tr)}. For this split that is "
                   f"{number(splits.as_gain(tr, m, node, k))} on this page's "
                   f"{'second-order gain' if s.is_hessian else 'squared-error reduction'} "
                   "curve.")
    # no split chosen, or no candidate: a dash, not None
    st.dataframe(table(splits.best_rows(scans, ctx.feature_names)), hide_index=True,
                 width="stretch")


app.run_page(body, ctx)
