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


@pytest.mark.parametrize("width", [1280, 1600])
def test_the_iris_sample_table_shows_all_its_columns(app_server, browser, width):
    page = browser.new_page(viewport={"width": width, "height": 1000})
    page.set_default_timeout(120_000)
    try:
        page.goto(f"{app_server.url}/sample?data=iris&round=10")
        ct.settle(page, 2)
        page.wait_for_selector("[data-testid=stDataFrame] .dvn-stack", state="attached")
        # the grid writes its header cells into its accessible table after its first paint
        page.wait_for_function("() => document.querySelectorAll("
                               "'[data-testid=stDataFrame] th').length >= 6")
        got = page.evaluate(MEASURE)
    finally:
        page.close()
    assert got is not None
    assert len(got["headers"]) == 6 and got["headers"][0] == "class k", got
    assert got["headers"][-1] == "F₁₀", got  # F_10,k = F_9,k + ν·γ: the last column
    assert got["columns"] <= got["room"] + 0.5 and not got["scrolls"], got
    assert got["right"] <= got["window"], got
