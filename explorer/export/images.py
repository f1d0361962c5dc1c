"""Figures to files: the print look and PNG/SVG images rendered by kaleido with Debian's
Chromium.

One Chromium is kept open (kaleido on its own event loop thread), because launching it
costs about 2 s an image and a rendering by the open one about 0.2 s. Kaleido's own
shared server mixes up the results of concurrent callers, so every rendering here goes
through one lock: callers wait, and each gets its own image.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import os
import threading

import numpy as np
import plotly.graph_objects as go

from .. import figures


PLANE_SIZE = (860, 680)  # layout size of one view exported on its own (as on a wide screen)
MIN_WIDTH = 1920  # pixels: a full-HD slide


NO_BROWSER = "no Chromium found: install Debian's chromium (apt-get install chromium)"


OPEN_TIMEOUT = 60.0  # seconds to start Chromium


RENDER_TIMEOUT = 60.0  # seconds to render one image


class ExportError(RuntimeError):
    """An image could not be made (no browser, or the browser failed); the message says why."""


# One light theme for print and projectors, defined with the figures (the app's
# presenter mode uses the same one): the screen's template with opaque white
# everywhere and darker axis lines and ticks. Figures set their fonts and colours
# themselves, so a file looks like the screen.
PRINT_TEMPLATE = figures.PRINT_TEMPLATE


def for_export(fig: go.Figure, size: tuple[int, int] | None = None) -> go.Figure:
    """A copy of ``fig`` ready for a file: the print template, vector points, a fixed size.

    ``scattergl`` traces become ``scatter``: WebGL points would be pasted into an
    SVG as a bitmap, and they render four times slower in headless Chromium.
    Frames are converted too.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    size : (width, height), optional
        Layout size in CSS pixels; by default the figure's own.
    """
    spec = fig.to_plotly_json()
    for trace in spec["data"] + [t for f in spec.get("frames", []) for t in f.get("data", [])]:
        if trace.get("type") == "scattergl":
            trace["type"] = "scatter"
    layout = spec["layout"]
    layout["template"] = PRINT_TEMPLATE
    if size is not None:
        layout["width"], layout["height"] = size
    # the figures' layout rule again, at the size of the file
    width = layout.get("width") or PLANE_SIZE[0]
    figures.arrange(spec, width=width, height=layout.get("height") or PLANE_SIZE[1])
    return go.Figure(spec)


def find_browser() -> str | None:
    """The Chromium kaleido would use (``BROWSER_PATH`` first, then the usual names and
    places, e.g. Debian's /usr/bin/chromium), or None when there is none to run."""
    from choreographer.browsers.chromium import Chromium
    path = Chromium.find_browser(skip_local=False)
    if path and os.path.isfile(path) and os.access(path, os.X_OK):
        return str(path)
    return None


class _Renderer:
    """One open Chromium (through kaleido) on an event loop thread of its own."""

    def __init__(self, browser: str):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True,
                                       name="kaleido-renderer")
        self.thread.start()
        self.kaleido = None
        try:
            self.kaleido = self._run(self._open(browser), OPEN_TIMEOUT)
        except BaseException:
            self.close()
            raise

    @staticmethod
    async def _open(browser):
        import kaleido
        # mathjax=False: the default fetches MathJax from a CDN, and no figure uses it.
        k = kaleido.Kaleido(n=1, path=browser, mathjax=False, timeout=RENDER_TIMEOUT)
        await k.open()
        return k

    def _run(self, coroutine, timeout):
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise

    def render(self, spec: dict, opts: dict) -> bytes:
        return self._run(self.kaleido.calc_fig(spec, opts=opts), RENDER_TIMEOUT + 5)

    def close(self) -> None:
        try:
            if self.kaleido is not None:
                self._run(self.kaleido.close(), 30)
        except Exception:  # noqa: BLE001  (closing a broken browser: nothing more to do)
            pass
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)


_lock = threading.Lock()  # one rendering at a time: the open browser is not thread-safe


_renderer: _Renderer | None = None


def shutdown() -> None:
    """Close the open Chromium, if any (the next image starts a new one)."""
    global _renderer
    with _lock:
        if _renderer is not None:
            _renderer.close()
            _renderer = None


atexit.register(shutdown)


def to_image(fig: go.Figure, fmt: str = "png", width: int = MIN_WIDTH) -> bytes:
    """Render a figure to PNG or SVG bytes with kaleido and Chromium.

    The figure is laid out at its own size (as on screen, so text keeps its
    proportions) and scaled to ``width`` pixels; an SVG gets the same width and
    height attributes. Safe to call from many threads: renderings are serialised.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    fmt : {"png", "svg"}
    width : int
        Width of the image in pixels, at least :data:`MIN_WIDTH`.

    Returns
    -------
    bytes

    Raises
    ------
    ValueError
        For another format or a smaller width.
    ExportError
        When no Chromium can be found or rendering fails.
    """
    global _renderer
    if fmt not in ("png", "svg"):
        raise ValueError(f"format must be png or svg; got {fmt!r}.")
    if isinstance(width, bool) or not isinstance(width, (int, np.integer)) or width < MIN_WIDTH:
        raise ValueError(f"width must be a whole number of at least {MIN_WIDTH} pixels; "
                         f"got {width!r}.")
    fig = for_export(fig)
    layout_w = int(fig.layout.width or PLANE_SIZE[0])
    layout_h = int(fig.layout.height or PLANE_SIZE[1])
    # Chromium truncates a PNG's scaled size: half a pixel more gives exactly `width`.
    # An SVG states the scaled size as a number, so it gets the exact scale.
    opts = dict(format=fmt, width=layout_w, height=layout_h,
                scale=(int(width) + (0.5 if fmt == "png" else 0.0)) / layout_w)
    spec = fig.to_plotly_json()
    from kaleido.errors import ChromeNotFoundError
    with _lock:
        try:
            if _renderer is None:
                browser = find_browser()
                if browser is None:
                    raise ExportError(NO_BROWSER + _browser_path_note())
                _renderer = _Renderer(browser)
            return _renderer.render(spec, opts)
        except ExportError:
            raise
        except ChromeNotFoundError:
            _reset()
            raise ExportError(NO_BROWSER + _browser_path_note()) from None
        except concurrent.futures.TimeoutError:
            _reset()
            raise ExportError(f"The image took longer than {RENDER_TIMEOUT:g} s to render; "
                              "try again, or with fewer rounds or points.") from None
        except Exception as error:  # noqa: BLE001  (the browser's errors vary: say what it said)
            _reset()
            raise ExportError(f"The image could not be rendered ({type(error).__name__}: "
                              f"{error}).") from None


def _reset() -> None:
    """Drop a renderer that failed (called with the lock held); the next call starts anew."""
    global _renderer
    if _renderer is not None:
        _renderer.close()
        _renderer = None


def _browser_path_note() -> str:
    path = os.environ.get("BROWSER_PATH")
    return f" (BROWSER_PATH={path!r} is not a program to run)" if path else ""

