"""The server ``streamlit run app.py`` starts: Streamlit's own (``st.App``), with two
additions.

* Every HTML page it sends names plotly.js as a resource to preload (a ``Link`` header),
  so the browser fetches those 4.6 MB while it loads Streamlit's frontend instead of once
  the script has started (measured: fetched from 0.04 to 1.3 s after the page's
  navigation; the script's first message came at 1.8 s).
* ``GET .../_explorer/blob/<sha1>`` answers with a chart's template or tables kept in
  :mod:`.blobs`, so that a rerun need not carry them.
"""

from __future__ import annotations

from . import assets, blobs


def middleware() -> list:
    """The server's own middleware: the charts' blobs, and the preload where static
    serving is on."""
    from starlette.middleware import Middleware

    blobs.serve()
    url = assets.plotly_url()  # copies plotly.js into the static folder now, before a visit
    return [Middleware(ServeBlobs)] + ([] if url is None else [Middleware(PreloadPlotly,
                                                                          url=url)])


class ServeBlobs:
    """ASGI middleware: a GET of a blob's path answered from :mod:`.blobs` (404 when it is
    not kept), anything else passed on."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if blobs.PREFIX not in path:
            await self.app(scope, receive, send)
            return
        body = blobs.get(path) if scope.get("method") in ("GET", "HEAD") else None
        headers = [(b"content-type", b"application/json; charset=utf-8"),
                   (b"x-content-type-options", b"nosniff")]
        if body is None:
            status, body = 404, b'{"error": "not kept"}'
        else:  # the address names the content: it never changes
            status = 200
            headers.append((b"cache-control", b"public, max-age=31536000, immutable"))
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body",
                    "body": b"" if scope.get("method") == "HEAD" else body})


class PreloadPlotly:
    """ASGI middleware: ``Link: <url>; rel=preload; as=script`` on every HTML response."""

    def __init__(self, app, url: str):
        self.app = app
        self.link = (b"link", f"<{url}>; rel=preload; as=script".encode())

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                if any(name.lower() == b"content-type" and value.startswith(b"text/html")
                       for name, value in headers):
                    message = {**message, "headers": [*headers, self.link]}
            await send(message)

        await self.app(scope, receive, sending)
