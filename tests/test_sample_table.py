"""The iris Sample page's table of round m shows every column within the page (issue
29, item 10): an st.dataframe is drawn on a canvas (glide-data-grid), so the test reads
its geometry from the page: the width of its columns (the grid's stack) against the
width it has (its scroller), and its box against the window."""

from __future__ import annotations

import pytest

import chart_text as ct

pytestmark = pytest.mark.browser

MEASURE = """() => {
  const frame = document.querySelector('[data-testid=stDataFrame]');
  if (!frame) return null;
  const scroller = frame.querySelector('.dvn-scroller');
  const stack = frame.querySelector('.dvn-stack');
  const box = frame.getBoundingClientRect();
  return { columns: stack.getBoundingClientRect().width, room: scroller.clientWidth,
           scrolls: scroller.scrollWidth > scroller.clientWidth + 1,
           headers: [...frame.querySelectorAll('th')].map((h) => h.textContent),
           right: box.right, window: window.innerWidth };
}"""


def _measured(page, width: int) -> dict:
    """The table's geometry once the window is ``width`` wide and the grid has stopped
    changing (it lays itself out again after a resize)."""
    page.wait_for_function(f"() => window.innerWidth === {width}")
    ct.still(page)
    last, same = None, 0
    for _ in range(60):
        got = page.evaluate(MEASURE)
        same = same + 1 if got == last else 0
        if same >= 3 and got is not None and got["window"] == width:
            return got
        last = got
        page.wait_for_timeout(150)
    return last


def test_the_iris_sample_table_shows_all_its_columns(app_server, browser):
    """Opened once in a laptop's window (1,280 px), then the window widened to 1,600 px:
    every column within the page at both widths."""
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.set_default_timeout(120_000)
    seen = {}
    try:
        page.goto(f"{app_server.url}/sample?data=iris&round=10")
        ct.settle(page, 2)
        page.wait_for_selector("[data-testid=stDataFrame] .dvn-stack", state="attached")
        # the grid writes its header cells into its accessible table after its first paint
        page.wait_for_function("() => document.querySelectorAll("
                               "'[data-testid=stDataFrame] th').length >= 6")
        for width in (1280, 1600):
            page.set_viewport_size({"width": width, "height": 1000})
            seen[width] = _measured(page, width)
    finally:
        page.close()
    for width, got in seen.items():
        assert got is not None, width
        assert len(got["headers"]) == 6 and got["headers"][0] == "class k", (width, got)
        assert got["headers"][-1] == "F₁₀", (width, got)  # F_10,k = F_9,k + ν·γ: the last
        assert got["columns"] <= got["room"] + 0.5 and not got["scrolls"], (width, got)
        assert got["right"] <= got["window"], (width, got)
    # the grid did follow the window: more room at 1,600 px
    assert seen[1600]["room"] > seen[1280]["room"], seen
