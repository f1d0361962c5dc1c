"""explorer.numbers.splits: the split scan peaks at the split the tree chose."""

import numpy as np
import pytest

import explorer
from explorer.numbers import splits
from fit_data import MOONS_300

X, Y = MOONS_300


@pytest.mark.parametrize("split", ["squared_error", "hessian"])
def test_split_scan_peaks_at_the_chosen_split(split):
    trace = explorer.fit(X, Y, n_rounds=3, split=split)
    tree = trace.tree(2)
    for node in np.flatnonzero(tree["left"] >= 0):
        features = splits.scan(trace, 2, node)
        gain = "squared_error" if split == "squared_error" else "hessian"
        best = max((s[gain].max(), s["feature"]) for s in features if len(s[gain]))
        chosen = features[tree["feature"][node]]
        assert chosen["chosen"] is not None
        at_choice = chosen[gain][np.argmin(np.abs(chosen["thresholds"] - chosen["chosen"]))]
        assert at_choice == pytest.approx(best[0], rel=1e-6)
        if split == "squared_error":  # the scan's reduction is the recorded improvement, rescaled
            n_root = tree["n"][0]
            assert at_choice / n_root == pytest.approx(tree["improvement"][node], rel=1e-6)
