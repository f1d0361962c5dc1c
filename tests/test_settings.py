"""One description of a fit's settings: the caption, the slug, the print line and the file
names all come from explorer.settings, and say what the engine was asked to do."""

import pytest

from explorer import boosting
from explorer.settings import Settings, applies, export_name
from explorer.state import State

PARAMS = dict(loss="log_loss", n_rounds=100, learning_rate=0.1, max_depth=3)


def test_caption_lists_every_setting_that_applies():
    plain = Settings.of(dict(PARAMS, max_leaves=8, subsample=0.5, min_samples_leaf=5,
                             leaf="line_search", random_state=7))
    assert plain.caption("moons: 320 training points") == (
        "moons: 320 training points · log-loss, M = 100, ν = 0.1, depth ≤ 3, ≤ 8 leaves, "
        "min 5 per leaf, subsample 0.5, line-search leaves, seed 7")
    hessian = Settings.of(dict(PARAMS, split="hessian", reg_lambda=2.5, gamma=0.3,
                               min_child_weight=0.5))
    assert hessian.caption("d") == (
        "d · log-loss, M = 100, ν = 0.1, depth ≤ 3, second-order trees (λ = 2.5, γ = 0.3, "
        "min child weight 0.5), seed 0")


@pytest.mark.parametrize("params, slug", [
    ({}, "moons400_log-loss_M100_lr0.1_d3_m4"),
    (dict(max_leaves=8, subsample=0.5, leaf="mean"),
     "moons400_log-loss_M100_lr0.1_d3_L8_s0.5_mean_m4"),
    (dict(split="hessian", reg_lambda=2.0), "moons400_log-loss_M100_lr0.1_d3_hessian_lam2_m4"),
    (dict(split="hessian", gamma=0.5), "moons400_log-loss_M100_lr0.1_d3_hessian_lam1_g0.5_m4"),
    (dict(loss="squared_error"), "moons400_squared-error_M100_lr0.1_d3_m4"),
])
def test_slug(params, slug):
    assert Settings.of(dict(PARAMS, **params)).slug("moons400", 4) == slug


@pytest.mark.parametrize("mapping", [
    {}, {"round": 3, "rounds": 20}, {"leafrule": "line-search", "leaves": 8, "subsample": 0.7},
    {"split": "hessian", "lam": 2.0, "gamma": 0.4, "leaves": 8}, {"data": "sine", "n": 100},
    {"data": "upload", "loss": "exponential", "lr": 0.35},
])
def test_slug_and_caption_of_a_state_are_the_states(mapping):
    """What State.slug writes today, from the State's own fit parameters."""
    state = State.from_mapping(mapping)
    data = "upload" if state.is_upload else f"{state.data}{state.n}"
    assert Settings.of(state.fit_params()).slug(data, state.round) == state.slug()


def test_params_line_and_file_name():
    settings = Settings.of(dict(PARAMS, max_leaves=8, subsample=0.5))
    assert settings.params_line() == \
        "log-loss, M = 100, ν = 0.1, depth ≤ 3, ≤ 8 leaves, subsample 0.5"
    assert settings.file_name("moons400", "tree", [0, 1], "SVG") == \
        "boosting_tree_moons400_log-loss_M100_lr0.1_d3_L8_s0.5_m0-1.svg"
    assert export_name("moons400", dict(PARAMS, max_leaves=8, subsample=0.5), "tree", [0, 1],
                       "SVG") == settings.file_name("moons400", "tree", [0, 1], "SVG")


def test_which_parameters_apply_to_which_split_rule():
    for name in ("reg_lambda", "gamma", "min_child_weight"):
        assert applies(name, "hessian") and not applies(name, "squared_error")
    for name in ("max_leaves", "min_samples_leaf", "subsample", "leaf"):
        assert applies(name, "squared_error") and not applies(name, "hessian")
    for name in ("loss", "n_rounds", "learning_rate", "max_depth", "random_state"):
        assert applies(name, "hessian") and applies(name, "squared_error")
    with pytest.raises(ValueError, match="split must be one of"):
        applies("gamma", "exact")


@pytest.mark.parametrize("split", ["squared_error", "hessian", "histogram"])
def test_the_engine_refuses_what_does_not_apply(split, warm_engine):
    """The engine's check and applies() read one table: every parameter that does not
    apply is refused when set."""
    X = [[0.0, 1.0], [1.0, 0.0], [0.5, 0.5], [1.0, 1.0]]
    y = [0, 1, 0, 1]
    changed = dict(max_leaves=4, min_samples_leaf=2, min_samples_split=3, subsample=0.5,
                   leaf="mean", reg_lambda=2.0, gamma=0.5, min_child_weight=2.0)
    for name, value in changed.items():
        if not applies(name, split):
            with pytest.raises(ValueError, match=f"{name}=.* has no effect with split='{split}'"):
                boosting.fit(X, y, n_rounds=1, split=split, **{name: value})
