"""explorer.text: numbers as the pages and the charts print them."""

from __future__ import annotations

import numpy as np

from explorer.text import bracketed, cell, number, plus, signed


def test_number_is_never_nan_or_inf_and_zero_has_no_sign():
    assert number(float("nan")) == "0"
    assert number(np.inf) == "1e+300" and number(-np.inf) == "-1e+300"
    assert number(0.0) == number(-0.0) == "0"
    assert number(np.float32(-0.0), 4) == "0"
    assert number(np.float32(np.inf), 4) == "1e+300"


def test_number_keeps_the_digits_it_is_asked_for():
    assert number(1 / 3) == "0.333333"  # six by default, as the pages' tables print
    assert number(1 / 3, 4) == "0.3333" and number(-2 / 3, 3) == "-0.667"
    assert number(1234567.0, 4) == "1.235e+06" and number(12, 4) == "12"


def test_signed_bracketed_and_plus_build_on_number():
    assert signed(0.25) == "+0.25" and signed(-0.25) == "-0.25"
    assert signed(0.0) == signed(-0.0) == "0"
    assert signed(1 / 3, 2) == "+0.33"
    assert bracketed(-0.5) == "(-0.5)" and bracketed(0.5) == "0.5"
    assert plus(-0.096) == "− 0.096" and plus(0.096) == "+ 0.096"
    assert plus(-0.0) == "+ 0" and bracketed(-0.0) == "0"


def test_a_cell_prints_a_number_text_or_a_dash():
    assert cell(None) == "—" and cell("a") == "a" and cell(True) == "True"
    assert cell(np.float64(-0.0)) == "0" and cell(2.0) == "2"
