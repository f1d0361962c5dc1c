"""The split rules and the parameters each one uses, with its defaults: one table.

``explorer.fit`` takes every parameter of every rule; each rule uses some of them:

* "squared_error": scikit-learn's GradientBoosting trees (least squares on the residuals);
* "hessian": xgboost's exact second-order trees;
* "histogram": scikit-learn's HistGradientBoosting trees (binned features, best-first).

A parameter a rule uses takes that rule's default when it is left out (so that
``fit(X, y, split="histogram")`` is ``HistGradientBoostingClassifier()``'s model), and
``fit`` refuses a parameter the rule does not use unless it equals its ``UNUSED`` value
(a silently ignored option would mislead). The app disables the controls a rule does not
use and leaves them out of its fits and links (``explorer.settings.applies``); every
parameter has a control in the app but those in ``ENGINE_ONLY``. ``LIBRARIES`` holds the
libraries' own defaults, which the app's "Library defaults" writes as ordinary settings.

Plain Python: no numba, no numpy; the app's state reads this table without loading the
engine.
"""

SPLITS = ("squared_error", "hessian", "histogram")


class _RuleDefault:
    """The default of fit's rule-dependent parameters: "this split rule's default"."""

    def __repr__(self):
        return "RULE_DEFAULT"


RULE_DEFAULT = _RuleDefault()
DEFAULT_SPLIT = "squared_error"

# Parameters every rule uses, with their defaults.
COMMON = {
    "loss": "log_loss",
    "n_rounds": 100,
    "learning_rate": 0.1,
    "random_state": 0,
    "split": DEFAULT_SPLIT,
}

# Per rule: the other parameters it uses, with its own defaults.
USES = {
    "squared_error": {"max_depth": 3, "max_leaves": None, "min_samples_leaf": 1,
                      "min_samples_split": 2, "subsample": 1.0, "leaf": "newton"},
    "hessian": {"max_depth": 3, "reg_lambda": 1.0, "gamma": 0.0, "min_child_weight": 1.0},
    # HistGradientBoosting's defaults: max_leaf_nodes 31, max_depth None,
    # min_samples_leaf 20, l2_regularization 0, max_bins 255
    "histogram": {"max_depth": None, "max_leaves": 31, "min_samples_leaf": 20,
                  "reg_lambda": 0.0, "max_bins": 255},
}

# The value a parameter holds when its rule does not use it; fit accepts only this then.
UNUSED = {"max_leaves": None, "min_samples_leaf": 1, "min_samples_split": 2,
          "subsample": 1.0, "leaf": "newton", "reg_lambda": 1.0, "gamma": 0.0,
          "min_child_weight": 1.0, "max_bins": 255}

# Every parameter of fit a rule may use, in fit's order
PARAMS = tuple(COMMON) + tuple(dict.fromkeys(name for rule in SPLITS for name in USES[rule]))

# Parameters of fit that the app gives no control: scikit-learn's min_samples_split (2)
# never binds before min_samples_leaf does at the app's settings (a node of fewer than
# 2 min_samples_leaf points is a leaf anyway), so a slider would teach nothing; the
# engine keeps it for parity with GradientBoosting.
ENGINE_ONLY = frozenset({"min_samples_split"})

# "Library defaults": each library's own defaults as fit's parameters, for the rule that
# reproduces it (every parameter a rule uses and a library sets; the app writes them as
# ordinary settings). XGBoost's learning rate (eta) is 0.3 and its depth 6; LightGBM's
# defaults (num_leaves 31, min_child_samples 20, lambda_l2 0, max_bin 255, no depth
# limit, learning_rate 0.1) are HistGradientBoosting's.
LIBRARIES = {
    "gradientboosting": ("scikit-learn GradientBoosting", "squared_error",
                         dict(n_rounds=100, learning_rate=0.1, max_depth=3, max_leaves=None,
                              min_samples_leaf=1, subsample=1.0, leaf="newton")),
    "histgradientboosting": ("HistGradientBoosting ≈ LightGBM", "histogram",
                             dict(n_rounds=100, learning_rate=0.1, max_depth=None,
                                  max_leaves=31, min_samples_leaf=20, reg_lambda=0.0,
                                  max_bins=255)),
    "xgboost": ("XGBoost (exact)", "hessian",
                dict(n_rounds=100, learning_rate=0.3, max_depth=6, reg_lambda=1.0,
                     gamma=0.0, min_child_weight=1.0)),
}
# What a library's own default does that the app cannot reproduce, said beside its choice
LIBRARY_CAVEATS = {
    "gradientboosting": "GradientBoostingClassifier(): every setting reproduced exactly "
                        "(n_estimators 100, learning_rate 0.1, max_depth 3, "
                        "min_samples_leaf 1).",
    "histgradientboosting": "HistGradientBoostingClassifier() exactly (with its early "
                            "stopping off: it is on by default above 10,000 samples). "
                            "LightGBM's defaults are the same numbers, but LightGBM finds "
                            "its bin boundaries its own way (at least 3 points a bin, "
                            "min_data_in_bin), which the explorer does not reproduce: its "
                            "bins are HistGradientBoosting's.",
    "xgboost": "XGBoost's exact method (tree_method=\"exact\"): eta 0.3, max_depth 6, "
               "lambda 1, gamma 0, min_child_weight 1, 100 rounds as XGBClassifier's "
               "n_estimators (xgb.train's num_boost_round defaults to 10). XGBoost's own "
               "default is tree_method=\"hist\" (256 quantile bins, max_bin): not "
               "reproduced here.",
}


def check_split(split):
    """``split`` itself, if it names a rule; a ValueError naming the rules otherwise."""
    if split not in USES:
        raise ValueError(f"split must be one of {list(SPLITS)}; got {split!r}.")
    return split


def uses(param, split):
    """Whether the split rule ``split`` uses ``fit``'s parameter ``param``."""
    check_split(split)
    return param in COMMON or param in USES[split]


def resolve(split, **params):
    """``params`` with each RULE_DEFAULT replaced by its default under the rule ``split``."""
    table = defaults(split)
    return {name: table[name] if value is RULE_DEFAULT else value
            for name, value in params.items()}


def defaults(split=DEFAULT_SPLIT):
    """Every parameter's default under the rule ``split``: the rule's own defaults for what
    it uses, the ``UNUSED`` values for the rest."""
    check_split(split)
    return {**COMMON, **UNUSED, **USES[split], "split": split}


def default(param, split=DEFAULT_SPLIT):
    """One parameter's default under the rule ``split``."""
    return defaults(split)[param]
