"""Helpers of the AppTest tests: open the app on a page with a query, and read what the
script drew (charts, text, the round)."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
from streamlit.testing.v1 import AppTest

from explorer.app import component
from explorer.figures import bindings
from explorer.process import ROOT

APP = str(ROOT / "app.py")
PAGES = ["pages/model.py", "pages/tree.py", "pages/sample.py", "pages/curves.py"]
TIMEOUT = 180  # generous: a cold numba cache compiles for a while
GOOD_CSV = ("\ufeffid;height (cm);weight;colour;label\n" + "".join(
    f"{i};{150 + (i * 7) % 40};{50 + (i * 13) % 45},5;{'red' if i % 3 else 'blue'};"
    f"{'tall' if (150 + (i * 7) % 40) + 0.3 * (50 + (i * 13) % 45) > 185 else 'short'}\n"
    for i in range(120))).encode("utf-8")


def new_app(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = str(value)
    return at


def open_page(page: str, **query) -> AppTest:
    """The page opened by its link, as a browser opens /tree?...: its own run only. Before
    the first run AppTest finds a page by its file's name, which is each page's url_path
    in app.py. (Running the Model page first, then switching, cost a Model page's fit and
    charts per test: half the CPU time of test_formulas' 36 page tests.)"""
    at = new_app(**query)
    if page != PAGES[0]:
        at.switch_page(page)
    at.run()
    return at


def assert_clean(at: AppTest, errors_allowed: bool = False) -> None:
    assert not at.exception, [e.value for e in at.exception]
    if not errors_allowed:
        assert not at.error, [e.value for e in at.error]


def chart_payloads(at: AppTest) -> list[dict]:
    """What each chart component was given: the figure JSON, the plotly config, the view
    (config and step decoded: they go as JSON text)."""
    payloads = [json.loads(c.proto.json) for c in at.get("bidi_component")
                if c.proto.component_name == "explorer_chart"]
    return [{**without_order(p), "config": json.loads(p["config"]),
             "step": json.loads(p["step"])} for p in payloads if "figure" in p]


def without_order(data: dict) -> dict:
    """A component's data without its place among the session's (assets.py's _in_order:
    loader.js's, not the chart's)."""
    return {k: v for k, v in data.items() if k not in ("session", "order")}


def orders(at: AppTest) -> dict[str, tuple[str, int]]:
    """Each component's (session, place) by key: assets.py's _in_order."""
    found = {}
    for c in at.get("bidi_component"):
        data = json.loads(c.proto.json) if c.proto.json else {}
        if isinstance(data, dict) and "order" in data:
            found[c.proto.id] = (data["session"], data["order"])
    return found


def charts(at: AppTest) -> list[dict]:
    """Each chart's figure at the round on screen: a chart that follows the round is its
    template with its bindings applied in Python, as the browser applies them."""
    return [_at_round(at, p) for p in chart_payloads(at)]


def _at_round(at: AppTest, payload: dict) -> dict:
    figure, step = json.loads(payload["figure"]), payload["step"]
    if not step:
        return figure
    ctx = component.fit_of(step["record"])
    zero = json.loads(step["zero"]) if step.get("zero") else None
    fig = bindings.figure_at(figure, step["bindings"], base64.b64decode(step["tables"]), zero,
                             ctx.trace, ctx.grid, round_of(at))
    return json.loads(json.dumps(fig, default=_plotly_json))


def _plotly_json(value):
    """numpy as plotly's JSON writes it: a typed array as {dtype, bdata, shape}."""
    if isinstance(value, np.ndarray):
        a = np.ascontiguousarray(value)
        out = {"dtype": a.dtype.str.lstrip("<|="), "bdata": base64.b64encode(a.tobytes()).decode()}
        if a.ndim > 1:
            out["shape"] = ", ".join(map(str, a.shape))
        return out
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(type(value))


def chart_text(at: AppTest) -> str:
    """The charts' JSON at the round on screen, as one text."""
    return " ".join(json.dumps(fig, ensure_ascii=False) for fig in charts(at))


def round_of(at: AppTest) -> int:
    return int(at.slider(key="round").value)


def unescape(text: str) -> str:
    """Markdown text as a reader sees it (the app backslash-escapes upload text)."""
    return re.sub(r"\\([^\w\s])", r"\1", text)


def page_text(at: AppTest) -> str:
    parts = [unescape(m.value) for m in at.markdown] + [unescape(c.value) for c in at.caption]
    parts += [x.value for x in at.latex]
    return " ".join(str(p) for p in parts)


def upload(at: AppTest, content: bytes, name: str = "data.csv") -> AppTest:
    at.selectbox(key="data").set_value("upload").run()
    at.file_uploader(key="upload_file").set_value((name, content, "text/csv")).run()
    return at


SLIDES = "pages/slides.py"


def slides_registered() -> bool:
    return SLIDES in (ROOT / "app.py").read_text()


def all_text(at: AppTest) -> str:
    """The page's text, its metrics, warnings and notes included."""
    return " ".join([m.value for m in at.markdown] + [c.value for c in at.caption]
                    + [x.value for x in at.latex] + [f"{m.label} {m.value}" for m in at.metric]
                    + [w.value for w in at.warning] + [i.value for i in at.info])


def open_clean(page: str, **query) -> AppTest:
    """The page opened at the link's settings, with no exception and no error on it."""
    at = open_page(page, **query)
    assert_clean(at)
    return at


ROUNDS = 6  # the three-class fits' rounds: short, every round of them checked
THREE_CSV = ("x1,x2,species\n" + "".join(
    f"{(i * 37) % 50 / 10},{(i * 11) % 30 / 10 + 2 * (i % 3)},{('emu', 'cat', 'dog')[i % 3]}\n"
    for i in range(90))).encode("utf-8")
LEAF, SPLITS_PAGE = "pages/leaf_maths.py", "pages/splits.py"


def storyboard(at) -> str:
    """The Slides page's storyboard figure, as JSON text (its chart component's)."""
    return next(p["figure"] for p in chart_payloads(at) if p["view"].endswith("-storyboard"))
