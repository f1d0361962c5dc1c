"""Helpers of the export and command-line tests: what a PNG, an SVG and a
self-contained HTML file must look like."""

from __future__ import annotations

import re
import struct
import xml.etree.ElementTree as ET

from plotly.offline import get_plotlyjs

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SVG_ROOT = "{http://www.w3.org/2000/svg}svg"
NO_BROWSER_MESSAGE = "no Chromium found: install Debian's chromium (apt-get install chromium)"
# kaleido's browser channel logs a message from Chromium it could not decode, with its
# traceback, and goes on ("JSONError decoding message. Ignoring"): not the export's own.
KALEIDO_CHANNEL = "/choreographer/"


def tracebacks(stderr: str) -> list[str]:
    """The Python tracebacks in a command's error output, but for those logged and
    ignored inside kaleido's browser channel."""
    blocks = re.findall(r"Traceback \(most recent call last\):\n(?:[ \t].*\n)*.*", stderr)
    return [b for b in blocks if KALEIDO_CHANNEL not in b]


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk, after checking the signature."""
    assert data[:8] == PNG_SIGNATURE, data[:8]
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def svg_root(data: bytes) -> ET.Element:
    root = ET.fromstring(data)
    assert root.tag == SVG_ROOT, root.tag
    return root


def assert_self_contained(html: str) -> None:
    """plotly.js inline, and no script (or anything else) loaded from elsewhere."""
    assert get_plotlyjs() in html, "the plotly.js bundle is not inline"
    tags = re.findall(r"<script\b[^>]*>", html, flags=re.IGNORECASE)
    assert tags, "no script at all"
    for tag in tags:
        assert not re.search(r"\bsrc\s*=", tag, flags=re.IGNORECASE), tag
    assert not re.search(r"""<script[^>]*src\s*=\s*["']?\s*(https?:)?//""", html, re.I)
    assert not re.search(r"""<link[^>]*href\s*=\s*["']?\s*(https?:)?//""", html, re.I)
