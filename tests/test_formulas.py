"""The formula text evaluates to the value the fit uses, at the printed precision (issue
29, "Formula tests"), on the Tree and Leaf maths pages at rounds 1 and 10: two classes
with Newton, mean, exact and line-search leaves, second-order trees on log-loss, the
exponential loss, 3 to 10 classes, regression and histogram trees.

The leaf's derivation ("γ = Σr / Σh = 49 / 24.5 = 2") is read as a page shows it; its
numbers are evaluated here (× and − read as * and -), and compared with the value the
fit recorded (the trace's leaf, or the chart's ringed marker of the value used).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from apptest_helpers import assert_clean, charts, open_page, page_text
from explorer import fit
from explorer.data import make_toy
from explorer.numbers import leaves, summaries
from explorer.text import number

SAFE = re.compile(r"^[0-9.e+\-*/() ]+$")


def evaluate(expression: str) -> float:
    """A printed sum's value: × · and − as * and -, nothing but arithmetic."""
    text = expression
    while r"\frac{" in text:  # \frac{a}{b}: (a)/(b), innermost first
        text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"((\1)/(\2))", text)
    text = (text.replace("×", "*").replace("·", "*").replace("−", "-")
            .replace(r"\times", "*").replace(r"\cdot", "*"))
    assert SAFE.match(text), expression
    return float(eval(text, {"__builtins__": {}}, {}))  # arithmetic only (checked above)


def printed_tolerance(expression: str, value: float) -> float:
    """How far the expression's value may be from the value it stands for, given that
    each of its numbers is printed to 6 significant digits: half a unit of the 6th digit,
    relative, for each number, plus the result's own rounding."""
    operands = len(re.findall(r"\d+\.?\d*(?:e[+-]?\d+)?", expression))
    return (operands + 1) * 5e-6 * max(abs(value), 1e-300) + 1e-12


def check_derivation(text: str, value: float) -> None:
    """``text`` = "symbol = formula = numbers = result": the numbers evaluate to the
    result at its precision, and the result is the value printed to 6 digits."""
    parts = [p.strip() for p in text.split(" = ")]
    result = parts[-1]
    assert result == number(value).replace("-", "−"), (text, value)
    if len(parts) >= 4:  # a closed form: its numbers
        numbers = parts[-2]
        got = evaluate(numbers)
        assert math.isclose(got, value, rel_tol=0, abs_tol=printed_tolerance(numbers, value)), (
            text, got, value)


def _fits():
    moons = make_toy("moons", n=200, noise=0.3, seed=1)
    sine = make_toy("sine", n=150, noise=0.2, seed=1)
    iris = make_toy("iris", n=150, noise=0.2, seed=0)
    rng = np.random.RandomState(4)
    X10 = rng.randn(600, 2)
    y10 = (np.digitize(X10[:, 0], np.linspace(-1.6, 1.6, 9)) + (X10[:, 1] > 1.5)) % 10
    return {
        "newton": (moons, {}), "mean": (moons, dict(leaf="mean")),
        "exact": (moons, dict(leaf="exact")), "line_search": (moons, dict(leaf="line_search")),
        "second_order": (moons, dict(split="hessian")),
        "exponential": (moons, dict(loss="exponential")),
        "iris": (iris, {}), "iris_second_order": (iris, dict(split="hessian")),
        "ten_classes": ((X10, y10), {}),
        "regression": (sine, dict(loss="squared_error")),
        "regression_line_search": (sine, dict(loss="squared_error", leaf="line_search")),
        "histogram": (moons, dict(split="histogram", reg_lambda=1.0)),
        "histogram_iris": (iris, dict(split="histogram")),
        "histogram_regression": (sine, dict(loss="squared_error", split="histogram",
                                            reg_lambda=0.5)),
    }


FITS = _fits()


@pytest.mark.parametrize("case", list(FITS))
def test_every_leafs_derivation_evaluates_to_the_value_used(warm_engine, case):
    data, options = FITS[case]
    X, y = (data.X, data.y) if hasattr(data, "X") else data
    trace = fit(X, y, n_rounds=10, **options)
    K = trace.n_classes if trace.is_multiclass else 1
    if case == "ten_classes":
        assert K == 10
    for m in (1, 10):
        for k in range(min(K, 4)):
            tree = trace.tree(m, k)
            for node in np.flatnonzero(tree["left"] < 0):
                value = float(tree["value"][node])
                f = summaries.leaf_formula(trace, m, int(node), k)
                check_derivation(f["derivation"], value)
                if case != "exact" and f["rule"] != "exact":
                    assert f["numbers"] is not None, (case, f)  # a closed form, derived
                story = leaves.leaf_story(trace, m, int(node), k=k)
                assert story["used"] == value
                check_derivation(story["derivation"], value)
                used_0 = leaves.forms(story)["used_0"]
                if used_0:  # the rule from the {0, 1} form's sums, in TeX
                    lhs, *_, result = used_0.split(" = ")
                    expression = used_0.split(" = ")[-2]
                    got = evaluate(expression)
                    assert math.isclose(got, value, rel_tol=0,
                                        abs_tol=printed_tolerance(expression, value))


# --- the pages ---------------------------------------------------------------------------

PAGES = {
    "newton": {}, "mean": dict(leafrule="mean"), "exact": dict(leafrule="exact"),
    "line_search": dict(leafrule="line-search"), "second_order": dict(split="hessian"),
    "exponential": dict(loss="exponential"), "iris": dict(data="iris"),
    "regression": dict(data="sine"), "histogram": dict(split="histogram"),
}
DERIVED = re.compile(r"\*\*The value the fit uses\*\* \(ringed on the chart\): (.+)")


@pytest.mark.parametrize("m", [1, 10])
@pytest.mark.parametrize("case", list(PAGES))
def test_the_leaf_maths_page_derives_the_value_it_rings(warm_engine, case, m):
    at = open_page("pages/leaf_maths.py", round=m, **PAGES[case])
    assert_clean(at)
    (fig,) = charts(at)
    ring = [t for t in fig["data"] if str(t.get("name", "")).startswith("the value the fit uses")]
    assert len(ring) == 1
    used = float(ring[0]["x"][0])
    found = [DERIVED.search(x.value) for x in at.markdown]
    (derivation,) = [f.group(1) for f in found if f]
    check_derivation(derivation.replace("\\", ""), used)
    assert f"**{number(used)}**" in page_text(at)  # the table's "used" column


LATEX_NUMBERS = re.compile(r"\\\\ = (.+)\\end\{gathered\}")


@pytest.mark.parametrize("m", [1, 10])
@pytest.mark.parametrize("case", list(PAGES))
def test_the_tree_pages_leaf_formula_evaluates_to_its_value(warm_engine, case, m):
    at = open_page("pages/tree.py", round=m, **PAGES[case])
    assert_clean(at)
    latex = [x.value.strip("$\n") for x in at.latex]  # st.latex wraps its text in $$
    # ν γ = ν × γ = step: γ as the fit recorded it (printed to 6 digits)
    (step,) = [x for x in latex if x.startswith(r"\nu\,")]
    nu, gamma, product = re.match(r"\\nu\\,\S+ = (\S+) \\times \(?(\S+?)\)? = (\S+)$",
                                  step).groups()
    gamma_value = float(gamma)
    assert math.isclose(float(nu) * gamma_value, float(product), rel_tol=2e-5, abs_tol=1e-12)
    numbers = [LATEX_NUMBERS.search(x) for x in latex]
    numbers = [n.group(1) for n in numbers if n]
    if case == "exact":  # no closed form: the value alone
        assert not numbers and any(x.endswith(" = " + gamma) for x in latex)
        return
    (shown,) = numbers
    expression, result = shown.rsplit(" = ", 1)
    assert result == gamma
    got = evaluate(expression)
    assert math.isclose(got, gamma_value, rel_tol=0,
                        abs_tol=printed_tolerance(expression, gamma_value) * 2)
