"""The numbers the maths pages show are computed once, in explorer.numbers: each split
rule's best threshold per feature, the two label forms of a leaf's Newton step, and a
sample's residuals (the trace's own)."""

import numpy as np
import pytest
from sklearn.datasets import make_moons

import explorer
from explorer.numbers import leaves, splits, summaries

X, Y = make_moons(300, noise=0.3, random_state=0)


@pytest.mark.parametrize("split", ["squared_error", "hessian"])
def test_best_rows_are_each_rules_argmax(split):
    trace = explorer.fit(X, Y, n_rounds=3, split=split)
    tree = trace.tree(2)
    for node in range(len(tree)):
        scans = splits.scan(trace, 2, node)
        rows = splits.best_rows(scans, ("a", "b"))
        assert [(r["feature"], r["rule"]) for r in rows] == [
            ("a", "squared error"), ("a", "second order"), ("b", "squared error"),
            ("b", "second order")]
        for row, (sc, field) in zip(rows, [(sc, f) for sc in scans
                                           for f in ("squared_error", "hessian")]):
            assert row["chosen by the tree"] == sc["chosen"]
            if len(sc[field]):
                best = int(np.argmax(sc[field]))
                assert sc["best"][field] == best
                assert row["best threshold"] == float(sc["thresholds"][best])
                assert row["best gain"] == float(sc[field][best])
            else:
                assert sc["best"][field] is None
                assert row["best threshold"] is None and row["best gain"] is None


def test_best_rows_of_a_node_without_candidates():
    trace = explorer.fit(X, Y, n_rounds=2, max_depth=8)
    tree = trace.tree(2)
    tiny = [k for k in range(len(tree)) if tree["n"][k] == 1]
    assert tiny, "a depth-8 tree has a leaf of one sample"
    rows = splits.best_rows(splits.scan(trace, 2, tiny[0]), ("a", "b"))
    assert all(r["best threshold"] is None and r["best gain"] is None for r in rows)


@pytest.mark.parametrize("loss", ["log_loss", "exponential"])
def test_forms_of_the_newton_step(loss):
    trace = explorer.fit(X, Y, n_rounds=3, loss=loss)
    for node in summaries.leaves_of(trace, 2):
        story = leaves.leaf_story(trace, 2, int(node))
        f = leaves.forms(story)
        assert f["sum_r"] == story["sum_r"] and f["sum_h"] == story["sum_h"]
        assert f["ratio"] == story["sum_r"] / story["sum_h"]
        if loss == "log_loss":
            assert f["beta"] == story["sum_r_pm"] / story["sum_h_pm"]
            assert f["beta"] == pytest.approx(f["ratio"], rel=1e-9)
            assert f["gap_r"] == abs(story["sum_r"] - story["sum_r_pm"]) < 1e-9
            assert f["gap_h"] == abs(story["sum_h"] - story["sum_h_pm"]) < 1e-9
        else:  # the +-1 form is the log-loss's
            assert f["sum_r_pm"] is f["sum_h_pm"] is f["beta"] is f["gap_r"] is None


def test_forms_with_no_hessian():
    story = dict(sum_r=0.0, sum_h=0.0, sum_r_pm=0.0, sum_h_pm=0.0)
    assert leaves.forms(story)["ratio"] == 0.0 and leaves.forms(story)["beta"] == 0.0


@pytest.mark.parametrize("options", [{}, {"split": "hessian"},
                                     {"loss": "exponential", "subsample": 0.6}])
def test_a_samples_residuals_are_the_traces(options):
    """The ledger's residuals are Trace.residual's, second-order branch included."""
    trace = explorer.fit(X, Y, n_rounds=6, **options)
    for i in (0, 17, 299):
        at_rounds = np.array([trace.residual(m)[i] for m in range(trace.n_rounds + 1)])
        assert np.array_equal(trace.sample_residuals(i), at_rounds)
        ledger = summaries.ledger(trace, i)
        assert np.array_equal(ledger["residual"][1:], at_rounds[:-1])
