"""A page of the app as one HTML file that steps through the rounds offline: no server,
no network (a lesson for a course page, a mail or a slide's iframe).

The file holds plotly.js (the plotly package's copy), the fit's record
(:func:`explorer.numbers.record.encode`), and for each chart the page shows that follows
the round (:func:`explorer.figures.pages.describe`, the app's own description) its
template, bindings and tables (:func:`explorer.figures.pages.step`). The browser's
modules are the app's, from :mod:`explorer.browser`: ``record.js`` (the engine's
arithmetic), ``bindings.js`` (a chart at round m) and ``stepper.js`` (the round bar:
buttons, slider, Home/End/PageUp/PageDown, Play), with ``interactive.js`` beside this file
to set them up. A ``file://`` page cannot
import modules, so :func:`inline_modules` writes them into one classic script, by text:
each module's body in a block of its own, its imports read from the blocks before it.

What the app updates in its rerun at rest (the text panels) cannot follow in a file: the
file leaves them out and says which, in one line; another line says that changing the
settings needs the app, with a link to the app at the same settings.

No Streamlit here; the command line (``python -m explorer export --interactive``) and the
app's download buttons call :func:`lesson_html`.
"""

from __future__ import annotations

import base64
import html
import json
import re
from pathlib import Path
from urllib.parse import urlsplit

from .. import browser
from ..figures import bindings, pages
from ..figures.hints import EXPORT_TITLE
from ..figures.theme import TOUCH
from ..numbers.record import encode
from .images import ExportError

# The app's address when none is given: none. A file made without one (the command line
# without --app-url) leaves the link out and says so; it never points at localhost, which a
# student's computer does not serve. The app's own button passes the address it was
# opened at (explorer/app/offline.py).
APP_URL = None
NO_APP_URL = ("this file was made without the app's address (--app-url), so it has no "
              "link to it")
MAX_BYTES = 25 * 2**20  # a lesson file above this is refused
# the plotly config of a chart in a file or a notebook (each chart names its own image);
# imageTitle: the layout.meta key of the title without hints, which the toolbar's image
# takes (explorer/browser/camera.js: interactive.js and notebook.js take it out of the
# config plotly.js is given)
CONFIG = dict(displaylogo=False, responsive=True, modeBarButtonsToRemove=["lasso2d", "select2d"],
              toImageButtonOptions=dict(format="png", scale=2, filename="boosting"),
              imageTitle=EXPORT_TITLE)
DEFAULT_BUDGET = 8 * 2**20  # what the default fit's file stays under (tests)

# the modules, each after those it imports; the last one runs the page
MODULES = (*browser.MODULES, Path(__file__).with_name("interactive.js"))


class LessonTooLarge(ExportError):
    """The lesson file would pass :data:`MAX_BYTES` (or a chart the browser's budget);
    ``setting`` names the setting to reduce (its command-line option)."""

    def __init__(self, message: str, setting: str):
        super().__init__(message)
        self.setting = setting


# --- the modules, inlined ------------------------------------------------------------

_IMPORT = re.compile(r'^import\s+(?:\{([^}]*)\}|(\w+))\s+from\s+"\./([\w.-]+)";[ \t]*$', re.M)
_EXPORT = re.compile(r"^export\s+(default\s+)?(?:(async\s+)?(function\*?|class|const|let)"
                     r"\s+(\w+))?", re.M)


def inline_modules(paths=MODULES) -> str:
    """The ES modules ``paths`` (each after the ones it imports, named by file name) as
    one classic script. Each body goes in a block of its own (``"use strict"``: its
    declarations stay in the block); ``import {a as b} from "./x.js"`` becomes a constant
    read from x.js's exports, ``export`` is dropped and the exported names are kept for
    the blocks after. Raises ValueError on any other import or export form."""
    out = ['"use strict";', "const __modules = {};"]
    for path in paths:
        source = Path(path).read_text(encoding="utf-8")
        if "</script" in source.lower():
            raise ValueError(f"{path.name} holds '</script', which would end the file's script")

        def imported(match):
            names, default, module = match.groups()
            if default:
                return f"const {default} = __modules[{json.dumps(module)}].default;"
            pairs = [part.strip().split(" as ") for part in names.split(",") if part.strip()]
            inner = ", ".join(p[0].strip() if len(p) == 1 else f"{p[0].strip()}: {p[1].strip()}"
                              for p in pairs)
            return f"const {{ {inner} }} = __modules[{json.dumps(module)}];"
        body = _IMPORT.sub(imported, source)
        exported = []

        def export(match):
            default, is_async, kind, name = match.groups()
            if default:
                exported.append("default: __default")
                return "const __default = "
            if not kind:
                raise ValueError(f"{path.name}: an export form the file cannot inline: "
                                 f"{match.group(0)!r}")
            exported.append(name)
            return f"{is_async or ''}{kind} {name}"
        body = _EXPORT.sub(export, body)
        left = re.search(r"^(import|export)\b.*$", body, re.M)
        if left:
            raise ValueError(f"{path.name}: a form the file cannot inline: {left.group(0)!r}")
        out += ["{", body.rstrip() + ";",
                f"__modules[{json.dumps(path.name)}] = {{ {', '.join(exported)} }};", "}"]
    return "\n".join(out) + "\n"


# --- the file --------------------------------------------------------------------------


def _plotly_js() -> str:
    import plotly
    return (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_text(
        encoding="utf-8")


def _script_json(text: str) -> str:
    """JSON text made safe inside <script>: ``<``, ``>`` and ``&`` (found only inside
    JSON strings) as escapes."""
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def app_link(state, page: str, app_url: str | None = APP_URL) -> str | None:
    """The app's address for ``page`` at ``state``'s settings (its round included), or
    None without an ``app_url`` (the file then says it has no link).

    Raises ValueError unless ``app_url`` is None or an http(s) address."""
    if app_url is None or app_url == "":
        return None
    parts = urlsplit(app_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"--app-url must be an http:// or https:// address; got {app_url!r}.")
    base = app_url.split("?")[0].split("#")[0].rstrip("/")
    query = state.query_string()
    return base + pages.PATHS[page] + (f"?{query}" if query else "")


def _too_large(trace, state, page: str, why: str) -> LessonTooLarge:
    """The refusal, naming the setting that weighs most against the default fit's."""
    leaves = state.leaves or 2 ** (state.depth or 8)
    weights = [(trace.n_rounds / 100, "--n-rounds", "the number of rounds", "Rounds M",
                trace.n_rounds),
               (leaves / 8, "--max-depth", "the trees' depth", "Max depth", state.depth),
               (len(trace.y) / 400, "--n", "the number of points", "Points", len(trace.y))]
    if trace.is_multiclass:
        weights.append((trace.n_classes / 3, "--dataset", "the number of classes",
                        "Dataset", trace.n_classes))
    _, option, name, label, now = max(weights, key=lambda w: w[0])
    return LessonTooLarge(
        f"The {page} page's lesson file would be too large: {why}. Reduce {name}: "
        f"{option} ({label} in the app), now {now}.", option)


def lesson_html(trace, grid, state, names: dict, *, page: str = "model",
                data_label: str = "", app_url: str | None = APP_URL, key: str = "lesson",
                described: pages.Page | None = None) -> str:
    """``page`` (one of :data:`explorer.figures.pages.PAGES`) of the fit ``trace`` on
    ``grid``, at ``state``'s settings, selection and round (presenter mode when
    ``state.present``), as one self-contained HTML file that steps offline.

    ``names``: feature_names, classes, target_name; ``data_label``: the data as the app's
    caption names it (plain text: escaped here); ``app_url``: the app's address, for the
    link to the app at the same settings (None: no link, and the file says so).
    ``described``: the page's charts where they are
    not :func:`explorer.figures.pages.describe`'s of this one fit (the Sweep page's,
    :func:`explorer.figures.pages.describe_sweep`: each chart with its own fit, whose
    record the file holds too).

    Raises
    ------
    LessonTooLarge
        Above :data:`MAX_BYTES`, or a chart beyond the browser's budget.
    ValueError
        A page or an app address that is not one.
    """
    from ..settings import Settings
    state = state.for_samples(len(trace.y), trace.n_classes if trace.is_multiclass else 1)
    state = state.with_round(min(state.round, trace.n_rounds))
    link = app_link(state, page, app_url)
    described = described or pages.describe(page, trace, grid, state, names, key=key)
    records, size, charts = {}, 0, []  # the records the charts step with, by key
    for chart in described.charts:
        # a chart with a fit of its own (a sweep's cell) steps with that fit's record
        c_trace, c_grid, c_key = chart.fit or (trace, grid, key)
        if c_key not in records:
            records[c_key] = base64.b64encode(encode(c_trace, c_grid, c_key)).decode("ascii")
            size += len(records[c_key])
        try:
            step = pages.step(chart, c_trace, c_grid, state.present)
        except bindings.TooLarge as error:
            raise _too_large(trace, state, page, (
                f"its {chart.view} chart passes what a browser steps through ({error}; "
                f"at most {bindings.MAX_ROUNDS} rounds and "
                f"{bindings.MAX_TABLE_BYTES // 2**20} MB of tables a chart)")) from None
        template = chart.json_at(step["at"], state.present)
        files = pages.image_names(state, chart.view, trace.n_rounds)
        charts.append(f'{{"view":{json.dumps(chart.view)},"record":{json.dumps(c_key)},'
                      f'"figure":{template},'
                      f'"step":{json.dumps(step, separators=(",", ":"))},'
                      f'"filenames":{json.dumps(files)}}}')
        size += len(charts[-1])
        if size > MAX_BYTES:
            raise _too_large(trace, state, page, f"more than {size / 2**20:.0f} MB of "
                             f"charts, above the cap of {MAX_BYTES / 2**20:.0f} MB")
    config = dict(CONFIG, touch=TOUCH)
    data = (f'{{"key":{json.dumps(key)},"rounds":{trace.n_rounds},"round":{state.round},'
            f'"present":{json.dumps(bool(state.present))},"config":{json.dumps(config)},'
            f'"records":{json.dumps(list(records.values()))},'
            f'"charts":[{",".join(charts)}]}}')
    caption = Settings.of(trace.params).caption(data_label) if data_label else ""
    out = _page(described, state, caption, link, _script_json(data))
    if len(out.encode("utf-8")) > MAX_BYTES:
        raise _too_large(trace, state, page, f"{len(out.encode('utf-8')) / 2**20:.1f} MB, "
                         f"above the cap of {MAX_BYTES / 2**20:.0f} MB")
    return out


def _slots(described) -> str:
    """The charts' places: a wide chart takes the page's width, the others two a row."""
    rows = []
    for chart in described.charts:
        cls = "slot wide" if chart.wide else "slot"
        rows.append(f'<div class="{cls}" data-slot="{html.escape(chart.view)}"></div>')
    return "\n".join(rows)


_PAGE_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1rem 1.5rem;
       color: #31333f; }
h1 { font-size: 1.35rem; margin: 0 0 0.25rem; }
p { margin: 0.2rem 0; font-size: 0.9rem; color: #555; }
a { color: #c0580a; }
#bar { position: sticky; top: 0; background: white; z-index: 10; margin: 0.5rem 0; }
.charts { display: grid; grid-template-columns: 1fr 1fr; gap: 0.5rem 1rem; }
.slot { min-width: 0; }
.slot.wide { grid-column: 1 / -1; }
@media (max-width: 900px) { .charts { grid-template-columns: 1fr; } }
"""


def _page(described, state, caption: str, link: str, data: str) -> str:
    e = html.escape
    present = " (presenter mode)" if state.present else ""
    head = (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>Boosting Explorer: {e(described.title)}</title>\n"
            f"<style>{browser.CSS.read_text(encoding='utf-8')}{_PAGE_CSS}</style>\n"
            f"<script>{_plotly_js()}</script>\n</head>\n")
    left_out = "; ".join(described.panels)
    upload = " (then upload the same file there)" if state.is_upload else ""
    body = (f"<body>\n<header>\n<h1>{e(described.title)}{present}</h1>\n"
            + (f"<p class=\"caption\">{e(caption)}</p>\n" if caption else "")
            + (f"<p class=\"needs-app\">Changing the settings, the data or the selection "
               f"needs the app: <a href=\"{e(link, quote=True)}\" target=\"_blank\" "
               f"rel=\"noopener\">open this lesson in the "
               f"app at the same settings</a>{upload}.</p>\n" if link else
               f"<p class=\"needs-app\">Changing the settings, the data or the selection "
               f"needs the app; {e(NO_APP_URL)}.</p>\n")
            + f"<p class=\"left-out\">Left out of this file (the app shows them when "
              f"stepping rests): {e(left_out)}.</p>\n</header>\n"
              f"<div id=\"bar\"></div>\n<main class=\"charts\">\n{_slots(described)}\n</main>\n"
              f"<script type=\"application/json\" id=\"lesson-data\">{data}</script>\n"
              f"<script>\n{inline_modules()}</script>\n</body>\n</html>\n")
    return head + body


def embed_code(file_name: str, height: int = 900) -> str:
    """An iframe snippet that shows the lesson file from the folder of the page (or
    slide) it is pasted into: the file's name, relative."""
    name = html.escape(Path(file_name).name, quote=True)
    return (f'<iframe src="{name}" title="Boosting Explorer lesson" width="100%" '
            f'height="{int(height)}" style="border: 0"></iframe>')
