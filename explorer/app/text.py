"""Blocks of text and numbers on the pages: metrics, f0, a leaf's value, a sample's
update and ledger. Layout only: the numbers come from :mod:`explorer.numbers`, and the
formulas from the loss that was fitted (:func:`explorer.losses.of`).
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from .. import losses
from ..numbers import summaries
from ..best_round import best_round
from ..text import bracketed, number as fmt, plus
from .context import md_escape

_SUBSCRIPTS = str.maketrans("0123456789+-−()km", "₀₁₂₃₄₅₆₇₈₉₊₋₋₍₎ₖₘ")


def sub(text) -> str:
    """``text`` in Unicode subscripts (digits, signs, brackets, k and m; a comma stays),
    for captions: the charts write F<sub>3,k</sub>, a caption F₃,ₖ (plain underscores
    would show as they are, or turn the text between two of them italic)."""
    return str(text).translate(_SUBSCRIPTS)


def metrics_row(ctx, m: int) -> None:
    """Loss and accuracy at round m, with the change from round m - 1; then the best
    round, beside them (:func:`explorer.best_round.best_round`)."""
    now = summaries.round_metrics(ctx.trace, m)
    before = summaries.round_metrics(ctx.trace, max(m - 1, 0))
    items = [("Train loss", "train_loss", "inverse", "{:.4f}"),
             ("Validation loss", "valid_loss", "inverse", "{:.4f}"),
             ("Train accuracy", "train_accuracy", "normal", "{:.1%}"),
             ("Validation accuracy", "valid_accuracy", "normal", "{:.1%}")]
    if not losses.of(ctx.trace).is_classifier:  # a regression has a loss, no accuracy
        items = items[:2]
    cols = st.columns(len(items) + 1)
    _best_tile(cols[-1], ctx.trace, m)
    for col, (label, key, color, form) in zip(cols, items):
        if now[key] is None:
            col.metric(label, "–", help="No validation set (validation share 0).")
            continue
        delta = None if m == 0 else now[key] - before[key]
        shown = None
        if delta is not None:
            # accuracies are shares: their change is in percentage points
            shown = f"{delta:+.4f}" if "loss" in key else f"{100 * delta:+.1f} pp"
        col.metric(label, form.format(now[key]), shown, delta_color=color)


def _best_tile(col, trace, m: int) -> None:
    """The round of the lowest validation loss, and that loss, beside round m's."""
    best = best_round(trace)
    if best is None:
        col.metric("Best round", "–", help="No validation set (validation share 0): no "
                                           "validation loss, so no best round.")
        return
    here = "at it" if m == best.round else f"at round {m}"
    col.metric("Best round", str(best.round), f"validation loss {best.valid:.4f}",
               delta_color="off", delta_arrow="off",
               help=f"The round of the lowest validation loss (the first on ties, as early "
                    f"stopping keeps it): {best.sentence(trace.n_rounds)} You are "
                    f"{here}; the Curves page marks it.")


def f0_block(ctx) -> None:
    """View 6: f0 with its numbers, as the loss writes it (for the log-losses also from the
    +-1 labels; a regression's: the mean target)."""
    f = summaries.f0_summary(ctx.trace)
    loss = losses.of(ctx.trace)
    for line in loss.f0_tex(f):
        st.latex(line)
    if loss.multiclass:
        counts = ", ".join(f"{c} of class {md_escape(name)}"
                           for c, name in zip(f["counts"], ctx.classes))
        st.caption(f"{f['n']} training points: {counts}. The engine's f₀ = "
                   f"({', '.join(fmt(v, 12) for v in f['f0'])}). {loss.f0_note(f)}")
        return
    engine = f"The engine's f₀ = {fmt(f['f0'], 12)}"
    if not loss.is_classifier:
        st.caption(f"{loss.f0_note(f)} {engine}.")
        return
    names = ctx.classes
    gap = abs(f["from_counts"] - f["from_pm"])
    st.caption(f"N₊ = {f['n_pos']} training points of class {md_escape(names[1])}, "
               f"N₋ = {f['n_neg']} of class {md_escape(names[0])}. {engine}; the two forms "
               f"differ by {gap:.1e}. {loss.f0_note(f)}")


def _tex_numbers(f: dict, trace) -> str:
    """A leaf rule's numbers (summaries.leaf_formula) in TeX, as fractions: narrower than
    a line of slashes in the page's narrow column."""
    sr = fmt(f["sum_r"])
    if f["rule"] in ("second_order", "histogram"):
        return r"\frac{" + sr + "}{" + fmt(f["sum_h"]) + " + " + fmt(f["lam"]) + "}"
    if f["rule"] == "line_search":
        return fmt(f["rho"]) + r" \cdot \frac{" + sr + "}{" + str(f["n"]) + "}"
    if f["denominator"] == float(f["n"]) and f["rule"] != "newton" or not trace.is_classifier:
        return r"\frac{" + sr + "}{" + str(f["n"]) + "}"  # the mean residual
    factor = ""
    if f["factor"] != 1.0:  # (K - 1)/K with K >= 3 classes
        K = trace.n_classes
        factor = r"\frac{" + str(K - 1) + "}{" + str(K) + r"}\cdot"
    return factor + r"\frac{" + sr + "}{" + fmt(f["sum_h"]) + "}"


def _two_lines(formula: str, numbers: str) -> str:
    """A formula, and "= its numbers" on a line of its own (the blocks sit in a narrow
    column)."""
    return r"\begin{gathered}" + formula + r"\\ = " + numbers + r"\end{gathered}"


def leaf_block(ctx, m: int, leaf: int, followed: bool, sample: int, k: int = 0) -> None:
    """View 3 (text): how the selected leaf's value is made, with its numbers, times nu
    (of tree (m, k) with K >= 3 classes)."""
    tr = ctx.trace
    loss = losses.of(tr)
    L = summaries.leaf_summary(tr, m, leaf, k)
    f = summaries.leaf_formula(tr, m, leaf, k)
    who = f"the leaf of sample #{sample}" if followed else "the chosen leaf"
    tree = f"tree ({m}, {k}), of class {md_escape(ctx.classes[k])}" if loss.multiclass else \
        f"tree {m}"
    st.markdown(f"**Leaf {leaf} of {tree}** ({who}): {L['n']} training points fitted it.")
    R = r"i \in R_{" + str(leaf) + "}"
    F = r"F_{" + str(m - 1) + "}(x_i)"
    sym = r"w" if f["symbol"] == "w" else r"\gamma"
    if f["numbers"] is None:
        # a rule without a closed form here (the exact minimiser), or a floored hessian
        st.latex(sym + " = " + fmt(f["value"]))
        st.caption(f"Leaf rule: {f['formula']}. For comparison, the Newton "
                   f"step Σr / Σh would be {fmt(f['sum_r'])} / {fmt(f['sum_h'])} = "
                   f"{fmt(f['sum_r'] / f['sum_h'] if f['sum_h'] else 0.0)}.")
    else:
        numbers = _tex_numbers(f, tr) + " = " + fmt(f["value"])
        s_r, s_h = r"\sum_{" + R + r"} r_i", r"\sum_{" + R + r"} h_i"
        if f["rule"] in ("second_order", "histogram"):
            st.latex(_two_lines(sym + r" = -\frac{G}{H + \lambda} = \frac{" + s_r + "}{" + s_h
                                + r" + \lambda}", numbers))
            who = ("Second-order (xgboost) leaf weight w" if f["rule"] == "second_order"
                   else "Histogram-tree (scikit-learn's HistGradientBoosting) leaf")
            counts = ("" if loss.is_classifier or f["rule"] != "histogram"
                      else " (a regression: H counts the points)")
            guard = "; scikit-learn adds 1e-15 to H + λ" if f["rule"] == "histogram" else ""
            st.caption(f"{who}: G = −Σr = {fmt(-f['sum_r'])}, "
                       f"H = Σh = {fmt(f['sum_h'])}{counts}, λ = {fmt(f['lam'])}{guard}.")
        elif f["rule"] == "line_search":
            st.latex(_two_lines(r"\gamma = \rho_{" + str(m) + r"}\cdot\frac{1}{n}" + s_r,
                                numbers))
            st.caption(f"Leaf rule: line search. The leaf's mean residual Σr / n, times "
                       f"the tree's one step ρ{sub(m)} = {fmt(f['rho'])}, the step that "
                       "minimises the loss over all the training points along the tree.")
        elif f["rule"] == "mean" and loss.is_classifier:
            st.latex(_two_lines(r"\gamma = \frac{1}{n}" + s_r, numbers))
            st.caption("Leaf rule: mean residual (a plain gradient step, no Newton step).")
        else:
            st.latex(_two_lines(loss.leaf_tex(R, F), numbers))
            st.caption(loss.leaf_note(m))
    st.latex(r"\nu\," + sym + " = " + fmt(L["nu"]) + r" \times " + bracketed(L["gamma"]) + " = "
             + fmt(L["step"]))
    st.caption(f"Every point of the leaf moves by ν·{f['symbol']}: "
               f"F{sub(m)}(x) = F{sub(m - 1)}(x) {plus(L['step'])}.")
    if L["floored"]:
        st.warning("The hessian sum of this leaf is below the floor (1e-150 per point): "
                   "the engine takes no step (γ = 0), as scikit-learn does.",
                   icon=":material/warning:")
    members = L["members"]
    # the table is sent only while it is open: with hundreds of points it was most of a
    # step's rerun at rest (28 kB of 26 kB sent at n = 2,500). One label at every round and
    # leaf, so that it stays open as you step (a new label is a new, closed expander).
    points = st.expander("The leaf's points and their sums", key="leaf_points",
                         on_change="rerun") if len(members) else None
    if points is not None and points.open:
        with points:
            r = tr.residual(m - 1)[members]
            h = tr.hessian(m - 1)[members]
            before = (tr.proba(m - 1) if loss.is_classifier else tr.raw[m - 1])[members]
            if loss.multiclass:  # class k's column: what tree (m, k) was fitted to
                r, h, before = r[:, k], h[:, k], before[:, k]
            rows = {"sample": members, "y": tr.y[members],
                    f"{'p' if loss.is_classifier else 'F'} at round {m - 1}": before,
                    "r": r, "h": h}
            st.dataframe(rows, hide_index=True, width="stretch", height=240)
            st.caption(f"The {len(members)} points of leaf {leaf}: Σ r = {fmt(r.sum())}, "
                       f"Σ h = {fmt(h.sum())}, the numbers above.")


def sample_block(ctx, i: int, m: int, ledger: dict) -> None:
    """Sample i at round m: its label and the update F_m = F_(m-1) + nu gamma."""
    tr = ctx.trace
    loss = losses.of(tr)
    where = ", ".join(f"{md_escape(name)} = {fmt(v, 4)}"
                      for name, v in zip(ctx.feature_names, ledger["x"]))
    if loss.multiclass:
        _class_sample_block(ctx, i, m, ledger, where)
        return
    if loss.is_classifier:
        y = int(ledger["y"])
        st.caption(f"Sample #{i}: {where}, label y = {y} (class {md_escape(ctx.classes[y])})")
    else:
        st.caption(f"Sample #{i}: {where}, target {md_escape(ctx.target_name)} = "
                   f"{fmt(ledger['y'])}")
    if loss.is_classifier:
        after = r"p_{" + str(m) + "} = " + loss.p_tex(m) + " = " + fmt(ledger["p"][m])
    else:  # a regression's F is the prediction itself: what is left is the residual
        after = r"y - F_{" + str(m) + "} = " + fmt(ledger["y"] - ledger["F"][m])
    if m == 0:
        st.latex(r"F_0 = f_0 = " + fmt(ledger["F"][0]) + r",\qquad " + after)
        return
    leaf = int(ledger["leaf"][m])
    bag = ""
    if ledger["in_bag"] is not None:
        bag = (r"\ \text{(in the subsample)}" if ledger["in_bag"][m]
               else r"\ \text{(not in the subsample)}")
    # short lines, one below the other: the block sits in a narrow column
    st.latex(r"\begin{aligned}&\text{tree " + str(m) + ": leaf " + str(leaf) + "}" + bag
             + r"\\ &r_{" + str(m - 1) + "} = " + fmt(ledger["residual"][m])
             + r",\quad \gamma = " + fmt(ledger["gamma"][m])
             + r"\\ &F_{" + str(m) + r"} = F_{" + str(m - 1) + r"} + \nu\gamma"
             + r"\\ &\phantom{F_{" + str(m) + r"}} = " + fmt(ledger["F"][m - 1]) + " + "
             + fmt(tr.learning_rate) + r" \times " + bracketed(ledger["gamma"][m])
             + r"\\ &\phantom{F_{" + str(m) + r"}} = " + fmt(ledger["F"][m])
             + r"\\ &" + after + r"\end{aligned}")


def _class_sample_block(ctx, i: int, m: int, ledger: dict, where: str) -> None:
    """sample_block with K >= 3 classes: the sample in each of round m's K trees."""
    names = ctx.classes
    y = int(ledger["y"])
    st.caption(f"Sample #{i}: {where}, label y = {y} (class {md_escape(names[y])})")
    p = ", ".join(fmt(v, 4) for v in ledger["p"][m])
    if m > 0:
        # short headers (each told in full in its help and the caption) and three decimals
        # (the ledger below has every digit): the table fits a half-width column at 1280 px;
        # p is written out under it
        before, now = f"F{sub(m - 1)}", f"F{sub(m)}"
        number = st.column_config.NumberColumn
        st.dataframe({
            "class k": list(names),
            "leaf": ledger["leaf"][m],
            "r": ledger["residual"][m],
            "γ": ledger["gamma"][m],
            before: ledger["F"][m - 1],
            now: ledger["F"][m],
        }, hide_index=True, width="stretch", column_config={
            "class k": st.column_config.TextColumn(width=86),
            "leaf": number(help=f"The sample's leaf in tree ({m}, k).", width=44),
            "r": number(help=f"The residual y_k − p_k that tree ({m}, k) fitted.",
                        format="%.3f", width=58),
            "γ": number(help="The value of that leaf.", format="%.3f", width=58),
            before: number(help=f"F_{m - 1},k: class k's score before round {m}.",
                           format="%.3f", width=58),
            now: number(help=f"F_{m},k = F_{m - 1},k + ν·γ: class k's score after round {m}.",
                        format="%.3f", width=58),
        })
        st.caption(f"Each row is class k's tree ({m}, k): the sample's leaf in it, the "
                   f"residual r = yₖ − pₖ it fitted, the leaf's value γ, and "
                   f"{now},ₖ = {before},ₖ + ν·γ; p{sub(m)} = softmax({now}).")
    st.latex(r"p_{" + str(m) + r"} = \operatorname{softmax}(F_{" + str(m) + r"})")
    st.latex(r"= (" + p + ")")


def ledger_table(ctx, ledger: dict, m: int) -> None:
    """View 8: the sample's F, p, residual, leaf and update at every round (with K >= 3
    classes: its leaf, F and p in each class's tree)."""
    if ctx.trace.is_multiclass:
        rows = {"round m": ledger["round"], "now": np.where(ledger["round"] == m, "◀", "")}
        for k, name in enumerate(ctx.classes):
            rows[f"leaf ({name})"] = ledger["leaf"][:, k]
            rows[f"F ({name})"] = ledger["F"][:, k]
            rows[f"p ({name})"] = ledger["p"][:, k]
        st.dataframe(rows, hide_index=True, width="stretch", height=320)
        st.caption("Round 0 has no trees (leaves −1): F₀ = f₀. From round 1, each class's "
                   "Fₖ moves by ν·γ of the sample's leaf in tree (m, k); p = softmax(F).")
        return
    rows = {
        "round m": ledger["round"],
        "now": np.where(ledger["round"] == m, "◀", ""),
        "leaf in tree m": ledger["leaf"],
        "r fitted by tree m": ledger["residual"],
        "leaf value γ": ledger["gamma"],
        "update ν·γ": ledger["update"],
        "F_m": ledger["F"],
    }
    if ledger["p"] is not None:
        rows["p_m"] = ledger["p"]
    if ledger["in_bag"] is not None:
        rows["in subsample"] = ledger["in_bag"]
    st.dataframe(rows, hide_index=True, width="stretch", height=320)
    st.caption("Round 0 has no tree (leaf −1): F₀ = f₀. From round 1, Fₘ = Fₘ₋₁ + ν·γ, "
               "where r is the residual at Fₘ₋₁ and γ the value of the leaf the sample "
               "falls in.")

