"""Everything a user can set, declared once, and its mirror in the URL query string.

The explorer has one state: the data (a toy set and its parameters, or an
upload), the fit parameters, the round m, the selected sample and leaf, and a
few view toggles. Each is a :class:`Field` in :data:`FIELDS`: its URL key, its
type, its default and what is allowed. The sidebar's and pages' widgets are
built from these declarations (``explorer.session``), the URL is parsed and
written with them, and :class:`State` is what every page reads. Nothing else
keeps a copy.

Like TensorFlow Playground's ``state.ts``: a value that is missing from the URL
or invalid there falls back to its default, and only values that differ from
their defaults are written, so a link stays short and readable.

This module has no Streamlit in it; it is plain data and parsing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields as dc_fields, replace
from typing import Any, Mapping
from urllib.parse import urlencode

from . import drawn
from .data import CLASSIFICATION_SETS, MULTICLASS_SETS, REGRESSION_SETS
from .lessons import LESSONS
from . import rules
from .settings import Settings, applies, toy_name

UPLOAD = "upload"
DRAW = "draw"  # points drawn by hand on the Model page, kept in the field pts
TASKS = ("classification", "regression")
# Each task's toy sets: a toy set decides the task (State.from_mapping).
TOY_SETS = {"classification": CLASSIFICATION_SETS, "regression": REGRESSION_SETS}
DATASETS = tuple(CLASSIFICATION_SETS) + tuple(REGRESSION_SETS) + (UPLOAD, DRAW)
LOSSES = ("log-loss", "exponential")  # as shown and written in the URL (classification)
ENGINE_LOSS = {"log-loss": "log_loss", "exponential": "exponential"}
REGRESSION_LOSS = "squared-error"  # the one loss of regression
SPLITS = ("squared-error", "hessian", "histogram")  # as shown and written in the URL
ENGINE_SPLIT = {"squared-error": "squared_error", "hessian": "hessian", "histogram": "histogram"}
LEAF_RULES = ("newton", "mean", "exact", "line-search")
# Ready-made pairs for the Compare page: a title, each side's name and what it changes
# in the user's setting, and the share of training labels flipped (the outliers the
# exponential loss is sensitive to), or "deepest": the one point deepest in its class. The last two are about classification's losses
# (REGRESSION_PAIRS lists the pairs a regression offers).
COMPARISONS = {
    "lr": ("learning rate 1.0 against 0.1", ("ν = 1.0", dict(lr=1.0)), ("ν = 0.1", dict(lr=0.1)),
           0.0),
    "depth": ("depth 1 against depth 3", ("depth 1", dict(depth=1)), ("depth 3", dict(depth=3)),
              0.0),
    "leafrule": ("Newton leaves against mean leaves", ("Newton leaves", dict(leafrule="newton")),
                 ("mean leaves", dict(leafrule="mean")), 0.0),
    "split": ("squared-error splits against second-order (hessian) splits",
              ("squared-error splits", dict(split="squared-error", loss="log-loss")),
              ("hessian splits", dict(split="hessian", loss="log-loss")), 0.0),
    "outliers": ("log-loss against exponential loss, 10% of labels flipped",
                 ("log-loss", dict(loss="log-loss", split="squared-error")),
                 ("exponential loss", dict(loss="exponential", split="squared-error")), 0.1),
    "outlier": ("log-loss against exponential loss, one deep point's label flipped",
                ("log-loss", dict(loss="log-loss", split="squared-error")),
                ("exponential loss", dict(loss="exponential", split="squared-error")),
                "deepest"),
}
PAIRS = tuple(COMPARISONS)
REGRESSION_PAIRS = ("lr", "depth", "leafrule")
ENGINE_LEAF = {"newton": "newton", "mean": "mean", "exact": "exact",
               "line-search": "line_search"}
LEAF_CHOICES = (0, 2, 3, 4, 5, 6, 8, 10, 12, 16, 24, 31, 32, 48, 64)
MAX_ROUNDS = 500  # the app's limit; the engine allows more, the grid cache would not


@dataclass(frozen=True)
class Field:
    """One user-settable value: URL key, type, default and allowed values."""

    key: str
    kind: type  # int, float, str or bool
    default: Any
    label: str
    group: str  # "data", "fit" or "view"
    low: float | None = None
    high: float | None = None
    step: float | None = None
    choices: tuple | None = None
    help: str = ""
    param: str = ""  # the explorer.fit parameter it sets, for the fit fields
    # (split rule as in the URL, default) where a rule has its own default (rules.USES)
    by_rule: tuple = ()

    def default_for(self, split: str | None) -> Any:
        """The default under the split rule ``split`` (URL spelling); ``default`` if it has
        none of its own."""
        return dict(self.by_rule).get(split, self.default)

    def parse(self, value: Any, split: str | None = None) -> Any:
        """The value as this field's type if it is allowed, else the default (the split
        rule's own default when it has one)."""
        if split is not None and self.by_rule:
            return replace(self, default=self.default_for(split), by_rule=()).parse(value)
        if value is None:
            return self.default
        if isinstance(value, (list, tuple)) and not isinstance(value, str):
            if not value:
                return self.default
            value = value[-1]
        try:
            if self.kind is bool:
                if isinstance(value, str):
                    low = value.strip().lower()
                    if low not in ("true", "false", "1", "0"):
                        return self.default
                    value = low in ("true", "1")
                else:
                    value = bool(value)
            elif self.kind is int:
                as_float = float(value)
                if not math.isfinite(as_float) or as_float != int(as_float):
                    return self.default
                value = int(as_float)
            elif self.kind is float:
                value = float(value)
                if not math.isfinite(value):
                    return self.default
            else:
                value = str(value)
        except (TypeError, ValueError, OverflowError):
            return self.default
        if self.choices is not None and value not in self.choices:
            return self.default
        if self.low is not None and value < self.low:
            return self.default
        if self.high is not None and value > self.high:
            return self.default
        return value

    def format(self, value: Any) -> str:
        """The value as written in the URL."""
        if self.kind is bool:
            return "true" if value else "false"
        if self.kind is float:
            return f"{value:g}"
        return str(value)


FIELDS: tuple[Field, ...] = (
    # --- data ---
    Field("task", str, "classification", "Task", "data", choices=TASKS,
          help="What the upload's label column (or a drawn point's label) holds. "
               "Classification: two classes (log-loss or exponential loss) or three to ten "
               "(the multinomial log-loss, one tree per class and round). Regression: a "
               "number to predict from one or two inputs, squared error. (A toy set decides "
               "it.)"),
    Field("data", str, "moons", "Dataset", "data", choices=DATASETS,
          help=f"A toy set, your own CSV file (upload), or points you draw by clicking on "
               f"the Model page (draw). Classification (two classes; three for "
               f"{', '.join(MULTICLASS_SETS)}): {', '.join(CLASSIFICATION_SETS)}. "
               f"Regression (a number): {', '.join(REGRESSION_SETS)}."),
    Field("n", int, 400, "Points", "data", 20, 10_000, 10,
          help="Number of points, training and validation together."),
    Field("noise", float, 0.25, "Noise", "data", 0.0, 1.0, 0.05,
          help="Standard deviation of the Gaussian noise: added to both inputs "
               "(classification) or to the target (regression)."),
    Field("balance", float, 0.5, "Share of class 1", "data", 0.05, 0.95, 0.05,
          help="Fraction of the points in class 1 (classification)."),
    Field("points", int, 0, "Points used", "data", 0, 1_000_000, 1,
          help="How many of the file's points are fitted: a random sample (stratified by "
               "class, seeded by the data seed) drawn before the validation split. 0 = as "
               "many as this server fits for the rounds chosen."),
    Field("pts", str, "", "Drawn points", "data",
          help="The points drawn on the Model page: label_x1_x2 per point, joined by ~. "
               f"The link holds the first {drawn.LINK_POINTS} and says how many more "
               "were drawn."),
    Field("dseed", int, 0, "Data seed", "data", 0, 9999, 1,
          help="Seed of the points and of the train/validation split."),
    Field("valid", float, 0.2, "Validation share", "data", 0.0, 0.5, 0.05,
          help="Fraction of points held out to measure the validation loss (0 = none)."),
    # --- fit ---
    Field("loss", str, "log-loss", "Loss", "fit", choices=LOSSES,
          help="Log-loss (logistic regression's loss) or exponential (AdaBoost's). "
               "scikit-learn: `loss=\"log_loss\"` (both GradientBoosting and "
               "HistGradientBoosting) or `\"exponential\"` (GradientBoosting only). "
               "XGBoost: `objective=\"binary:logistic\"` (`\"multi:softprob\"` with K ≥ 3 "
               "classes). LightGBM: `objective=\"binary\"` (`\"multiclass\"`).",
          param="loss"),
    Field("rounds", int, 100, "Rounds M (n_estimators)", "fit", 1, MAX_ROUNDS, 1,
          help="Number of boosting rounds: one tree each (with K ≥ 3 classes, K trees a "
               "round). scikit-learn: `n_estimators` (GradientBoosting, 100), `max_iter` "
               "(HistGradientBoosting, 100). XGBoost: `n_estimators` (XGBClassifier, 100) "
               "or `num_boost_round` (xgb.train, 10). LightGBM: `n_estimators` / "
               "`num_iterations` / `num_boost_round` (100). The same count everywhere; "
               "HistGradientBoosting and LightGBM may stop early (the explorer never does).",
          param="n_rounds"),
    Field("lr", float, 0.1, "Learning rate ν (learning_rate, eta)", "fit", 0.01, 1.0, 0.01,
          help="Each tree's step is multiplied by ν: F_m = F_(m-1) + ν · tree m. "
               "scikit-learn and LightGBM: `learning_rate` (0.1; LightGBM's alias "
               "`shrinkage_rate`). XGBoost: `eta` / `learning_rate` (0.3). The same "
               "meaning in all of them.",
          param="learning_rate"),
    Field("depth", int, 3, "Max depth (max_depth; 0 = no limit)", "fit", 0, 8, 1,
          help="Depth of each tree: edges from the root to the deepest leaf. `max_depth` in "
               "every library: GradientBoosting 3, HistGradientBoosting None (no limit), "
               "XGBoost 6, LightGBM -1 (no limit). 0 = no limit (not for second-order "
               "trees: XGBoost's exact method needs a depth).",
          param="max_depth", by_rule=(("histogram", 0),)),
    Field("leaves", int, 0, "Max leaves (max_leaf_nodes; 0 = no limit)", "fit",
          choices=LEAF_CHOICES,
          help="0 = no limit: trees grow depth-first. Otherwise best-first (the split that "
               "gains most goes first) up to this many leaves. scikit-learn: "
               "`max_leaf_nodes` (GradientBoosting None: depth-first; HistGradientBoosting "
               "31: always best-first). LightGBM: `num_leaves` (31; always leaf-wise, it "
               "has no 'no limit'). XGBoost: `max_leaves` (0), only with "
               "`grow_policy=\"lossguide\"` on its hist method.",
          param="max_leaves", by_rule=(("histogram", 31),)),
    Field("minleaf", int, 1, "Min samples per leaf (min_samples_leaf)", "fit", 1, 200, 1,
          help="A split must leave at least this many training points on each side. "
               "scikit-learn: `min_samples_leaf` (GradientBoosting 1, HistGradientBoosting "
               "20). LightGBM: `min_child_samples` / `min_data_in_leaf` (20), the same "
               "count. XGBoost has none: its `min_child_weight` bounds a hessian sum, not a "
               "count.",
          by_rule=(("histogram", 20),),
          param="min_samples_leaf"),
    Field("subsample", float, 1.0, "Subsample", "fit", 0.1, 1.0, 0.05,
          help="Fraction of the training points each tree sees, drawn without replacement "
               "(stochastic gradient boosting). scikit-learn GradientBoosting: `subsample` "
               "(1.0). XGBoost: `subsample` (1). LightGBM: `bagging_fraction` / `subsample` "
               "with `bagging_freq` > 0. Reproduced for GradientBoosting's trees only.",
          param="subsample"),
    Field("seed", int, 0, "Fit seed (random_state)", "fit", 0, 9999, 1,
          help="random_state: the order in which features are tried, and the subsamples. "
               "scikit-learn: `random_state`; XGBoost and LightGBM: `seed` / "
               "`random_state`.",
          param="random_state"),
    Field("split", str, "squared-error", "Split rule", "fit", choices=SPLITS,
          help="squared-error: scikit-learn's GradientBoosting trees (least squares on the "
               "residuals; every threshold between two values). hessian: XGBoost's exact "
               "method (`tree_method=\"exact\"`), the second-order gain G²/(H + λ) "
               "(log-loss only). histogram: binned features and gradient histograms, grown "
               "best-first (scikit-learn's HistGradientBoosting; LightGBM grows the same "
               "way). Changing it moves each setting still at the old rule's default to "
               "the new rule's; a setting you changed keeps its value.",
          param="split"),
    Field("leafrule", str, "newton", "Leaf rule", "fit", choices=LEAF_RULES,
          help="newton: one Newton step Σr/Σh (GradientBoosting's). mean: the mean "
               "residual (a gradient step). exact: the leaf's own loss minimised. "
               "line-search: mean leaves and one step ρ_m for the whole tree (Friedman's "
               "original). No library has a parameter for it. Second-order and histogram "
               "trees use −G/(H + λ).",
          param="leaf"),
    Field("lam", float, 1.0, "λ (reg_lambda)", "fit", 0.0, 10.0, 0.1,
          help="L2 penalty on the leaf weights: w = −G/(H + λ). XGBoost: `reg_lambda` / "
               "`lambda` (1). HistGradientBoosting: `l2_regularization` (0). LightGBM: "
               "`lambda_l2` / `reg_lambda` (0). The same λ in all three: the gain is "
               "G_L²/(H_L + λ) + G_R²/(H_R + λ) − G²/(H + λ) in their code, without the "
               "½ of XGBoost's documented formula. Second-order and histogram trees.",
          by_rule=(("histogram", 0.0),),
          param="reg_lambda"),
    Field("gamma", float, 0.0, "γ (gamma, min split loss)", "fit", 0.0, 10.0, 0.1,
          help="A split must gain more than γ (XGBoost prunes it afterwards otherwise). "
               "XGBoost: `gamma` / `min_split_loss` (0), compared with the gain as its code "
               "computes it, without the ½ of its documented formula: twice the documented "
               "gain must exceed γ. LightGBM: `min_split_gain` / `min_gain_to_split` (0). "
               "Second-order trees only.",
          param="gamma"),
    Field("mcw", float, 1.0, "Min child weight (min_child_weight)", "fit", 0.0, 20.0, 0.1,
          help="Each child needs a hessian sum H of at least this (with the log-loss, "
               "Σp(1 − p): a point near p = ½ weighs ¼). XGBoost: `min_child_weight` (1). "
               "LightGBM: `min_sum_hessian_in_leaf` / `min_child_weight` (0.001). "
               "Second-order trees only.",
          param="min_child_weight"),
    Field("bins", int, 255, "Max bins (max_bins)", "fit", 2, 255, 1,
          help="Each feature is cut into at most this many bins; splits fall on bin "
               "boundaries. HistGradientBoosting: `max_bins` (255, at most 255: one more "
               "bin is kept for missing values). LightGBM: `max_bin` (255), with "
               "boundaries of its own. XGBoost: `max_bin` (256) with `tree_method=\"hist\"`, "
               "from a quantile sketch. Histogram trees only.",
          param="max_bins"),
    # --- view ---
    Field("round", int, 0, "Round m", "view", 0, MAX_ROUNDS, 1,
          help="Round 0 is the constant f0; round m adds tree m."),
    Field("sample", int, 0, "Sample", "view", 0, 50_000, 1,
          help="The training point whose ledger is shown."),
    Field("leaf", int, -1, "Leaf", "view", -1, 1_000_000, 1,
          help="Node id of the selected leaf of tree m; -1 follows the selected sample."),
    Field("showvalid", bool, False, "Show validation points", "view",
          help="Hollow diamonds: points held out of the fit."),
    Field("cls", int, 0, "Class k", "view", 0, 9, 1,
          help="With three classes or more, each round has one tree per class: the class "
               "whose residuals y_k − p_k and tree are shown."),
    Field("pk", bool, False, "Map p_k of class k", "view",
          help="With three classes or more: the map shows the probability of class k "
               "alone, instead of the most probable class everywhere."),
    Field("logscale", bool, False, "Log scale (loss)", "view",
          help="The loss axis of the curves on a log scale: a training loss near 0 and the "
               "gap between training and validation stay visible."),
    Field("pair", str, "lr", "Comparison", "view", choices=PAIRS,
          help="Each side is your setting from the sidebar, changed as the pair says."),
    Field("sweep", str, "", "Sweep", "view",
          help="The Sweep page's first setting and its values, as setting:value,value "
               "(lr:0.05,0.1,0.2): one fit per value, the other settings from the sidebar."),
    Field("sweep2", str, "", "Second sweep", "view",
          help="The Sweep page's second setting (depth:1,3,6): one fit per pair of values."),
    Field("lesson", str, "", "Lesson", "view", choices=("",) + tuple(LESSONS),
          help="A ready-made lesson: its settings, and a caption with the fit's numbers."),
    Field("present", bool, False, "Presenter mode", "view",
          help="For a projector: hides the controls, enlarges type and markers, and uses "
               "the light print theme in every chart."),
)

BY_KEY: dict[str, Field] = {f.key: f for f in FIELDS}
KEYS: tuple[str, ...] = tuple(BY_KEY)

# The split rules as the page names them
RULE_NAMES = {"squared-error": "Squared-error trees", "hessian": "Second-order trees",
              "histogram": "Histogram trees"}
# Whose defaults each rule's own defaults are
RULE_SOURCES = {"squared-error": "scikit-learn GradientBoosting's defaults",
                "hessian": "the explorer's defaults; XGBoost's own, depth 6 and η 0.3, "
                           "are under Library defaults",
                "histogram": "HistGradientBoosting's defaults"}

# Why a split rule does not use a fit setting: said in its control's help and under the
# controls, for every rule that leaves a setting out (rules.USES decides which).
WHY_UNUSED = {
    ("leafrule", "hessian"): "second-order trees take XGBoost's leaf weight −G/(H + λ)",
    ("leafrule", "histogram"): "histogram trees take HistGradientBoosting's leaf value "
                               "−G/(H + λ), as LightGBM does",
    ("leaves", "hessian"): "XGBoost's exact method grows level by level to max_depth (its "
                           "max_leaves needs the hist method and grow_policy=\"lossguide\")",
    ("minleaf", "hessian"): "XGBoost counts no points per leaf: min child weight, a "
                            "hessian sum, does that job",
    ("subsample", "hessian"): "XGBoost's sampling cannot be reproduced bit for bit",
    ("subsample", "histogram"): "HistGradientBoosting has no subsample; XGBoost's sampling "
                                "cannot be reproduced bit for bit",
    ("lam", "squared-error"): "GradientBoosting has no L2 penalty: its leaves are the leaf "
                              "rule's step, Σr/Σh for Newton's",
    ("gamma", "squared-error"): "GradientBoosting's nearest, min_impurity_decrease, bounds "
                                "an impurity decrease, not the gain G²/(H + λ)",
    ("gamma", "histogram"): "HistGradientBoosting has no such parameter (its grower's "
                            "min_gain_to_split is fixed at 0); LightGBM's min_split_gain is "
                            "this γ",
    ("mcw", "squared-error"): "GradientBoosting bounds points per leaf, not hessian sums",
    ("mcw", "histogram"): "HistGradientBoosting fixes its hessian floor at 0.001 "
                          "(min_hessian_to_split, no parameter), LightGBM's "
                          "min_child_weight default",
    ("bins", "squared-error"): "exact trees try a threshold between every two distinct "
                               "values: there are no bins",
    ("bins", "hessian"): "XGBoost's exact method tries every distinct value (max_bin "
                         "belongs to its hist method)",
}


def why_unused(key: str, split: str) -> str | None:
    """Why the split rule ``split`` (URL spelling) does not use the fit field ``key``, or
    None when it uses it."""
    f = BY_KEY[key]
    if not f.param or applies(f.param, ENGINE_SPLIT[split]):
        return None
    return WHY_UNUSED[key, split]


def describe_value(key: str, value) -> str:
    """A fit setting as the rule's note writes it: "max leaves 31", "no depth limit"."""
    if key == "depth":
        return f"depth {value}" if value else "no depth limit"
    if key == "leaves":
        return f"max leaves {value}" if value else "no leaf limit"
    words = {"rounds": "M = {}", "lr": "ν = {:g}", "minleaf": "min {} per leaf",
             "subsample": "subsample {:g}", "leafrule": "{} leaves", "lam": "λ {:g}",
             "gamma": "γ {:g}", "mcw": "min child weight {:g}", "bins": "{} bins",
             "loss": "{}", "seed": "seed {}"}
    return words[key].format(value)


@dataclass(frozen=True)
class State:
    """The whole user-settable state. Build it with :meth:`from_mapping`."""

    task: str = BY_KEY["task"].default
    data: str = BY_KEY["data"].default
    n: int = BY_KEY["n"].default
    noise: float = BY_KEY["noise"].default
    balance: float = BY_KEY["balance"].default
    points: int = BY_KEY["points"].default
    pts: str = BY_KEY["pts"].default
    dseed: int = BY_KEY["dseed"].default
    valid: float = BY_KEY["valid"].default
    loss: str = BY_KEY["loss"].default
    rounds: int = BY_KEY["rounds"].default
    lr: float = BY_KEY["lr"].default
    depth: int = BY_KEY["depth"].default
    leaves: int = BY_KEY["leaves"].default
    minleaf: int = BY_KEY["minleaf"].default
    subsample: float = BY_KEY["subsample"].default
    seed: int = BY_KEY["seed"].default
    split: str = BY_KEY["split"].default
    leafrule: str = BY_KEY["leafrule"].default
    lam: float = BY_KEY["lam"].default  # xgboost's lambda (reg_lambda)
    gamma: float = BY_KEY["gamma"].default
    mcw: float = BY_KEY["mcw"].default
    bins: int = BY_KEY["bins"].default
    round: int = BY_KEY["round"].default
    sample: int = BY_KEY["sample"].default
    leaf: int = BY_KEY["leaf"].default
    showvalid: bool = BY_KEY["showvalid"].default
    cls: int = BY_KEY["cls"].default
    pk: bool = BY_KEY["pk"].default
    logscale: bool = BY_KEY["logscale"].default
    pair: str = BY_KEY["pair"].default
    sweep: str = BY_KEY["sweep"].default
    sweep2: str = BY_KEY["sweep2"].default
    lesson: str = BY_KEY["lesson"].default
    present: bool = BY_KEY["present"].default

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]) -> "State":
        """Parse every field from a mapping (query params, session state); bad values -> defaults.

        The round is clamped to 0..rounds (a link may name a round beyond a
        smaller number of rounds). A toy set decides the task (a link naming
        ``data=sine`` is a regression); a regression has squared-error splits
        and no Compare pair about classification's losses.
        """
        task = BY_KEY["task"].parse(mapping.get("task"))
        data = BY_KEY["data"].parse(mapping.get("data"))
        for toy_task, sets in TOY_SETS.items():
            if data in sets:
                task = toy_task
        split = BY_KEY["split"].parse(mapping.get("split"))
        if task == "regression" and split == "hessian":  # second-order trees: log-loss only
            split = BY_KEY["split"].default
        # the fields whose default depends on the split rule take that rule's default
        values = {f.key: f.parse(mapping.get(f.key), split) for f in FIELDS}
        values.update(task=task, data=data, split=split)
        if split == "hessian" and values["depth"] == 0:  # xgboost's exact trees need a depth
            values["depth"] = BY_KEY["depth"].default_for(split)
        values["round"] = min(values["round"], values["rounds"])
        if task == "regression" and values["pair"] not in REGRESSION_PAIRS:
            values["pair"] = BY_KEY["pair"].default
        state = cls(**values)
        if state.lesson and not state.is_lesson:  # its data or fit settings were left
            state = replace(state, lesson="")
        return state

    @classmethod
    def from_query(cls, query: Mapping[str, Any]) -> "State":
        """The state a link names: its query parameters (a mapping of str or lists of str).

        A link that names a lesson means the lesson's settings, with the fields the link
        also names set over them: ``?lesson=xor`` alone is the whole lesson. If those
        fields depart from the lesson's data or fit settings, it is not the lesson."""
        given = {key: query.get(key) for key in KEYS}
        lesson = LESSONS.get(BY_KEY["lesson"].parse(given["lesson"]))
        if lesson is not None:
            for key, value in lesson.settings.items():
                if given.get(key) is None or given.get(key) == []:
                    given[key] = value
        return cls.from_mapping(given)

    @staticmethod
    def lesson_base(key: str) -> "State | None":
        """The state a lesson sets (its settings over the defaults), or None."""
        lesson = LESSONS.get(key)
        if lesson is None:
            return None
        return State.from_mapping(dict(lesson.settings))

    @staticmethod
    def lesson_keys(key: str) -> tuple[str, ...]:
        """The fields that make a lesson: its data and fit settings, and on the Compare
        page the pair, on the Sweep page the sweep."""
        lesson = LESSONS.get(key)
        page = lesson.page if lesson is not None else ""
        extra = {"compare": ("pair",), "sweep": ("sweep", "sweep2")}.get(page, ())
        return tuple(f.key for f in FIELDS if f.group in ("data", "fit")) + extra

    @property
    def is_lesson(self) -> bool:
        """Whether this state is the lesson it names: every data and fit setting (and on
        the Compare page, the pair) is the lesson's. Stepping, selecting, the class and
        presenter mode do not matter."""
        base = State.lesson_base(self.lesson)
        return base is not None and all(getattr(self, key) == getattr(base, key)
                                        for key in State.lesson_keys(self.lesson))

    def to_query(self) -> dict[str, str]:
        """The fields that differ from their defaults, as URL query parameters."""
        out = {}
        # a lesson's link means its settings: a field set back from the lesson's value to
        # the default (the round, say) is written too
        base = State.lesson_base(self.lesson)
        for f in FIELDS:
            value = getattr(self, f.key)
            if value != f.default_for(self.split) or (
                    base is not None and value != getattr(base, f.key)):
                out[f.key] = f.format(value)
        if drawn.count(self.pts) > drawn.LINK_POINTS:  # too long an address: the page says so
            out["pts"] = drawn.linked(self.pts)  # the first points, and how many more
        return out

    def write_query(self, query) -> None:
        """Make the mutable mapping ``query`` (``st.query_params``) name this state: set what
        differs, remove what is at its default; other parameters are left alone."""
        wanted = self.to_query()
        for key in KEYS:
            if key not in wanted:
                if key in query:
                    del query[key]
            elif query.get(key) != wanted[key]:
                query[key] = wanted[key]

    def query_string(self) -> str:
        return urlencode(self.to_query())

    def changed(self, **values) -> "State":
        """This state with some fields set: each parsed and checked like a URL's value
        (an invalid one falls back to its default), the round clamped to the rounds.

        A new split rule brings its own defaults, as a link naming it does: each fit field
        not set here that is at the old rule's default takes the new rule's; one the user
        changed keeps its value where the new rule allows it."""
        now = {key: getattr(self, key) for key in KEYS}
        state = State.from_mapping({**now, **values})
        if state.split != self.split:
            for f in FIELDS:
                if (f.group == "fit" and f.key not in values
                        and now[f.key] == f.default_for(self.split)):
                    now[f.key] = f.default_for(state.split)
            state = State.from_mapping({**now, **values})
        return state

    def rule_note(self, before: "State") -> str:
        """One line on what a change of split rule from ``before`` changed: "Histogram
        trees: max leaves 31, min 20 per leaf, λ 0 (HistGradientBoosting's defaults)",
        then the settings that kept the user's value; "" when the rule is the same."""
        if self.split == before.split:
            return ""
        fit = [f for f in FIELDS if f.group == "fit" and f.by_rule
               and applies(f.param, ENGINE_SPLIT[self.split])]
        moved = [describe_value(f.key, getattr(self, f.key)) for f in fit
                 if getattr(self, f.key) != getattr(before, f.key)]
        kept = [describe_value(f.key, getattr(self, f.key)) for f in fit
                if getattr(self, f.key) == getattr(before, f.key)
                and getattr(self, f.key) != f.default_for(self.split)]
        line = f"{RULE_NAMES[self.split]}: "
        line += (f"{', '.join(moved)} ({RULE_SOURCES[self.split]})" if moved else
                 f"the same settings ({RULE_SOURCES[self.split]})")
        return line + (f"; yours kept: {', '.join(kept)}." if kept else ".")

    def with_library(self, name: str) -> "State":
        """This state with a library's defaults (:data:`explorer.rules.LIBRARIES`): its
        split rule, its parameters, the log-loss; the data and the view are kept."""
        _, split, params = rules.LIBRARIES[name]
        by_param = {f.param: f for f in FIELDS if f.param}
        values = {"split": next(k for k, v in ENGINE_SPLIT.items() if v == split),
                  "loss": BY_KEY["loss"].default}
        for param, value in params.items():
            f = by_param[param]
            values[f.key] = (value.replace("_", "-") if f.key == "leafrule"
                             else 0 if value is None else value)
        # what the library's rule uses and the preset does not name: the rule's default
        for f in FIELDS:
            if f.group == "fit" and f.key not in values and f.key not in ("seed", "split"):
                values[f.key] = f.default_for(values["split"])
        return self.changed(**values)

    @property
    def library(self) -> str | None:
        """The library (a key of :data:`explorer.rules.LIBRARIES`) whose defaults the fit
        settings are, or None."""
        for name in rules.LIBRARIES:
            other = self.with_library(name)
            if all(getattr(other, f.key) == getattr(self, f.key) for f in FIELDS
                   if f.group == "fit" and f.key != "seed" and why_unused(f.key, self.split)
                   is None):
                return name
        return None

    def with_round(self, m: int) -> "State":
        return replace(self, round=max(0, min(int(m), self.rounds)))

    def for_samples(self, n: int, n_classes: int = 1) -> "State":
        """The selected sample clamped to the n training points of the fit, the class to
        its classes."""
        return replace(self, sample=min(max(self.sample, 0), n - 1),
                       cls=min(max(self.cls, 0), max(n_classes - 1, 0)))

    # --- what the engine and the data module take ---

    @property
    def is_upload(self) -> bool:
        return self.data == UPLOAD

    @property
    def is_drawn(self) -> bool:
        return self.data == DRAW

    @property
    def own_data(self) -> bool:
        """The user's data (a file or drawn points): fitted for this session only."""
        return self.data in (UPLOAD, DRAW)

    @property
    def is_regression(self) -> bool:
        return self.task == "regression"

    @property
    def loss_name(self) -> str:
        """The loss as shown: the chosen one, or squared error for a regression."""
        return REGRESSION_LOSS if self.is_regression else self.loss

    def toy_params(self) -> dict:
        """Arguments of ``explorer.data.make_toy``."""
        return dict(name=self.data, n=self.n, noise=self.noise, balance=self.balance,
                    seed=self.dseed)

    def fit_params(self) -> dict:
        """Keyword arguments of ``explorer.fit`` (without the data): the fit fields that
        apply to the split rule (the sidebar disables the others)."""
        split = ENGINE_SPLIT[self.split]
        values = dict(loss="squared_error" if self.is_regression else ENGINE_LOSS[self.loss],
                      leaf=ENGINE_LEAF[self.leafrule], split=split,
                      max_leaves=self.leaves or None, max_depth=self.depth or None)
        params = {f.param: values.get(f.param, getattr(self, f.key))
                  for f in FIELDS if f.param}
        # the rules are named only when they are not fit's own defaults, so that the
        # default fit's cache key is what it always was
        return {name: value for name, value in params.items() if applies(name, split)
                and not (name in ("split", "leaf") and value == rules.default(name))}

    def compared(self) -> tuple[tuple[str, "State"], tuple[str, "State"], float]:
        """The Compare page's two (name, setting) sides, each this one changed as the pair
        says, and the share of labels flipped."""
        _, (name_a, a), (name_b, b), flip = COMPARISONS[self.pair]
        return (name_a, replace(self, **a)), (name_b, replace(self, **b)), flip

    @property
    def is_hessian(self) -> bool:
        return self.split == "hessian"

    def slug(self) -> str:
        """A short file-name-safe summary of data and parameters, for exported images."""
        data = self.data if self.own_data else toy_name(self.data, self.n)
        return Settings.of(self.fit_params()).slug(data, self.round)


STATE_FIELDS = tuple(f.name for f in dc_fields(State))
assert STATE_FIELDS == KEYS, "State and FIELDS must declare the same keys in the same order"
