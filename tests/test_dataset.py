"""explorer.dataset, without Streamlit: the data one setting makes (toy set, drawn points,
an upload), the points budget and its note (written once), the validation split left out
below 20 points, and the messages of bad data."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from explorer import dataset
from explorer.data import DataError, dataset_hash, make_toy, split
from explorer.dataset import (MAX_POINT_ROUNDS, MIN_VALIDATION_POINTS, NO_FILE, READS, Data,
                              Upload, budget, make, point_rounds, read)
from explorer.state import KEYS, State
from fit_data import random_csv

FOUR = "1_0_0~0_1_1~1_0.5_0.2~0_1_0.1"  # two drawn points of each class
OVER = "is more than this server fits for one setting"


def state(**values) -> State:
    return State.from_mapping(values)




def uploaded(raw: bytes, features=("x1", "x2"), label="label", name="points.csv") -> Upload:
    return Upload(read(raw, name), tuple(features), label)


# --- the points budget ------------------------------------------------------------------


def test_the_histogram_budget_is_larger_than_the_exact_one():
    histogram = point_rounds("histogram")
    assert histogram > MAX_POINT_ROUNDS == point_rounds("squared-error")
    assert point_rounds("hessian") == MAX_POINT_ROUNDS
    assert point_rounds("squared_error") == MAX_POINT_ROUNDS  # the engine's spelling too
    n, rounds = 5000, 500  # over the exact budget, within the histogram one
    assert MAX_POINT_ROUNDS < n * rounds <= histogram


def test_the_budget_counts_every_tree_of_a_round_and_fits_at_least_two_points():
    assert budget(100) == MAX_POINT_ROUNDS // 100
    assert budget(200, 3) == MAX_POINT_ROUNDS // 600
    assert budget(500, 1, "histogram") == point_rounds("histogram") // 500
    assert budget(500, 10**9) == 2


def test_the_budget_note_is_written_once():
    assert inspect.getsource(dataset).count(OVER) == 1


# --- toy sets ---------------------------------------------------------------------------


def test_a_toy_set_is_its_points_split_for_validation():
    made = make(State())
    ds = make_toy("moons", n=400, noise=0.25, balance=0.5, seed=0)
    train, held = split(ds, 0.2, 0)
    assert not made.message and made.notes == () and made.note == ""
    assert len(made.train.y) == 320 and len(made.valid.y) == 80
    np.testing.assert_array_equal(made.train.X, train.X)
    np.testing.assert_array_equal(made.valid.y, held.y)
    # the key the shared fits are cached under: the two hashes, no prefix
    assert made.key == dataset_hash(train) + dataset_hash(held)
    assert made.total == made.used == 0  # no "Points used" control for a toy set


def test_no_validation_share_holds_nothing_out():
    made = make(state(valid=0))
    assert made.valid is None and len(made.train.y) == 400
    assert made.key == dataset_hash(made.train)


def test_too_many_point_rounds_fit_fewer_points_and_say_so():
    n, rounds = 5000, 500
    assert n * rounds > MAX_POINT_ROUNDS
    made = make(state(n=n, rounds=rounds))
    used = MAX_POINT_ROUNDS // rounds
    assert len(made.train.y) + len(made.valid.y) == used
    assert made.note == (f"Using {used:,} points, not {n:,}: {n:,} × {rounds} rounds {OVER} "
                         f"({MAX_POINT_ROUNDS:,} point-rounds).")
    assert made.notes == (made.note,)  # said once in the sidebar
    assert " ".join(made.notes).count(OVER) == 1
    assert round(used * 0.8) == len(made.train.y)


def test_within_the_limit_every_point_is_fitted():
    made = make(state(n=2000, rounds=200))
    assert not made.note and len(made.train.y) + len(made.valid.y) == 2000


def test_the_histogram_budget_fits_more_points_and_says_so():
    histogram = point_rounds("histogram")
    made = make(state(n=5000, rounds=500, split="histogram"))
    assert "Using" not in made.note and len(made.train.y) == round(5000 * 0.8)
    made = make(state(n=10000, rounds=500, split="histogram"))
    used = histogram // 500
    assert f"Using {used:,} points, not 10,000" in made.note
    assert f"({histogram:,} point-rounds)" in made.note


def test_three_trees_a_round_count_three_times_against_the_budget():
    n, rounds = 5000, 200  # within the budget for two classes, not for three
    assert n * rounds <= MAX_POINT_ROUNDS < 3 * n * rounds
    made = make(state(data="blobs", n=n, rounds=rounds))
    used = MAX_POINT_ROUNDS // (3 * rounds)
    assert f"Using {used:,} points, not {n:,}" in made.note and "× 3 trees" in made.note
    assert len(made.train.y) + len(made.valid.y) == used


def test_what_make_reads_is_what_its_cache_is_keyed_on():
    assert set(READS) <= set(KEYS)
    base = state(n=5000, rounds=500)
    others = dict(round=7, lr=0.5, depth=2, sample=3, leaf=4, showvalid=True, seed=9,
                  present=True, pair="depth", loss="exponential", subsample=0.5)
    assert not set(others) & set(READS)
    again = make(base.changed(**others))
    assert again.key == make(base).key and again.notes == make(base).notes
    for key, value in dict(n=600, noise=0.5, dseed=3, valid=0.1, data="circles").items():
        assert make(base.changed(**{key: value})).key != make(base).key, key
    # the rounds and the split rule set the budget
    assert make(base.changed(rounds=100)).key != make(base).key
    assert make(base.changed(split="histogram")).key != make(base).key


# --- drawn points -----------------------------------------------------------------------


def test_drawn_points_are_fitted_whole_below_twenty():
    made = make(state(data="draw", pts=FOUR))
    assert not made.message and made.key.startswith("draw:")
    assert len(made.train.y) == 4 and made.valid is None
    assert made.train.name == "drawn points"
    assert made.split_note == (f"No validation split below {MIN_VALIDATION_POINTS} points: "
                               "every point trains.")
    assert made.notes == (made.split_note,) and not made.note


def test_twenty_drawn_points_are_split():
    pts = "~".join(f"{k % 2}_{k / 10:g}_{(k % 7) / 3:.2f}" for k in range(20))
    made = make(state(data="draw", pts=pts))
    assert made.notes == () and len(made.train.y) == 16 and len(made.valid.y) == 4


def test_drawn_points_that_are_too_few_or_not_points_say_why():
    assert make(state(data="draw")).message.startswith("Click the Model page's plane")
    bad = make(state(data="draw", pts="1_0_0~x_1_1"))
    assert bad.train is None and "Drawn point 2 ('x_1_1') is not a point" in bad.message
    regression = make(state(data="draw", task="regression", pts="1.5_0_0"))
    assert "a regression needs at least 3" in regression.message


# --- uploads ----------------------------------------------------------------------------


def test_no_file_yet_asks_for_one():
    made = make(state(data="upload"))
    assert made.message == NO_FILE and made.train is None and made.notes == ()


def test_an_upload_is_its_chosen_columns_split_for_validation():
    made = make(state(data="upload"), uploaded(random_csv(300), name="mine.csv"))
    assert not made.message and made.key.startswith("upload:")
    assert made.total == made.used == 300 and made.notes == ()
    assert len(made.train.y) == 240 and len(made.valid.y) == 60
    assert made.train.name == "mine.csv" and made.train.feature_names == ("x1", "x2")
    # one feature for a regression; the label column holds the numbers
    one = make(state(data="upload", task="regression"),
               uploaded(random_csv(300), ("x2",), "x1"))
    assert one.train.feature_names == ("x2",) and one.train.target_name == "x1"


def test_a_large_upload_fits_a_sample_and_says_how_many():
    upload = uploaded(random_csv(40_000))
    used = MAX_POINT_ROUNDS // 100  # the default 100 rounds
    made = make(state(data="upload"), upload)
    assert made.total == 40_000 and made.used == used
    assert made.note == f"Using {used:,} of 40,000 points (random sample, seed 0)."
    assert len(made.train.y) + len(made.valid.y) == used
    # fewer points on request, within the budget: nothing about the budget
    asked = MAX_POINT_ROUNDS // 300
    made = make(state(data="upload", points=asked), upload)
    assert made.used == asked and made.note == f"Using {asked:,} of 40,000 points (random " \
        "sample, seed 0)."
    # more rounds: the sample shrinks within the budget, and the note says why, once
    made = make(state(data="upload", points=asked, rounds=500, dseed=4), upload)
    assert made.used == MAX_POINT_ROUNDS // 500
    assert made.note == (f"Using {MAX_POINT_ROUNDS // 500:,} of 40,000 points (random sample, "
                         f"seed 4). {asked:,} × 500 rounds {OVER} "
                         f"({MAX_POINT_ROUNDS:,} point-rounds).")
    assert made.notes == (made.note,) and " ".join(made.notes).count(OVER) == 1


def test_a_hand_worked_table_of_four_points_is_fitted_whole():
    made = make(state(data="upload"), uploaded(b"x1,x2,label\n0,0,0\n1,0,1\n0,1,1\n1,1,0\n"))
    assert len(made.train.y) == 4 and made.valid is None
    assert "No validation split below 20 points" in " ".join(made.notes)


def test_a_file_that_is_not_a_table_is_a_data_error():
    with pytest.raises(DataError, match="The file is empty"):
        read(b"", "empty.csv")
    with pytest.raises(DataError, match="larger than 5 MB"):
        read(b"x1,x2,label\n" + b"0,0,0\n" * (dataset.MAX_UPLOAD_MB * 2**20 // 6 + 1), "big.csv")


def test_a_bad_choice_of_columns_gives_the_message_as_typed():
    name = "<b>odd</b> *name*"
    raw = (f"x1,{name},label\n" + "".join(f"{i},t{i},{i % 2}\n" for i in range(30))).encode()
    made = make(state(data="upload"), uploaded(raw, ("x1", name)))
    assert made.train is None and made.total == 0 and made.notes == ()
    assert name in made.message  # plain text: the app escapes it before any markdown
    one_class = b"x1,x2,label\n" + b"".join(b"%d,%d,a\n" % (i, i * 3 % 7) for i in range(30))
    made = make(state(data="upload"), uploaded(one_class))
    assert made.train is None and made.message


def test_the_sidebar_s_notes_come_in_order():
    assert Data(note="a", split_note="b").notes == ("a", "b")
    assert Data(split_note="b").notes == ("b",) and Data().notes == ()
