"""explorer.figures.classes: three classes or more on the plane, the class map (the most
probable class, paler where unsure, or one class's p_k) and its palette."""

from __future__ import annotations

import numpy as np

from explorer.figures.classes import PALETTE, class_map
from figure_helpers import finite_numbers


def test_the_class_map_colours_the_most_probable_class_and_names_the_classes(three):
    trace, grid, classes = three
    fig = class_map(trace, 6, grid, classes=classes, show_valid=True, sample=3)
    heat = fig.data[0]
    best = np.argmax(trace.link(grid.F[6].astype(np.float64)), axis=-1)
    assert np.array_equal(np.floor(np.asarray(heat.z)).astype(int), best)
    # the hover names the most probable class and its p (a name per cell, p computed)
    assert heat.text[0][0] == f"class {classes[best[0, 0]]}"
    assert heat.hovertemplate.startswith("%{text}: p = %{customdata")
    top = trace.link(np.clip(grid.F[6].astype(np.float64), -1e6, 1e6)).max(axis=-1)
    assert np.array_equal(np.asarray(heat.customdata), top.astype(np.float32))
    names = {(t.name or "").replace("<br>", " ") for t in fig.data}  # wrapped: layout.py
    assert {"class 0", "class 1", "class 2", "boundaries between classes"} <= names
    assert finite_numbers(fig)
    one = class_map(trace, 6, grid, classes=classes, k=1)
    p1 = trace.link(grid.F[6].astype(np.float64))[..., 1]
    assert np.allclose(np.asarray(one.data[0].z), p1, atol=1e-6)
    assert "p of class 1" in one.layout.title.text


def test_the_palette_holds_ten_distinct_colours():
    assert len(set(PALETTE)) == 10
