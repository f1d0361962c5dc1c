"""Numbers as the pages print them: finite, short, safe inside LaTeX."""

import math

import numpy as np


def number(x: float, digits: int = 6) -> str:
    """``x`` in ``digits`` significant digits, never 'nan' or 'inf': NaN shows as 0 and
    inf as +-1e300; 0 and -0 both show as 0. The one formatter of the pages and the
    charts."""
    x = float(x)  # first: a float32's inf would stay inf (1e300 overflows it)
    if not math.isfinite(x):
        x = 0.0 if math.isnan(x) else math.copysign(1e300, x)
    if x == 0:
        return "0"
    return f"{x:.{digits}g}"


def signed(x: float, digits: int = 3) -> str:
    """``x`` with its sign, +0.25 or -0.25 (0 has none): a value read as a change."""
    s = number(x, digits)
    return s if s.startswith("-") or s == "0" else "+" + s


NEAR_ZERO = 1e-12  # relative to the sum of the magnitudes of a value's terms


def settled(value: float, scale: float) -> float:
    """``value`` as printed: 0 when it is smaller than 1e-12 times ``scale``, the sum of
    the magnitudes of the terms it was computed from (rounding noise, not data: Σr =
    3.553e-15 at a root whose residuals cancel prints as 0)."""
    value = float(value)
    return 0.0 if abs(value) <= NEAR_ZERO * abs(float(scale)) else value


def bracketed(x: float, digits: int = 6) -> str:
    """``x`` as a factor after another: a negative number in brackets, 0.1 × (−0.963)."""
    s = number(x, digits)
    return f"({s})" if s.startswith("-") else s


def plus(x: float, digits: int = 6) -> str:
    """``+ x`` as a term after another: a negative one as a minus sign, F₀(x) − 0.096."""
    s = number(x, digits)
    return f"− {s[1:]}" if s.startswith("-") else f"+ {s}"


NONE = "—"  # a table's cell with nothing in it


def cell(x) -> str:
    """A table cell as the pages print it: a number in 6 significant digits, text as it
    is, and a dash for nothing (never Python's ``None``)."""
    if x is None:
        return NONE
    if isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool):
        return number(x)
    return str(x)


def table(rows: list[dict]) -> list[dict]:
    """Rows of a table (dicts of column -> value) with every cell as :func:`cell` prints it."""
    return [{key: cell(value) for key, value in row.items()} for row in rows]


NO_TREE = "Round 0 has no tree: F₀(x) = f₀ everywhere."


def no_tree(what: str = "") -> str:
    """Round 0's message, where a view needs a tree: what to do to see ``what``."""
    return f"{NO_TREE} Step to round 1{' to see ' + what if what else ''}."


# Second-order trees write xgboost's symbols, said once where they are shown
XGB_SYMBOLS = ("The symbols are those of xgboost's documentation: w is a leaf's weight "
               "(its value), γ (gamma) the minimum loss reduction a split must make, and λ "
               "(lambda) the L2 penalty on the weights.")


def leaf_symbol(trace) -> str:
    """The letter of a leaf's value: w for second-order (xgboost) trees, whose γ is the
    minimum split loss; γ otherwise."""
    params = getattr(trace, "params", {}) or {}
    return "w" if params.get("split") == "hessian" else "γ"
