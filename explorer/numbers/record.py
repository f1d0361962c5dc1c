"""A fit's per-round record for the browser: sent once per fit, as bytes.

The browser steps through rounds on its own (``explorer/browser/record.js``): from the trees
as flat node arrays, f0 and nu it adds up F_m on the grid and at the points with the
engine's own arithmetic (float64 adds tree after tree; float32 comparisons of
float32(x) <= threshold, or float64 for histogram trees; xgboost's float32 steps for
second-order trees), and from F
the terms of :mod:`.terms` (p, the class probabilities, the residuals), so what it
draws at round m is what the engine computed. Everything else a chart shows comes with
the chart, as per-round tables (:mod:`explorer.figures.bindings`).

Layout: a little-endian uint32 n, n bytes of UTF-8 JSON (the scalars, and for each array
its dtype, byte offset and length), then the arrays, each starting at a multiple of 8.
"""

from __future__ import annotations

import json

import numpy as np

from .terms import BIG

# dtype names as JavaScript's typed arrays call them
_JS = {np.dtype("<f8"): "float64", np.dtype("<f4"): "float32", np.dtype("<i4"): "int32",
       np.dtype("i1"): "int8", np.dtype("u1"): "uint8", np.dtype("<u2"): "uint16"}


def encode(trace, grid, key: str = "") -> bytes:
    """The record of ``trace`` and the plane ``grid`` it is drawn on; ``key`` names the fit
    (the browser keeps one record and asks for it by this name)."""
    nodes = trace.nodes
    offsets = np.atleast_2d(np.asarray(trace.offsets))[:, :trace.n_rounds + 1]
    arrays = {
        "feature": nodes["feature"].astype("<i4"),
        "threshold": nodes["threshold"].astype("<f8"),
        "left": nodes["left"].astype("<i4"),
        "value": nodes["value"].astype("<f8"),
        "right": nodes["right"].astype("<i4"),
        "offsets": offsets.astype("<i4").ravel(),  # class by class: tree (m, k) ends at k (M + 1) + m
        # as the trees compare it: float32, or float64 for histogram trees
        "X": np.asarray(trace.X, dtype=np.float64).astype("<f8" if trace.histogram else "<f4"),
        "y": np.asarray(trace.y, dtype="<f8"),  # a class index with K >= 3 classes
        "f0": np.atleast_1d(np.asarray(trace.f0, dtype="<f8")),
        "xs": np.asarray(grid.xs, dtype="<f8"),
        "ys": np.asarray(grid.ys if grid.ys is not None else [0.0], dtype="<f8"),
    }
    # the residuals record.js computes (terms._residuals_in_browser); others come as tables
    residual = ("multinomial" if trace.is_multiclass else trace.loss)
    header = dict(key=key, nu=float(trace.learning_rate), rounds=trace.n_rounds,
                  single=bool(trace.second_order), n=int(len(trace.y)),
                  classes=int(trace.n_classes) if trace.is_multiclass else 1,
                  features=int(trace.X.shape[1]), line=grid.is_line, big=BIG,
                  exact=bool(trace.histogram),
                  scale=2.0 if trace.loss == "exponential" else 1.0, residual=residual)
    return pack(header, arrays)


def pack(header: dict, arrays: dict) -> bytes:
    """``header`` (JSON) and the named ``arrays``, in the layout above; the header gains
    ``arrays``: each array's JavaScript type, byte offset and length."""
    header = dict(header, arrays={})
    offset = 0
    for name, a in arrays.items():
        header["arrays"][name] = [_JS[a.dtype], offset, int(a.size)]
        offset += -(-a.nbytes // 8) * 8
    head = json.dumps(header, separators=(",", ":")).encode("utf-8")
    start = -(-(4 + len(head)) // 8) * 8
    out = bytearray(start + offset)
    out[:4] = np.uint32(len(head)).tobytes()
    out[4:4 + len(head)] = head
    for name, a in arrays.items():
        at = start + header["arrays"][name][1]
        out[at:at + a.nbytes] = a.tobytes()
    return bytes(out)


_NUMPY = {name: np.dtype(dtype) for dtype, name in _JS.items()}


def unpack(data: bytes) -> tuple[dict, dict]:
    """(header, arrays) of bytes made by :func:`pack` (what record.js's decode reads)."""
    n = int(np.frombuffer(data[:4], "<u4")[0])
    header = json.loads(data[4:4 + n].decode("utf-8"))
    start = -(-(4 + n) // 8) * 8
    arrays = {name: np.frombuffer(data, _NUMPY[kind], length, start + offset)
              for name, (kind, offset, length) in header.pop("arrays").items()}
    return header, arrays
