"""explorer.app.controls: every fit setting has its control on every rule that uses it (by
the one per-rule table, explorer.rules), a rule's unused controls say why, a change of
split rule in the sidebar gives the fit its link gives, and the library defaults are one
click that writes ordinary settings."""

from __future__ import annotations

from itertools import permutations

import pytest

from apptest_helpers import assert_clean, open_page, page_text
from explorer import rules
from explorer.settings import Settings, applies
from explorer.state import BY_KEY, ENGINE_SPLIT, FIELDS, SPLITS, State

MODEL = "pages/model.py"
WIDGETS = ("slider", "select_slider", "selectbox", "radio", "number_input", "toggle")


@pytest.fixture(autouse=True)
def _warm(warm_engine):
    """The app runs in this process: compile numba once first."""


def sidebar_widgets(at) -> dict:
    """The sidebar's widgets by key, whatever their kind (those in its expanders too)."""
    return {w.key: w for kind in WIDGETS for w in getattr(at.sidebar, kind)}


def state_of(at) -> State:
    return State.from_query({key: at.query_params[key] for key in at.query_params})


def test_every_fit_parameter_is_a_field_or_engine_only():
    """A parameter added to the engine's table needs a field or a word that it has none."""
    fields = {f.param for f in FIELDS if f.param}
    assert set(rules.PARAMS) == fields | rules.ENGINE_ONLY
    assert not fields & rules.ENGINE_ONLY


@pytest.mark.parametrize("split", SPLITS)
def test_every_fit_field_is_a_control_on_every_rule_that_uses_it(split):
    at = open_page(MODEL, split=split)
    assert_clean(at)
    widgets = sidebar_widgets(at)
    for f in FIELDS:
        if f.group != "fit":
            continue
        assert f.key in widgets, (split, f.key)
        used = applies(f.param, ENGINE_SPLIT[split])
        if f.key != "split":
            assert widgets[f.key].disabled is not used, (split, f.key)
        assert widgets[f.key].value == getattr(State.from_mapping({"split": split}), f.key)
        if not used:  # it says why, in its help and beside it
            assert "Not used by" in widgets[f.key].help, (split, f.key)
            assert f"do not use {f.label.split(' (')[0]}:" in page_text(at), (split, f.key)


def test_max_bins_is_a_slider_for_histogram_trees_and_fits():
    at = open_page(MODEL, split="histogram")
    at.slider(key="bins").set_value(16).run()
    assert_clean(at)
    assert at.query_params["bins"] == "16"
    assert "histogram trees (16 bins" in page_text(at)


@pytest.mark.parametrize("controls", [
    "rounds", "lr", "depth", "leaves", "minleaf", "lam", "gamma", "mcw", "bins", "split"])
def test_each_fit_control_names_the_libraries_parameter(controls):
    help_text = BY_KEY[controls].help
    names = {"rounds": ("n_estimators", "max_iter", "num_boost_round"),
             "lr": ("learning_rate", "eta"),
             "depth": ("max_depth",),
             "leaves": ("max_leaf_nodes", "num_leaves"),
             "minleaf": ("min_samples_leaf", "min_child_samples"),
             "lam": ("reg_lambda", "l2_regularization", "lambda_l2", "½"),
             "gamma": ("min_split_loss", "min_split_gain", "½"),
             "mcw": ("min_child_weight", "min_sum_hessian_in_leaf"),
             "bins": ("max_bins", "max_bin"),
             "split": ("exact", "HistGradientBoosting", "LightGBM")}[controls]
    for name in names:
        assert name in help_text, (controls, name)


# --- per-rule defaults on every route -----------------------------------------------


def _sidebar_to(split_from: str, split_to: str, **query):
    at = open_page(MODEL, **({"split": split_from} if split_from != SPLITS[0] else {}),
                   **query)
    at.selectbox(key="split").set_value(split_to).run()
    assert_clean(at)
    return at


@pytest.mark.parametrize("split_from, split_to", list(permutations(SPLITS, 2)))
def test_the_sidebar_and_the_link_give_the_same_fit(split_from, split_to):
    by_sidebar = _sidebar_to(split_from, split_to)
    by_link = open_page(MODEL, split=split_to)
    assert_clean(by_link)
    assert state_of(by_sidebar) == state_of(by_link) == State.from_mapping({"split": split_to})
    assert dict(by_sidebar.query_params) == dict(by_link.query_params)
    # the fit on screen: its parameters as the page's caption states them
    caption = Settings.of(State.from_mapping({"split": split_to}).fit_params()).caption("")
    assert caption in page_text(by_sidebar) and caption in page_text(by_link)
    # one line says what changed, and whose defaults they are
    note = State.from_mapping({"split": split_to}).rule_note(
        State.from_mapping({"split": split_from}))
    assert note in [c.value for c in by_sidebar.sidebar.caption]


def test_the_histogram_note_names_hist_gradient_boostings_defaults():
    at = _sidebar_to(SPLITS[0], "histogram")
    assert ("Histogram trees: no depth limit, max leaves 31, min 20 per leaf, λ 0 "
            "(HistGradientBoosting's defaults).") in [c.value for c in at.sidebar.caption]
    assert dict(at.query_params) == {"split": "histogram"}


def test_a_setting_the_user_changed_keeps_its_value_where_the_new_rule_allows_it():
    at = _sidebar_to(SPLITS[0], "histogram", minleaf=5, depth=0)
    assert state_of(at) == State.from_mapping({"split": "histogram", "minleaf": 5})
    assert "yours kept: min 5 per leaf" in " ".join(c.value for c in at.sidebar.caption)
    # xgboost's exact trees need a depth: no limit is not kept
    at.selectbox(key="split").set_value("hessian").run()
    assert state_of(at).depth == 3 and state_of(at).minleaf == 5


# --- library defaults -----------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(rules.LIBRARIES))
def test_library_defaults_are_one_click_of_ordinary_settings(name):
    at = open_page(MODEL, rounds=30, lr=0.5, data="circles")
    at.button(key=f"library_{name}").click().run()
    assert_clean(at)
    state = state_of(at)
    label, split, params = rules.LIBRARIES[name]
    assert state.library == name and state.data == "circles"
    got = state.fit_params()
    assert {k: got.get(k, rules.default(k, split)) for k in params} == params
    assert ENGINE_SPLIT[state.split] == split
    # the link carries it as the settings themselves; it opens the same
    assert state_of(open_page(MODEL, **dict(at.query_params))) == state
    assert at.button(key=f"library_{name}").proto.type == "primary"
    # written with its underscores escaped, so that markdown shows them
    assert rules.LIBRARY_CAVEATS[name] in [c.value.replace("\\_", "_")
                                           for c in at.sidebar.caption]


def test_library_defaults_say_what_cannot_be_reproduced():
    assert "LightGBM" in rules.LIBRARY_CAVEATS["histgradientboosting"]
    assert "min_data_in_bin" in rules.LIBRARY_CAVEATS["histgradientboosting"]
    assert 'tree_method="hist"' in rules.LIBRARY_CAVEATS["xgboost"]


def test_a_regression_offers_no_xgboost_defaults():
    at = open_page(MODEL, data="sine")
    assert at.button(key="library_xgboost").disabled
    at.button(key="library_histgradientboosting").click().run()
    assert_clean(at)
    assert state_of(at).split == "histogram" and state_of(at).is_regression
