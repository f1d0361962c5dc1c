"""Helpers of the figure tests: read a plotly figure's numbers back and check it is valid."""

from __future__ import annotations

import base64
import json

import numpy as np
import plotly.graph_objects as go


def _decode(value):
    """plotly 7 writes arrays as {'dtype', 'bdata', 'shape'}; give them back as numpy."""
    raw = base64.b64decode(value["bdata"])
    arr = np.frombuffer(raw, dtype=np.dtype(value["dtype"]))
    if "shape" in value:
        shape = value["shape"]
        shape = [int(k) for k in shape.split(",")] if isinstance(shape, str) else shape
        arr = arr.reshape(shape)
    return arr


def numbers_in(obj):
    """Every number anywhere in a figure dict (typed arrays decoded)."""
    if isinstance(obj, dict):
        if "bdata" in obj and "dtype" in obj:
            yield from _decode(obj).astype(float).ravel()
            return
        for v in obj.values():
            yield from numbers_in(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from numbers_in(v)
    elif isinstance(obj, np.ndarray):
        if obj.dtype.kind in "fiub":
            yield from obj.astype(float).ravel()
        else:
            for v in obj.ravel():
                yield from numbers_in(v)
    elif isinstance(obj, (bool, np.bool_)):
        return
    elif isinstance(obj, (int, float, np.integer, np.floating)):
        yield float(obj)


def check_figure(fig):
    """A valid plotly figure with no NaN or inf anywhere in it."""
    assert isinstance(fig, go.Figure)
    as_dict = fig.to_dict()
    go.Figure(as_dict)  # validates every property again
    values = np.fromiter(numbers_in(as_dict), dtype=float)
    assert np.isfinite(values).all(), "NaN or inf reached a figure"
    fig.to_json()  # serialisable
    return as_dict


def trace_array(fig, index, name):
    value = fig.to_dict()["data"][index][name]
    return _decode(value) if isinstance(value, dict) and "bdata" in value else np.asarray(value)


def finite_numbers(fig) -> bool:
    """No NaN or infinity anywhere in the figure's JSON."""
    text = json.dumps(fig.to_plotly_json(), default=lambda a: np.asarray(a).tolist())
    return "NaN" not in text and "Infinity" not in text


def finite_json(fig) -> dict:
    """A figure's JSON, checked to hold no NaN or infinity, as a dict."""
    text = fig.to_json()
    assert "NaN" not in text and "Infinity" not in text
    return json.loads(text)
