"""Issue 29, item 9: the title wrapper never cuts a symbol (a sub- or superscript, a
tree's name), and the multiclass tree is written tree (m, k)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from explorer import fit
from explorer.data import make_toy
from explorer.figures.layout import wrap
from explorer.figures.update import update_titles

_SYMBOL = re.compile(r"<(sub|sup)>.*?</\1>", re.I)


def _cut_inside_a_symbol(wrapped: str) -> bool:
    for line in wrapped.split("<br>"):
        if line.count("<sub>") != line.count("</sub>") or \
                line.count("<sup>") != line.count("</sup>"):
            return True
    return "tree (" in wrapped and re.search(r"tree \(\d+,<br>|tree<br>\(", wrapped) is not None


@pytest.mark.parametrize("room", [60, 90, 120, 160, 200, 260, 320, 400])
def test_wrap_never_cuts_a_subscript_or_a_trees_name(room):
    text = ("The update at round 3: F<sub>3, 0</sub> = F<sub>2, 0</sub> + ν · tree (3, 0), "
            "with e<sup>−y F</sup> and F<sub>10, 2</sub>")
    wrapped = wrap(text, 14, room)
    assert not _cut_inside_a_symbol(wrapped), wrapped
    assert wrapped.replace("<br>", " ") == text  # only spaces became breaks
    for symbol in ("F<sub>3, 0</sub>", "F<sub>2, 0</sub>", "tree (3, 0)", "<sup>−y F</sup>"):
        assert symbol in wrapped


def test_the_multiclass_update_title_names_tree_m_k():
    d = make_toy("iris", n=150, noise=0.2, seed=0)
    t = fit(d.X, d.y, n_rounds=3)
    title, panels = update_titles(t, 3, 0)
    assert "tree (3, 0)" in title and "tree 3, 0" not in title
    assert "tree (3, 0)" in panels[1]
    X = np.random.RandomState(0).randn(50, 2)
    b = fit(X, (X[:, 0] > 0).astype(int), n_rounds=3)
    assert update_titles(b, 3)[0].endswith("ν · tree 3")
