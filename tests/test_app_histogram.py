"""AppTest of the Splits page with split=histogram: split finding at a node, best-first
growth with the subtraction trick, and the leaf values, at rounds 1 and 10, for two
classes, iris (three classes) and the sine regression; and the Tree page's leaf text."""

from __future__ import annotations

import re

import pytest

from apptest_helpers import assert_clean, charts, open_page, page_text, round_of
from explorer.numbers.splits import HISTOGRAM_GAIN

SPLITS = "pages/splits.py"
DATA = ["moons", "iris", "sine"]


@pytest.fixture(autouse=True, scope="module")
def _warm(warm_engine):
    """The app runs in this process: compile the K-class kernels once first."""
    from explorer.boosting import warmup_multiclass
    warmup_multiclass()


def _title(fig) -> str:
    return re.sub(r"<br>", " ", fig["layout"]["title"]["text"])


def _number(text: str) -> float:
    return float(text.replace("−", "-"))


@pytest.mark.parametrize("data", DATA)
@pytest.mark.parametrize("m", [1, 10])
def test_the_histogram_views_at_a_node(data, m):
    at = open_page(SPLITS, data=data, split="histogram", rounds=10, round=m)
    assert_clean(at)
    assert round_of(at) == m
    split, growth, leaves = charts(at)
    tree = f"tree ({m}, 0)" if data == "iris" else f"tree {m}"
    assert _title(split).startswith(f"Node 0 of {tree}") and HISTOGRAM_GAIN in _title(split)
    assert "grown best-first" in _title(growth) and f"Leaves of {tree}" in _title(leaves)
    # the chosen boundary: a dashed line in each of the three rows of its feature, at the
    # same place, named as the growth diagram names split #1 (the root)
    lines = [s for s in split["layout"]["shapes"] if s["type"] == "line"]
    assert len(lines) == 3 and len({s["x0"] for s in lines}) == 1
    chosen = [a["text"] for a in split["layout"]["annotations"] if a["text"].startswith("chosen")]
    (root,) = [a["text"] for a in growth["layout"]["annotations"] if "<b>#1</b>" in a["text"]]
    feature, threshold = re.match(r"chosen: (.+) ≤ (\S+)", chosen[0]).groups()
    order = at.dataframe[0].value
    feature2, threshold2 = order["split"][0].split(" ≤ ")
    assert feature == feature2 and math_close(_number(threshold), _number(threshold2), 3)
    if "≤" in root:  # small trees name the split in the diagram too, large ones its rank
        assert root.startswith(f"<b>#1</b> {feature} ≤ ")
    text = page_text(at)
    assert f"{HISTOGRAM_GAIN} = G_L²/(H_L + λ) + G_R²/(H_R + λ) − G²/(H + λ)" in text
    assert "built from its samples" in text and "parent" in text
    # the growth table: one row per split in order, each with its built and subtracted
    # child, and the leaves' table: ν · γ = ν × γ on every row
    leaf_table, best = at.dataframe[1].value, at.dataframe[2].value
    assert list(order["order"]) == [str(i) for i in range(1, len(order) + 1)]
    assert len(leaf_table) == len(order) + 1
    for _, row in leaf_table.iterrows():
        gamma = float(row["γ = −G/(H + λ)"])
        assert math_close(float(row["ν · γ"]), float(row["ν"]) * gamma, 5)
    assert set(best["rule"]) == {"squared error", HISTOGRAM_GAIN}
    assert "None" not in order.to_numpy().astype(str) and "nan" not in text


def math_close(a: float, b: float, digits: int) -> bool:
    """Equal to ``digits`` significant digits (both were printed)."""
    return abs(a - b) <= 10 ** (1 - digits) * max(abs(a), abs(b), 1e-300)


def test_every_node_of_a_tree():
    """A split node shows its split finding with the chosen boundary; a leaf either its
    scan (searched, not split) or that it had no histogram."""
    at = open_page(SPLITS, split="histogram", rounds=10, round=10)
    assert_clean(at)
    labels = at.selectbox(key="splits_node").options
    kinds = set()
    for node, label in enumerate(labels):
        at.selectbox(key="splits_node").set_value(node).run()
        assert_clean(at)
        split = charts(at)[0]
        lines = [s for s in split["layout"].get("shapes", []) if s["type"] == "line"]
        if "(split" in label:
            assert _title(split).startswith(f"Node {node} of tree 10") and len(lines) == 3
            kinds.add("split")
        elif _title(split).startswith(f"Node {node}"):
            assert not lines  # searched, not split
            kinds.add("searched leaf")
        else:
            assert "had no histogram" in split["layout"]["annotations"][0]["text"]
            assert "had no histogram" in page_text(at)
            kinds.add("no histogram")
    assert "split" in kinds and len(kinds) >= 2


def test_the_tree_pages_leaf_states_minus_g_over_h_plus_lambda():
    at = open_page("pages/tree.py", split="histogram", rounds=10, round=1, lam=2.0)
    assert_clean(at)
    text = page_text(at)
    assert r"-\frac{G}{H + \lambda}" in text and "λ = 2" in text
    assert "(scikit-learn's HistGradientBoosting) leaf" in text and "1e-15" in text


def test_the_histogram_budget_fits_more_points_and_says_so():
    from apptest_helpers import new_app
    from explorer.dataset import MAX_POINT_ROUNDS, point_rounds

    histogram = point_rounds("histogram")  # the budgets themselves: test_dataset.py
    n, rounds = 5000, 500  # over the exact budget, within the histogram one
    assert MAX_POINT_ROUNDS < n * rounds <= histogram
    at = new_app(n=n, rounds=rounds, split="histogram").run()
    assert_clean(at)
    note = " ".join(c.value for c in at.caption).replace("\\", "")
    assert "Using" not in note and f"{round(n * 0.8)} training points" in note
    n = 10000
    at = new_app(n=n, rounds=rounds, split="histogram").run()
    assert_clean(at)
    note = " ".join(c.value for c in at.caption).replace("\\", "")
    used = histogram // rounds
    assert f"Using {used:,} points, not {n:,}" in note and f"{histogram:,} point-rounds" in note


def test_the_leaf_maths_step_is_minus_g_over_h_plus_lambda():
    at = open_page("pages/leaf_maths.py", data="iris", split="histogram", rounds=10, round=2,
                   lam=1.0)
    assert_clean(at)
    text = page_text(at)
    assert "Newton γ₁ = −G/(H + λ)" in text and "4/3" not in text


def test_four_points_make_a_root_alone_and_the_views_say_so():
    """Four points and min_samples_leaf 20: the root is a leaf, searched for nothing."""
    from apptest_helpers import new_app, upload
    at = upload(new_app(split="histogram", round=1).run(),
                b"x1,x2,label\n0,0,0\n1,0,1\n0,1,1\n1,1,0\n", "xor.csv")
    at.switch_page(SPLITS)
    at.run()
    assert_clean(at)
    split, growth, leaves = charts(at)
    assert "no split, 1 leaf," in _title(growth)
    assert not [s for s in split["layout"].get("shapes", []) if s["type"] == "line"]
    text = page_text(at)
    assert "No boundary is allowed here" in text and "Node 0 was not split" in text
