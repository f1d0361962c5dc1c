"""What a chart that follows the round needs once per fit (its template and its tables),
served over HTTP by its digest instead of inside every rerun.

Streamlit sends every element again at each rerun: it serialises a component's data,
hashes it twice (for the element's identity and for its message cache) and only then
finds that the browser holds it. A Tree page's three charts carry some 1.3 MB of template
and tables, so that work cost more server CPU than the rest of a rerun at rest. Here the
rerun carries a short address (``/_explorer/blob/<sha1>``); the browser fetches it once
and keeps it (the address names the content: it never changes).

The server's middleware (:mod:`.server`) answers those addresses from this store, and
says that it does with :func:`serve`; without it (AppTest, a script started otherwise) the
charts send their JSON inline, as before.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict

PREFIX = "_explorer/blob/"
_DIGEST = re.compile(r"[0-9a-f]{40}")
MAX_BYTES = 256 * 2**20  # characters; more than the figure caches' 128 MB, which share them
MAX_ENTRIES = 1024

# the very strings the figure caches hold (no copy): encoded only when asked for
_items: OrderedDict[str, str] = OrderedDict()
_bytes = 0
_lock = threading.Lock()
_served = False


def serve() -> None:
    """The middleware is installed: charts may send addresses instead of JSON."""
    global _served
    _served = True


def served() -> bool:
    return _served


def put(digest: str, text: str) -> str:
    """Keep ``text`` (whose sha1 is ``digest``) to serve; returns its path under the app."""
    global _bytes
    with _lock:
        if digest in _items:
            _items.move_to_end(digest)
        else:
            _items[digest] = text
            _bytes += len(text)
            while len(_items) > MAX_ENTRIES or _bytes > MAX_BYTES:
                _, old = _items.popitem(last=False)
                _bytes -= len(old)
    return PREFIX + digest


def get(path: str) -> bytes | None:
    """The body kept for a request path ending in ``_explorer/blob/<sha1>``, or None."""
    head, sep, digest = path.rpartition(PREFIX)
    if not sep or not _DIGEST.fullmatch(digest) or not (head == "" or head.endswith("/")):
        return None
    with _lock:
        text = _items.get(digest)
    return None if text is None else text.encode("utf-8")
