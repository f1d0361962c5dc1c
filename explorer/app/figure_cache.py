"""Figures drawn once for everyone: a bounded cache of figure JSON, keyed by the call.

Thirty students on one setting step through the same rounds, so most reruns ask
for a figure another session has just drawn. :func:`FigureCache.draw` calls a
pure figure function at most once per distinct call and keeps the JSON the
browser gets. The key is the function and every argument by value; a shared
trace or grid is named by the key of the cache entry that holds it
(:func:`name`), since hashing its arrays would cost more than drawing. A call
with an argument that cannot be named is drawn afresh, never mistaken for
another.

No Streamlit here: the app (``explorer.session``) owns one cache for the server.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from ..figures import bindings, pages

# Each shared trace and grid by the key of its cache entry. Weak: an evicted fit goes.
_NAMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_NAMES_LOCK = threading.Lock()


def name(obj, key: str):
    """Register ``obj`` (a trace or grid shared through a cache) under ``key``; returns obj."""
    with _NAMES_LOCK:
        _NAMES[obj] = key
    return obj


@dataclass(frozen=True)
class Drawn:
    """A figure as the browser gets it: its JSON, and the layout size it asked for."""

    json: str
    width: int | None
    height: int | None

    @functools.cached_property
    def digest(self) -> str:
        """The JSON's sha1: its name where it is served by address (app/blobs.py)."""
        return hashlib.sha1(self.json.encode("utf-8")).hexdigest()


class Unnamed(Exception):
    """An argument the cache cannot name by value."""


def token(value):
    """A hashable stand-in for one argument: the value itself, or a shared object's name."""
    if isinstance(value, (str, bool, int, float, type(None))):
        return value
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if isinstance(value, (tuple, list)):
        return tuple(token(v) for v in value)
    if callable(value) and getattr(value, "__module__", "").startswith("explorer."):
        return ("function", value.__module__, value.__qualname__)  # a title, by its name
    with _NAMES_LOCK:
        try:
            return ("shared", _NAMES[value])
        except (KeyError, TypeError):
            raise Unnamed from None


def build(draw, args, kwargs, present: bool) -> Drawn:
    """Draw the figure (for a projector when ``present``) and serialise it."""
    text, size = pages.figure_json(draw, args, kwargs, present)
    return Drawn(text, size["width"], size["height"])


def build_step(draw, args, kwargs, present: bool) -> Drawn:
    """How ``draw(*before, m, *after, **kwargs)`` follows the round, ``args`` being
    ``(trace, grid, before, after)``: its bindings and tables as JSON (the template is the
    figure at round ``at``, drawn by :func:`build`), or ``{"over": why}`` where it passes
    the budget (the chart then steps through the server)."""
    trace, grid, before, after = args
    try:
        spec = pages.step(pages.Chart("", draw, tuple(before), tuple(after), kwargs), trace,
                          grid, present)
    except bindings.TooLarge as error:
        return Drawn(json.dumps({"over": str(error)}), None, None)
    return Drawn(json.dumps(spec, separators=(",", ":")), None, None)


def _key(draw, args, kwargs, present) -> tuple:
    """The cache's key of a call: the function, and each argument by value or name."""
    return (draw.__module__, draw.__qualname__, token(args),
            tuple(sorted((k, token(v)) for k, v in kwargs.items())), present)


class _Flight:
    """A figure being drawn: the sessions that ask for it meanwhile wait for this one."""

    def __init__(self):
        self.done = threading.Event()
        self.drawn: Drawn | None = None


class FigureCache:
    """Least recently used figures, bounded in entries and in bytes of JSON.

    ``builder(draw, args, kwargs, present)`` makes an entry (:func:`build`: a figure's
    JSON; :func:`build_step`: how a chart follows the round)."""

    def __init__(self, max_entries: int = 512, max_bytes: int = 32 * 2**20, builder=None):
        self.max_entries, self.max_bytes = max_entries, max_bytes
        self.builder = builder
        self._items: OrderedDict[tuple, Drawn] = OrderedDict()
        self._flying: dict[tuple, _Flight] = {}
        self._bytes = 0
        self._lock = threading.Lock()
        self.builds = 0  # figures drawn (misses), for tests and the load harness

    def draw(self, draw, args: tuple, kwargs: dict, present: bool = False) -> Drawn:
        """``draw(*args, **kwargs)`` as a :class:`Drawn`, from the cache when the same call
        was drawn before. A session asking for a figure another is drawing waits for that
        one: a class opening one link at once (or coming back after a restart) draws each
        figure once, where every session drew its own before."""
        try:
            key = _key(draw, args, kwargs, present)
        except Unnamed:
            return self._build(draw, args, kwargs, present)
        with self._lock:
            found = self._found(key)
            if found is not None:
                return found
            flight = self._flying.get(key)
            first = flight is None
            if first:
                flight = self._flying[key] = _Flight()
        if not first:
            flight.done.wait()
            # the first's figure, or (it raised) this session's own try, raising as it did
            return flight.drawn or self._build(draw, args, kwargs, present)
        try:
            flight.drawn = drawn = self._build(draw, args, kwargs, present)
            self._keep(key, drawn)
            return drawn
        finally:
            with self._lock:
                del self._flying[key]
            flight.done.set()

    def _keep(self, key, drawn: Drawn) -> None:
        size = len(drawn.json)
        with self._lock:
            if key not in self._items and size <= self.max_bytes:
                self._items[key] = drawn
                self._bytes += size
                while len(self._items) > self.max_entries or self._bytes > self.max_bytes:
                    _, old = self._items.popitem(last=False)
                    self._bytes -= len(old.json)

    def cached(self, draw, args: tuple, kwargs: dict, present: bool = False) -> Drawn | None:
        """What :meth:`draw` would return if the cache has it, else None (nothing drawn);
        raises :class:`Unnamed` for a call the cache can never hold."""
        key = _key(draw, args, kwargs, present)
        with self._lock:
            return self._found(key)

    def _found(self, key) -> Drawn | None:
        """The entry of ``key``, now the most recently used, or None (the lock held)."""
        found = self._items.get(key)
        if found is not None:
            self._items.move_to_end(key)
        return found

    def _build(self, draw, args, kwargs, present) -> Drawn:
        with self._lock:
            self.builds += 1
        return (self.builder or build)(draw, args, kwargs, present)

    @property
    def nbytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0
