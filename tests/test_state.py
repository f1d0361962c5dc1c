"""explorer.state: the one list of what a user can set, and the URL it reads and writes."""

from __future__ import annotations

from explorer import fit
from explorer.data import make_toy
from explorer.state import BY_KEY, FIELDS, State


def test_state_defaults_give_an_empty_query():
    assert State.from_mapping({}) == State()
    assert State().to_query() == {}


def test_state_round_trips_through_the_query():
    s = State(data="circles", n=250, noise=0.1, lr=0.3, loss="exponential", leaves=8,
              subsample=0.7, rounds=40, round=12, sample=5, leaf=3, showvalid=True)
    q = s.to_query()
    assert q["data"] == "circles" and q["round"] == "12" and q["lr"] == "0.3"
    assert State.from_mapping(q) == s


def test_state_refuses_bad_values_and_clamps_the_round():
    s = State.from_mapping({"data": "<script>", "n": "1e9", "lr": "nan", "rounds": "20",
                            "round": "75", "leaves": "7", "showvalid": "maybe",
                            "depth": ["2", "4"]})
    assert s.data == "moons" and s.n == 400 and s.lr == 0.1 and s.leaves == 0
    assert s.rounds == 20 and s.round == 20 and s.showvalid is False and s.depth == 4
    assert s.with_round(-3).round == 0 and s.with_round(99).round == 20


def test_fields_declare_widget_ranges_containing_their_defaults():
    for f in FIELDS:
        assert f.parse(f.default) == f.default
        assert f.parse(f.format(f.default)) == f.default


def test_fit_params_reach_the_engine(warm_engine):
    s = State(loss="exponential", rounds=5, lr=0.2, depth=2, leaves=4, minleaf=3,
              subsample=0.5, seed=7)
    p = s.fit_params()
    assert p == dict(loss="exponential", n_rounds=5, learning_rate=0.2, max_depth=2,
                     max_leaves=4, min_samples_leaf=3, subsample=0.5, random_state=7)
    ds = make_toy(**s.toy_params())
    tr = fit(ds.X, ds.y, **p)
    assert tr.params["max_leaves"] == 4 and tr.n_rounds == 5
    assert "exponential" in s.slug() and s.slug().endswith("_m0")


def test_present_is_a_url_field_that_round_trips():
    f = BY_KEY["present"]
    assert f.kind is bool and f.default is False
    assert State.from_mapping({"present": "1"}).present is True
    s = State(present=True)
    assert s.to_query() == {"present": "true"} and State.from_mapping(s.to_query()) == s
    assert "present" not in State().to_query()  # off by default: links stay short


def test_pairs_change_only_what_they_name():
    state = State(lr=0.3, depth=2)
    (_, a), (_, b), flip = replace_pair(state, "depth")
    assert (a.depth, b.depth, a.lr, b.lr, flip) == (1, 3, 0.3, 0.3, 0.0)
    (name_a, a), (name_b, b), flip = replace_pair(state, "outliers")
    assert (a.loss, b.loss, flip) == ("log-loss", "exponential", 0.1)
    assert (name_a, name_b) == ("log-loss", "exponential loss")


def replace_pair(state, pair):
    from dataclasses import replace

    return replace(state, pair=pair).compared()


def test_a_regression_link_fixes_the_task_split_and_pair():
    s = State.from_mapping({"data": "sine", "task": "classification", "split": "hessian",
                            "pair": "outliers"})
    assert s.is_regression and not s.is_hessian and s.pair == "lr"
    assert s.fit_params()["loss"] == "squared_error"
    assert s.loss_name == "squared-error" and "squared-error" in s.slug()
    upload_state = State.from_mapping({"data": "upload", "task": "regression"})
    assert upload_state.is_regression
    assert not State.from_mapping({"data": "moons", "task": "regression"}).is_regression
    assert "newton" not in State().slug()
    assert "_mean" in State(leafrule="mean").slug()
    assert "hessian_lam2" in State(split="hessian", lam=2.0).slug()


def test_the_query_string_is_a_link_that_opens_the_same_state():
    from urllib.parse import parse_qsl
    s = State(data="xor", n=300, noise=0.35, balance=0.3, valid=0.0, loss="exponential",
              rounds=40, lr=0.05, depth=2, subsample=0.6, seed=4, round=33, sample=17,
              present=True)
    link = s.query_string()
    assert "round=33" in link.split("&") and "present=" in link
    assert State.from_mapping(dict(parse_qsl(link))) == s
    assert State.from_mapping(dict(parse_qsl(s.with_round(7).query_string()))).round == 7


def test_the_class_fields_round_trip_and_clamp_to_the_fits_classes():
    s = State.from_query({"cls": "7", "pk": "true", "data": "blobs"})
    assert (s.cls, s.pk) == (7, True)
    assert State.from_query(s.to_query()) == s
    assert s.for_samples(100, 3).cls == 2  # three classes: 0..2
    assert s.for_samples(100).cls == 0  # one tree a round: no class to pick
    assert State.from_query({"cls": "10"}).cls == 0  # at most ten classes: 0..9
