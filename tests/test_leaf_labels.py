"""Leaf labels on the Tree page's plane (issue 29, item 8), and the symbol check of the
chart-text checker.

In Chromium, on the drawn chart: every leaf whose box is at least 40 × 20 px keeps a
visible label (a step of one input: at least 40 px long); the leaf of the largest |γ|
keeps its label; no label overlaps another text or runs off the chart. And
tests/chart_text.js reports a line break inside a sub- or superscript.
"""

from __future__ import annotations

import re

import pytest

import chart_text as ct

pytestmark = pytest.mark.browser

CASES = {
    "moons": "",
    "iris": "data=iris",
    "sine": "data=sine",
    "spiral16": "data=spiral&leaves=16&depth=8",
}

# the regions chart: its leaf labels (named label:<node>), each box or step in px, and
# the label's drawn text box and whether it shows
MEASURE = """() => {
  const gd = [...document.querySelectorAll('.js-plotly-plot')].find(
    (g) => (g.layout.annotations || []).some((a) => /^label:\\d+$/.test(a.name || '')));
  if (!gd) return null;
  const fl = gd._fullLayout, xa = fl.xaxis, ya = fl.yaxis;
  const px = (x) => xa._offset + xa.l2p(x), py = (y) => ya._offset + ya.l2p(y);
  const boxes = {};
  for (const s of gd.layout.shapes || []) {
    const m = /^leaf:(\\d+)$/.exec(s.name || '');
    if (m) boxes[m[1]] = [Math.abs(px(s.x1) - px(s.x0)), Math.abs(py(s.y1) - py(s.y0))];
  }
  const step = (gd.data || []).find((t) => /leaf value/.test(t.name || '') && t.mode === 'lines');
  const drawn = [...gd.querySelectorAll('.annotation')];
  const labels = [];
  gd.layout.annotations.forEach((a, i) => {
    const m = /^label:(\\d+)$/.exec(a.name || '');
    if (!m) return;
    const el = drawn.find((e) => e.getAttribute('data-index') === String(i));
    const text = el && el.querySelector('text');
    let shown = !!text && a.opacity !== 0;
    for (let n = text; shown && n && n.nodeType === 1; n = n.parentNode) {
      const st = getComputedStyle(n);
      if (st.display === 'none' || st.visibility === 'hidden' || Number(st.opacity) === 0) shown = false;
    }
    const r = text ? text.getBoundingClientRect() : null;
    labels.push({ node: m[1], text: a.text, shown: shown && r.width > 1 && r.height > 1,
                  x: a.x, y: a.y });
  });
  let steps = null;
  if (step) {  // one input: each leaf's step, x0, x1, None, in the labels' order of nodes
    steps = [];
    for (let j = 0; j + 1 < step.x.length; j += 3) steps.push(Math.abs(px(step.x[j + 1]) - px(step.x[j])));
  }
  return { boxes, steps, labels, title: fl.title.text };
}"""


def _value(text: str) -> float:
    return float(text.split("=")[-1].replace("−", "-").strip())


@pytest.mark.parametrize("case", list(CASES))
def test_every_big_leaf_keeps_a_label_that_overlaps_no_text(app_server, browser, case):
    """At round 1 as the link opens it, then at round 10 reached with the round bar."""
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.set_default_timeout(120_000)
    sent = ct.frames_sent(page)
    try:
        query = "&".join(q for q in (CASES[case], "round=1") if q)
        page.goto(f"{app_server.url}/tree?{query}")
        ct.settle(page, 3)
        _assert_labelled(page, case, 1)
        ct.step(page, sent, "/tree", 10)
        _assert_labelled(page, case, 10)
    finally:
        page.close()


def _assert_labelled(page, case: str, m: int) -> None:
    got = page.evaluate(MEASURE)
    assert got is not None, "no chart with leaf labels"
    assert re.match(rf"Tree \(?{m}\b", got["title"]), (m, got["title"])  # the round on screen
    labels = got["labels"]
    assert labels, got
    if got["steps"] is not None:  # one input: the steps, in the order of the labels
        assert len(got["steps"]) == len(labels)
        sizes = {lab["node"]: (w, 1e9) for lab, w in zip(labels, got["steps"])}
    else:
        sizes = {node: tuple(wh) for node, wh in got["boxes"].items()}
    big = [lab for lab in labels if sizes[lab["node"]][0] >= 40 and sizes[lab["node"]][1] >= 20]
    missing = [(lab["node"], lab["text"], sizes[lab["node"]]) for lab in big
               if not lab["shown"]]
    assert not missing, f"{case} round {m}: big leaves without a label: {missing}"
    largest = max(labels, key=lambda lab: abs(_value(lab["text"])))
    assert largest["shown"], f"{case} round {m}: the largest |γ| lost its label: {largest}"
    assert sum(lab["shown"] for lab in labels) >= len(big) >= 1
    problems = [line for line in ct.summary(ct.problems(page))
                if "annotation" in line or "sub- or superscript" in line]
    assert not problems, "\n".join(problems)


def test_the_checker_finds_a_line_break_inside_a_symbol(browser):
    page = browser.new_page()
    try:
        page.set_content("<html><body></body></html>")
        page.add_script_tag(path=str(ct.SCRIPT))
        found = page.evaluate("""() => [
            chartTextBrokenSymbols({layout: {title: {text: 'F<sub>2,<br>0</sub> = 1'}}}),
            chartTextBrokenSymbols({layout: {title: {text: 'F<sub>2, 0</sub><br>= 1'},
                                             annotations: [{text: 'x<sup>a<br/>b</sup>'}]}}),
            chartTextBrokenSymbols({layout: {title: {text: 'tree (3, 0)<br>F<sub>3</sub>'}}})]""")
    finally:
        page.close()
    assert found[0] == ["F<sub>2,<br>0</sub> = 1"]
    assert found[1] == ["x<sup>a<br/>b</sup>"]
    assert found[2] == []
