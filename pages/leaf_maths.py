"""Leaf maths page: one leaf's loss L_R(γ), its Taylor quadratic, the Newton step and the
exact minimiser; the {0,1} and ±1 forms side by side; slips of common write-ups; and a
check of the fit on screen against the reference implementation.

When no leaf was chosen the page opens on a typical leaf, not on the selected sample's
(which may be pure, the edge case): the largest leaf whose exact minimiser is finite
(classification) or the largest leaf (regression), leaves.typical_leaf. The sample's
own leaf is one click away; the Tree page keeps following the sample."""

import streamlit as st

from explorer import app, figures, losses
from explorer.app import store
from explorer.text import XGB_SYMBOLS, bracketed, no_tree
from explorer.app.text import sub
from explorer.numbers import leaves, summaries
from explorer.numbers.agreement import ReferenceUnavailable, agreement

def leaf_choice(ctx, s, m: int, k: int):
    """The leaf shown, whether it is the typical one, and the picker: the typical leaf
    (no leaf chosen: State's leaf −1), or any leaf of tree m; and a button to the
    selected sample's leaf when that is another one. Returns (leaf, typical)."""
    tr = ctx.trace
    tree = tr.tree(m, k)
    nodes = [int(j) for j in summaries.leaves_of(tr, m, k)]
    chosen = int(s.leaf) in nodes
    typical, finite = leaves.typical_leaf(tr, m, k)
    leaf = int(s.leaf) if chosen else typical
    what = ("the largest leaf with a finite minimiser" if tr.is_classifier and finite
            else "the largest leaf")
    store.seed("_w_leaf", leaf if chosen else -1)

    def changed():
        app.mark_acted()
        app.update(leaf=int(st.session_state["_w_leaf"]))
    st.selectbox("Leaf of tree m", [-1] + nodes, key="_w_leaf", on_change=changed,
                 format_func=lambda j: (f"{what} (leaf {typical})" if j < 0 else
                                        f"leaf {j} (n = {int(tree['n'][j])})"))
    own = summaries.resolve_leaf(tr, m, -1, s.sample, k)[0]
    if own != leaf:
        pure = leaves_pure(tr, m, own, k)

        def to_sample():
            app.mark_acted()
            app.update(leaf=own)
        st.button(f"Sample #{s.sample}'s leaf: leaf {own}" + (" (pure)" if pure else ""),
                  key="leaf_of_sample", icon=":material/my_location:", on_click=to_sample,
                  help="The leaf of the selected sample, which the Tree page follows.")
    if not chosen:
        st.caption(f"No leaf chosen: this is {what} of tree m, leaf {typical}"
                   + ("" if finite or not tr.is_classifier else
                      " (every leaf of this tree is pure or stopped short of a minimiser)")
                   + ". Choose another above.")
    return leaf, not chosen


def leaves_pure(trace, m, node, k) -> bool:
    return bool(leaves.leaf_story(trace, m, node, n_points=3, k=k)["pure"])


ctx = app.page("Leaf maths: the leaf's own loss, one Newton step and the exact "
               "minimiser")

fmt = app.fmt

SLIPS = [
    ("F₀ = p / (1 − p)", "That is the odds; the initial log-odds is F₀ = log(p / (1 − p))."),
    ("Σ yᵢ + p = 0", "The stationarity condition is Σ (p − yᵢ) = 0, giving p = mean(y)."),
    ("p = log(1 − e^lo / (1 − e^lo))", "The probability is p = e^lo / (1 + e^lo) = σ(lo)."),
    ("G′(0) = |rᵢ|(1 − |rᵢ|)", "It is the sum over the leaf: G′(0) = Σᵢ |rᵢ|(1 − |rᵢ|)."),
    ("w* = −Σg / (Σh +)", "The regularised optimum is w* = −G / (H + λ)."),
    ("the maximum number of leaves is set between 8 and 32",
     "A rule of thumb, not a law: try it with Max leaves in the sidebar (best-first trees)."),
]


def forms(story, trace):
    """The {0,1} and ±1 forms of the Newton step, side by side (log-loss only)."""
    f = leaves.forms(story)
    left, right = st.columns(2, gap="medium")
    with left:
        st.markdown("**Labels y ∈ {0, 1}** (log-odds form)")
        st.latex(r"a = \sum_{i \in R} (y_i - p_i) = " + fmt(f["sum_r"]))
        st.latex(r"b = \sum_{i \in R} p_i (1 - p_i) = " + fmt(f["sum_h"]))
        st.latex(r"\gamma_1 = a / b = " + fmt(f["ratio"]))
        if f["used_0"]:
            st.latex(f["used_0"])
    with right:
        st.markdown("**Labels y ∈ {−1, +1}**")
        if f["beta"] is not None:
            st.latex(r"\sum_{i \in R} \frac{y_i}{1 + e^{y_i F_i}} = " + fmt(f["sum_r_pm"]))
            st.latex(r"\sum_{i \in R} |r_i|\,(1 - |r_i|) = " + fmt(f["sum_h_pm"]))
            st.latex(r"\beta = " + fmt(f["beta"]))
            if f["used_pm"]:
                st.latex(f["used_pm"])
            st.caption(f"The two forms differ by {f['gap_r']:.1e} (numerator) and "
                       f"{f['gap_h']:.1e} (denominator): the same model. Friedman's 2001 "
                       "paper writes log(1 + e^(−2yF)), which halves F; the explorer uses "
                       "scikit-learn's convention.")
        else:
            st.caption("The ±1 form is the log-loss's; this fit uses "
                       f"{losses.of(trace).title}.")


def agreement_panel(ctx):
    ss = st.session_state
    st.markdown("##### Check: the same numbers as the reference implementation?")
    # A callback, not the button's return value: it runs once per click even when the
    # run that follows is restarted (the router guard may rerun).
    def check():
        app.mark_acted()
        try:
            ss["_agreement"] = (ctx.key, agreement(ctx.trace))
        except ReferenceUnavailable as error:
            ss["_agreement"] = (ctx.key, str(error))

    st.button("Compare this fit with the reference", key="agree_run", on_click=check,
              icon=":material/fact_check:",
              help="Refits the same data with scikit-learn (or xgboost for second-order "
                   "trees) and reports the largest difference of F at every round.")
    got = ss.get("_agreement")
    if not got or got[0] != ctx.key:
        st.caption("Nothing checked yet for these settings.")
        return
    result = got[1]
    if isinstance(result, str):
        st.info(app.md_escape(f"No reference for these settings: {result}"),
                icon=":material/info:")
        return
    c1, c2, c3 = st.columns(3)
    c1.metric("Largest |ΔF|, training points", f"{result['train']:.2e}")
    c2.metric("Largest |ΔF|, grid over the plane", f"{result['grid']:.2e}")
    c3.metric("Reference fit time", f"{result['seconds']:.2f} s")
    st.caption(f"Reference: {app.md_escape(result['reference'])}, over all "
               f"{result['rounds']} rounds and round 0.")


def pure_note(story, name) -> str:
    """Why a pure leaf has no finite minimiser, and which way its loss keeps falling: for
    the tree of a class (class 1 with two classes), pure means all the leaf's points are
    in that class, or none are."""
    name = app.md_escape(name)
    if story["side"] > 0:
        which, way = f"all {story['n']} of its points are in class {name}", "+∞"
    else:
        which, way = f"none of its {story['n']} points is in class {name}", "−∞"
    if story.get("fit_stop"):  # exact leaves: the value is where the iterations stopped
        tail = ("One Newton step gives a finite value; the exact rule's Newton iterations "
                "run after the minimiser that is not there, and the value used is where "
                "they stopped (below).")
    else:
        tail = ("One Newton step gives a finite value; an exact minimisation would run "
                "away.")
    return (f"This leaf is pure: {which}. Its loss keeps falling as γ → {way}, so there is "
            f"no finite minimiser. {tail}")


def rule_note(story, m) -> str:
    """Why the value used is, or is not, the Newton step or the minimiser."""
    rule = story["rule"]
    if rule == "second_order":
        return ("Second-order (xgboost) trees: λ adds ½λw² to the leaf's loss, so the "
                "weight w = −G / (H + λ) is the minimum of the quadratic plus ½λw² (the "
                "dotted curve), not of the quadratic alone. " + XGB_SYMBOLS)
    if rule == "histogram":
        return ("Histogram trees (scikit-learn's HistGradientBoosting): γ = −G / (H + λ) "
                "with G = −Σr and H = Σh; with λ = 0 it is the Newton step.")
    if rule == "line_search":
        return (f"Line search: each leaf's mean residual Σr / n, times one step ρ{sub(m)} "
                f"= {fmt(story['rho'])} for the whole tree, the step that minimises the "
                "loss over all the training points along the tree's direction.")
    if rule == "mean":
        return "Mean leaves: the mean residual, a plain gradient step (no Newton step)."
    if rule == "exact":
        return ("Exact leaves: Newton's method iterated on the leaf's own loss from the "
                "Newton step, until a step is at most "
                f"{summaries.STEP_TOLERANCE:g} of max(1, |γ|) (the minimiser), or for at "
                f"most {summaries.MAX_STEPS} steps, or until the hessian sum Σh falls below "
                f"its floor {losses.HESSIAN_FLOOR:g}; only the first finds a minimiser.")
    return "Newton leaves: one Newton step on the leaf's own loss."


def body(ctx):
    s = app.round_bar(ctx)
    m = s.round
    tr = ctx.trace
    if m == 0:
        st.info(no_tree("the leaves of tree 1"), icon=":material/info:")
    else:
        left, right = st.columns([3, 2], gap="medium")
        k = app.class_picker(ctx, s, right)  # with K >= 3 classes: a leaf of tree (m, k)
        with right:
            leaf, typical = leaf_choice(ctx, s, m, k)
        story = leaves.leaf_story(tr, m, leaf, k=k)
        with left:
            # the chart finds the leaf of each round itself: the chosen one, else the
            # typical one
            chart = app.following(ctx, s, "leaf_loss", figures.leaf_loss_of,
                                  leaf=-1 if typical else s.leaf, sample=s.sample, k=k,
                                  typical=typical, uirevision=ctx.key)
            app.chart(chart, s, "leaf_loss", key="chart_leaf_loss", live=True)
            if tr.is_multiclass and summaries.leaf_rule(tr) == "newton":  # the factor's rule
                st.caption(losses.of(tr).factor_note + " So γ₁ is not the quadratic's "
                           "minimum Σr / Σh but (K − 1)/K of it.")
        with right:
            tree = f"tree ({m}, {k})" if tr.is_multiclass else f"tree {m}"
            st.markdown(f"**Leaf {leaf} of {tree}**: {story['n']} training points.")
            e_k = r"\,e_k" if tr.is_multiclass else ""  # K classes: the step moves F_k alone
            st.latex(r"L_R(\gamma) = \sum_{i \in R} L(y_i, F_{" + str(m - 1)
                     + r"}(x_i) + \gamma" + e_k + ")")
            # on two lines each: the column is narrow
            st.latex(r"\begin{gathered}L_R(\gamma) \approx L_R(0) \\ - \gamma \sum r_i "
                     r"+ \tfrac12 \gamma^2 \sum h_i\end{gathered}")
            st.latex(r"\begin{gathered}= " + fmt(story["loss_at_0"]) + r" - (" + fmt(story["sum_r"])
                     + r")\,\gamma \\ + \tfrac12\," + fmt(story["sum_h"])
                     + r"\,\gamma^2\end{gathered}")
            # Newton's method iterated finds γ* only when it converges
            exact, gap = (("none", "∞") if story["pure"] else
                          ("not reached", "—") if story["stop_rule"] != summaries.CONVERGED
                          else (fmt(story["exact"]),
                                f"{story['gap']:.2e}" if story["gap"] else "0"))
            sym = story["symbol"]
            # a table, not three metrics: the numbers keep all their digits in a narrow column
            st.markdown(f"| Newton {story['newton_formula']} | exact γ* | gap γ* − γ₁ | "
                        f"used {sym} |\n| ---: | ---: | ---: | ---: |\n"
                        f"| {fmt(story['newton'])} | {exact} | {gap} | "
                        f"**{fmt(story['used'])}** |")
            if story["pure"]:
                st.warning(pure_note(story, ctx.classes[k] if tr.is_multiclass
                                     else ctx.classes[1]), icon=":material/warning:")
            st.markdown("**The value the fit uses** (ringed on the chart): "
                        + app.md_escape(story["derivation"]))
            st.caption(rule_note(story, m) + f" The update is ν × {sym} = "
                       f"{fmt(tr.learning_rate)} × {bracketed(story['used'])} = "
                       f"{fmt(story['update'])}.")
        if losses.of(tr).pm_form:
            st.markdown("##### The same step in both label conventions")
            forms(story, tr)
        elif not losses.of(tr).is_classifier:
            st.info("With squared error every hessian is 1: L_R(γ) is exactly its Taylor "
                    "quadratic, so one Newton step Σr / Σh = Σr / n, the mean residual and "
                    "the exact minimiser are the same number. The leaf rules differ only "
                    "for the classification losses.", icon=":material/info:")
    with st.expander("Slips in common write-ups, and the correct forms"):
        st.table({"written": [w for w, _ in SLIPS], "correct": [c for _, c in SLIPS]})
    agreement_panel(ctx)


app.run_page(body, ctx)
