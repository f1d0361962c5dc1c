"""blobs and the server's ServeBlobs middleware: a chart's template and tables served by
their digest, so that a rerun need not carry them."""

import hashlib

import pytest
from apptest_helpers import APP, chart_payloads
from conftest import run_async
from streamlit.testing.v1 import AppTest

from explorer.app import blobs
from explorer.app.server import ServeBlobs


def kept(text: str) -> str:
    return blobs.put(hashlib.sha1(text.encode()).hexdigest(), text)


def test_a_kept_text_is_served_under_its_digest_and_base_path():
    path = kept('{"layout": {"title": "Café"}}')
    digest = path.rpartition("/")[2]
    assert path == "_explorer/blob/" + digest
    body = '{"layout": {"title": "Café"}}'.encode("utf-8")
    assert blobs.get("/" + path) == body
    assert blobs.get("/teach/" + path) == body  # under server.baseUrlPath
    # only a whole digest, after a slash: nothing else is looked up
    for bad in ("/" + path + "0", "/" + path[:-1], "/x" + path, "/" + path.upper(),
                "/_explorer/blob/../" + digest, "/" + blobs.PREFIX):
        assert blobs.get(bad) is None, bad


def test_the_store_is_bounded_and_keeps_what_was_used_last(monkeypatch):
    monkeypatch.setattr(blobs, "MAX_ENTRIES", 3)
    monkeypatch.setattr(blobs, "_items", type(blobs._items)())
    monkeypatch.setattr(blobs, "_bytes", 0)
    paths = [kept(f"text {i}") for i in range(3)]
    kept("text 0")  # used again: the oldest is now text 1
    kept("text 3")
    assert [blobs.get("/" + p) is not None for p in paths] == [True, False, True]


def call(path: str, method: str = "GET"):
    """One request through the middleware; (status, headers, body, passed on)."""
    passed = []

    async def app(scope, receive, send):
        passed.append(scope["path"])

    sent = []

    async def send(message):
        sent.append(message)

    run_async(ServeBlobs(app)({"type": "http", "path": path, "method": method},
                              None, send))
    if passed:
        return None, None, None, True
    start, body = sent
    return start["status"], dict(start["headers"]), body["body"], False


def test_the_middleware_answers_blob_paths_and_passes_the_rest_on():
    path = "/" + kept('{"data": []}')
    status, headers, body, passed = call(path)
    assert (status, body, passed) == (200, b'{"data": []}', False)
    assert headers[b"content-type"].startswith(b"application/json")
    assert b"immutable" in headers[b"cache-control"]
    assert headers[b"x-content-type-options"] == b"nosniff"
    assert call(path, "HEAD")[:3] == (200, headers, b"")
    # not kept, or not a read: 404, never cached
    status, headers, _, _ = call("/_explorer/blob/" + "0" * 40)
    assert status == 404 and b"cache-control" not in headers
    assert call(path, "POST")[0] == 404
    # everything else is Streamlit's
    assert call("/app/static/plotly.js")[3] and call("/_stcore/health")[3]


@pytest.mark.parametrize("served", [False, True])
def test_a_chart_that_follows_the_round_goes_inline_or_by_address(monkeypatch, served):
    """Without the middleware (AppTest) a chart's JSON goes inline; with it, an address
    that serves the same JSON."""
    monkeypatch.setattr(blobs, "_served", served)
    at = AppTest.from_file(str(APP), default_timeout=300)
    at.query_params["round"] = "3"
    at.run()
    payloads = [p for p in chart_payloads(at) if p["step"]]
    assert payloads
    for p in payloads:
        if not served:
            assert p["src"] is None and p["figure"] and "tables" in p["step"]
            continue
        assert p["figure"] == "" and "tables" not in p["step"]
        figure, step = blobs.get(p["src"]), blobs.get(p["step"]["src"])
        assert figure.startswith(b'{"data"') and b'"tables"' in step
