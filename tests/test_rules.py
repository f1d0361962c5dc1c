"""explorer.rules: one table of the parameters each split rule uses and its defaults, read
by the engine, the settings and the app's state (links leave out each rule's defaults)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from explorer import rules
from explorer.settings import Settings, applies
from explorer.state import State

ROOT = Path(__file__).resolve().parents[1]


def test_the_table():
    assert rules.SPLITS == ("squared_error", "hessian", "histogram")
    hist = rules.defaults("histogram")
    assert (hist["max_leaves"], hist["max_depth"], hist["min_samples_leaf"],
            hist["reg_lambda"], hist["max_bins"]) == (31, None, 20, 0.0, 255)
    exact = rules.defaults("squared_error")
    assert (exact["max_leaves"], exact["max_depth"], exact["min_samples_leaf"],
            exact["reg_lambda"]) == (None, 3, 1, 1.0)
    assert rules.defaults("hessian")["reg_lambda"] == 1.0
    # shared parameters, each rule with its own default
    assert applies("max_leaves", "histogram") and applies("max_leaves", "squared_error")
    assert applies("reg_lambda", "histogram") and applies("reg_lambda", "hessian")
    assert not applies("reg_lambda", "squared_error")
    assert applies("max_bins", "histogram") and not applies("max_bins", "hessian")
    for name in ("subsample", "min_samples_split", "gamma", "min_child_weight", "leaf"):
        assert not applies(name, "histogram")
    assert rules.resolve("histogram", max_leaves=rules.RULE_DEFAULT, max_depth=4) == dict(
        max_leaves=31, max_depth=4)
    with pytest.raises(ValueError, match=r"split must be one of \['squared_error', 'hessian', "
                                         r"'histogram'\]; got 'exact'"):
        rules.uses("gamma", "exact")


def test_settings_take_the_rules_defaults():
    s = Settings.of(dict(split="histogram"))
    assert (s.max_leaves, s.max_depth, s.min_samples_leaf, s.max_bins) == (31, None, 20, 255)
    caption = s.caption("moons")
    assert "histogram trees (255 bins, ≤ 31 leaves, min 20 per leaf, λ = 0)" in caption
    assert "no depth limit" in caption
    assert "histogram_b255" in s.slug("moons400", 3)
    assert Settings.of({}).max_depth == 3


def test_a_histogram_link_leaves_out_the_rules_defaults():
    s = State.from_mapping({"split": "histogram"})
    assert (s.depth, s.leaves, s.minleaf, s.lam, s.bins) == (0, 31, 20, 0.0, 255)
    assert s.to_query() == {"split": "histogram"}
    params = s.fit_params()
    assert params == dict(loss="log_loss", n_rounds=100, learning_rate=0.1, max_depth=None,
                          max_leaves=31, min_samples_leaf=20, random_state=0,
                          split="histogram", reg_lambda=0.0, max_bins=255)
    # a value that is another rule's default is written
    other = State.from_mapping({"split": "histogram", "depth": "3", "bins": "16"})
    assert other.to_query() == {"split": "histogram", "depth": "3", "bins": "16"}
    assert State.from_mapping(other.to_query()) == other
    assert other.fit_params()["max_depth"] == 3 and other.fit_params()["max_bins"] == 16


def test_depth_no_limit_and_where_it_is_refused():
    assert State.from_mapping({"depth": "0"}).fit_params()["max_depth"] is None
    # xgboost's exact trees need a depth: a link asking for none gets the default
    assert State.from_mapping({"split": "hessian", "depth": "0"}).depth == 3
    # a regression may use histogram trees, not second-order ones
    assert State.from_mapping({"data": "sine", "split": "histogram"}).split == "histogram"
    assert State.from_mapping({"data": "sine", "split": "hessian"}).split == "squared-error"


def test_the_state_loads_no_numba():
    """The app's state and settings read the rules table without loading the engine."""
    code = ("import sys; import explorer.state, explorer.settings, explorer.rules; "
            "assert 'numba' not in sys.modules, 'numba loaded'; "
            "assert 'explorer.boosting' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(ROOT))
