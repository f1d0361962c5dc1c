"""Captions write the symbols as the charts and formulas do: F₃,ₖ in Unicode subscripts
(the charts' F<sub>3,k</sub>), never a plain underscore, which Streamlit's markdown
shows as it is or takes for the start of italics."""

from __future__ import annotations

import re

import pytest

from apptest_helpers import PAGES, assert_clean, open_page
from explorer.app.text import sub

UNDERSCORED = re.compile(r"\b[A-Za-z]_[\w(]")  # F_3, y_k, F_(m−1)


def test_sub_writes_subscripts():
    assert sub(12) == "₁₂" and sub("3,k") == "₃,ₖ" and sub("m−1") == "ₘ₋₁"


def captions(at) -> list[str]:
    return [c.value for c in at.caption]


@pytest.mark.parametrize("query, expected", [
    (dict(data="moons", round=3), "F₃ = F₂ + ν · tree 3"),
    (dict(data="blobs", n=120, rounds=6, round=3), "yₖ − pₖ of round 2: F₃,ₖ = F₂,ₖ + ν · tree (3, k)"),
])
def test_the_model_page_caption_writes_subscripts(warm_engine, query, expected):
    at = open_page(PAGES[0], **query)
    assert_clean(at)
    text = " ".join(captions(at))
    assert expected in text, text
    assert not UNDERSCORED.search(text), text


def test_the_sample_ledger_caption_writes_subscripts(warm_engine):
    at = open_page(PAGES[2], data="moons", round=3)
    assert_clean(at)
    ledger = [c for c in captions(at) if "Round 0 has no tree" in c]
    assert ledger and "Fₘ = Fₘ₋₁ + ν·γ" in ledger[0] and not UNDERSCORED.search(ledger[0])
