"""Points drawn by hand: their text, an edit, the dataset, the CSV, and the link."""

from __future__ import annotations

import numpy as np
import pytest

from explorer import drawn
from explorer.data import DataError
from explorer.state import State
from explorer.upload import load_csv

PIXEL = (0.01, 0.01)  # a pixel's size in data units


def test_text_round_trips_and_rounds_to_two_decimals():
    X = np.array([[0.123, -1.5], [2.0, 0.0049], [-0.5, 1e4]])
    labels = np.array([1.0, 0.0, 1.0])
    text = drawn.text_of(X, labels)
    assert text == "1_0.12_-1.5~0_2_0~1_-0.5_10000"
    back_X, back_labels = drawn.parse(text, "classification")
    np.testing.assert_array_equal(back_X, np.round(X, 2))
    np.testing.assert_array_equal(back_labels, labels)
    assert drawn.text_of(back_X, back_labels) == text
    assert drawn.count(text) == 3 and drawn.count("") == 0


@pytest.mark.parametrize("text, item", [("1_0.5", "1_0.5"), ("1_a_2", "1_a_2"),
                                        ("2_0_0", "2_0_0"), ("1_nan_0", "1_nan_0"),
                                        ("1_0_1e9", "1_0_1e9")])
def test_a_broken_point_is_named(text, item):
    with pytest.raises(DataError, match=f"Drawn point 1 \\('{item}'\\)"):
        drawn.parse(text, "classification")


def test_a_regression_target_may_be_any_number():
    X, y = drawn.parse("2.5_0_0~-1.25_1_1", "regression")
    np.testing.assert_array_equal(y, [2.5, -1.25])


def test_too_many_points_are_refused():
    text = "~".join(["1_0_0"] * (drawn.MAX_POINTS + 1))
    with pytest.raises(DataError, match="at most 1,000 points"):
        drawn.parse(text, "classification")


def test_a_click_adds_a_point_and_a_click_on_it_removes_it():
    text = drawn.edit("", "classification", 0.504, -1.0, PIXEL, 1)
    assert text == "1_0.5_-1"
    text = drawn.edit(text, "classification", 1.0, 1.0, PIXEL, 0)
    assert text == "1_0.5_-1~0_1_1"
    # within 10 pixels of the first point: it goes, whatever the class chosen
    assert drawn.edit(text, "classification", 0.5 + 0.06, -1.0 - 0.06, PIXEL, 0) == "0_1_1"
    # 11 pixels away: a new point
    assert drawn.count(drawn.edit(text, "classification", 0.61, -1.0, PIXEL, 0)) == 3


def test_the_pixel_size_of_each_axis_counts():
    # a plane squeezed along y: 0.2 in y is 4 pixels there
    assert drawn.edit("1_0_0", "classification", 0.0, 0.2, (0.01, 0.05), 1) == ""


def test_the_dataset_says_what_is_missing():
    with pytest.raises(DataError, match="at least 2 of each class, and there are 1 of "
                                        "class 0 and 3 of class 1"):
        drawn.dataset("1_0_0~1_1_0~1_2_0~0_3_0", "classification")
    with pytest.raises(DataError, match="a regression needs at least 3, and none is drawn"):
        drawn.dataset("", "regression")
    ds = drawn.dataset("1_0_0~1_1_0~0_2_0~0_3_0", "classification")
    np.testing.assert_array_equal(ds.y, [1, 1, 0, 0])
    assert ds.classes == ("0", "1") and ds.X.shape == (4, 2)


def test_the_csv_reads_back_as_the_same_points():
    text = "1_0.5_-1~0_1.25_1~1_-2_0.75~0_0_0"
    ds = drawn.dataset(text, "classification")
    back = load_csv(drawn.csv(text, "classification"))
    np.testing.assert_array_equal(back.X, ds.X)
    np.testing.assert_array_equal(back.y, ds.y)
    reg = "2.5_0_0~-1_1_1~0.5_2_2"
    back = load_csv(drawn.csv(reg, "regression"), task="regression")
    np.testing.assert_array_equal(back.y, drawn.dataset(reg, "regression").y)


def test_the_link_holds_the_points_up_to_its_limit():
    small = "~".join(f"1_{k / 100:g}_0" for k in range(drawn.LINK_POINTS))
    assert State(data="draw", pts=small).to_query()["pts"] == small
    assert State.from_query({"data": "draw", "pts": small}).pts == small
    large = small + "~0_9_9~1_8_8"
    query = State(data="draw", pts=large).to_query()
    assert query["pts"] == small + "~more_2" and query["data"] == "draw"
    # opened elsewhere: the link's points, and the two it could not hold are said
    opened = State.from_query(query)
    assert drawn.count(opened.pts) == drawn.LINK_POINTS and drawn.missing(opened.pts) == 2
    assert drawn.lost_note(opened.pts) == (f"2 drawn points could not come back: a link "
                                           f"holds {drawn.LINK_POINTS}")
    assert opened.to_query()["pts"] == query["pts"]  # and its link still says so
    assert drawn.lost_note(large) == drawn.lost_message(large) == ""  # all in memory


def test_a_link_marker_counts_with_the_points_left_out():
    # a link that already lacked points, with more drawn since: both are counted
    text = "~".join(f"0_{k / 100:g}_1" for k in range(drawn.LINK_POINTS + 3)) + "~more_5"
    assert drawn.count(text) == drawn.LINK_POINTS + 3 and drawn.missing(text) == 5
    assert drawn.linked(text).endswith("~more_8")
    assert drawn.count(drawn.linked(text)) == drawn.LINK_POINTS
    X, labels = drawn.parse(text, "classification")  # the marker is not a point
    assert len(X) == len(labels) == drawn.LINK_POINTS + 3
    message = drawn.lost_message(text)
    assert message.startswith("5 drawn points could not come back") and "restarted" in message
    # an edit starts the session's own set: what it has, no marker
    edited = drawn.edit(text, "classification", 3.0, 3.0, PIXEL, 1.0)
    assert drawn.missing(edited) == 0 and drawn.count(edited) == drawn.LINK_POINTS + 4


@pytest.mark.parametrize("marker", ["more_0", "more_x", "more_-3", "more_1001", "more_٣",
                                    "more_" + "9" * 5000, "more_1_2"])
def test_a_marker_that_is_not_a_count_is_named_as_a_broken_point(marker):
    with pytest.raises(DataError, match="Drawn point 2"):
        drawn.parse("1_0_0~" + marker, "classification")
    assert drawn.missing("1_0_0~" + marker) == 0
