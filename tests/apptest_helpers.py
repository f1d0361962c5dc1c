"""Helpers of the AppTest tests: open the app on a page with a query, and read what the
script drew (charts, text, the round)."""

from __future__ import annotations

import json
import re

from streamlit.testing.v1 import AppTest

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
    at = new_app(**query)
    at.run()
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
    return [{**p, "config": json.loads(p["config"]), "step": json.loads(p["step"])}
            for p in payloads if "figure" in p]


def charts(at: AppTest) -> list[dict]:
    return [json.loads(p["figure"]) for p in chart_payloads(at)]


def chart_text(at: AppTest) -> str:
    return " ".join(p["figure"] for p in chart_payloads(at))


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
