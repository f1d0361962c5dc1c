"""What the browser loads besides Streamlit: plotly.js (the copy in the plotly package)
and the components' ES modules (explorer/browser's, and the chart's component.js beside
this file), from the static folder.

Light on purpose: app.py imports it before the engine, so that plotly.js, a few
megabytes for the browser to parse, starts loading while the server is still importing
and fitting.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from .. import browser

_HERE = Path(__file__).parent
ICON = _HERE / "icon.svg"  # the browser tab's icon


def _static_folder() -> Path:
    """The folder Streamlit serves at app/static (config.toml): the one beside the main
    script, app.py's (the benchmarks' floor app has its own)."""
    ctx = get_script_run_ctx()
    return Path(ctx.main_script_path).parent / "static" if ctx else _HERE.parents[1] / "static"


def _static_url(source: Path, name: str) -> str | None:
    """Copy ``source`` into the app's static folder as ``name`` (once, atomically); its
    URL, or None when static serving is off (then st.plotly_chart is used)."""
    if not st.get_option("server.enableStaticServing"):
        return None
    folder = _static_folder()
    target = folder / name
    try:
        if not target.exists() or target.stat().st_size != source.stat().st_size:
            target.parent.mkdir(parents=True, exist_ok=True)
            ignore = folder / ".gitignore"  # copies made at run time: keep them out of git
            if not ignore.exists():
                ignore.write_text("# made by explorer/app/assets.py at run time\n*\n")
            partial = target.parent / f".{target.name}.{os.getpid()}.part"
            shutil.copyfile(source, partial)
            os.replace(partial, target)
    except OSError:
        return None
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    return "/" + (base + "/" if base else "") + "app/static/" + name


@st.cache_resource(show_spinner=False)
def plotly_url() -> str | None:
    """plotly.js, from the plotly package."""
    import plotly
    from plotly.offline import get_plotlyjs_version
    return _static_url(Path(plotly.__file__).parent / "package_data" / "plotly.min.js",
                       f"plotly-{get_plotlyjs_version()}.min.js")


# ES modules served from the static folder, side by side: the shared browser package's
# (the round bar and what it imports) and the chart component's own
_MODULES = (*browser.MODULES, _HERE / "component.js")


@st.cache_resource(show_spinner=False)
def modules_url() -> str | None:
    """The folder of the browser's modules (:data:`_MODULES`), named by their content so
    that a browser never keeps an old copy."""
    digest = hashlib.sha1(b"".join(path.read_bytes() for path in _MODULES))
    folder = f"js-{digest.hexdigest()[:10]}/"
    urls = [_static_url(path, folder + path.name) for path in _MODULES]
    return None if None in urls else urls[0][:-len(_MODULES[0].name)]


@functools.cache
def module_component(name: str, module: str, css: Path | None = None):
    """A component whose script only loads ``module`` (a file name of :data:`_MODULES`)
    from the static folder (a component's own script goes with every element of it, at
    every rerun), with the style sheet ``css``; or None without a static folder."""
    base = modules_url()
    if base is None:
        return None
    loader = (_HERE / "loader.js").read_text(encoding="utf-8").replace(
        '"MODULE"', json.dumps(base + module))
    style = css.read_text(encoding="utf-8") if css else None
    return _in_order(st.components.v2.component(name, js=loader, css=style,
                                                 isolate_styles=False))


# Streamlit hands an element's data to its script after importing the script, and when two
# runs come while the script still loads (a new fit's chart drawn first, then bound, in the
# first second of a page), Chromium can resolve the first import last: the first run's
# data then overwrote the second's (a chart left waiting for bindings it had been sent).
# So each element's data carries its place among this session's (``order``, which changes
# only with the data, so that a rerun at rest sends the same bytes), and loader.js drops
# data older than what the element has taken.
_ORDER = "_component_order"  # this session: (its token, {key: (data's hash, place)})


def _in_order(component):
    def mount(*, key: str, data=None, **kwargs):
        if isinstance(data, dict):
            ss = st.session_state
            if _ORDER not in ss:
                ss[_ORDER] = (os.urandom(4).hex(), {})
            token, places = ss[_ORDER]
            seen = hash(tuple(data.items()))
            place = places.get(key)
            if place is None or place[0] != seen:  # after every place given so far
                place = places[key] = (seen, 1 + max((p for _, p in places.values()),
                                                     default=0))
            data = {**data, "session": token, "order": place[1]}
        return component(key=key, data=data, **kwargs)
    return mount


def chart_component():
    return module_component("explorer_chart", "component.js")


def preload() -> None:
    """Start loading plotly.js in the browser (from the sidebar, drawn first)."""
    url, chart = plotly_url(), chart_component()
    if url is not None and chart is not None:
        with st.sidebar:
            chart(key="plotly_preload", data={"preload": url}, height=1)
