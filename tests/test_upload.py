"""Tests for explorer.upload: reading CSV files safely, and refusing bad ones with a message."""

import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.data import DataError
from explorer.upload import load_csv, read_table, to_dataset


def csv(rows, header="a,b,label", sep=","):
    """CSV text with a header (or none) and the given rows of values."""
    lines = ([header] if header else []) + [sep.join(map(str, row)) for row in rows]
    return "\n".join(lines) + "\n"


def points(n=20, labels=("no", "yes")):
    """n rows (x1, x2, label) cycling through the labels."""
    return [(i, 0.5 * i, labels[i % len(labels)]) for i in range(n)]


def refused(content, *words, **kwargs):
    """Assert that load_csv refuses the content with a message holding each word."""
    data = content.encode() if isinstance(content, str) else content
    with pytest.raises(DataError) as info:
        load_csv(data, **kwargs)
    assert isinstance(info.value, ValueError)
    for word in words:
        assert word.lower() in str(info.value).lower()


@pytest.mark.parametrize("sep", [",", ";", "\t"])
def test_separators_are_sniffed(sep):
    ds = load_csv(csv(points(), header=sep.join(["a", "b", "label"]), sep=sep).encode())
    assert ds.feature_names == ("a", "b") and ds.target_name == "label"
    assert ds.X.shape == (20, 2) and ds.X[3].tolist() == [3.0, 1.5]


def test_semicolon_file_with_decimal_commas():
    rows = [(f"{i},5", f"-{i},25", i % 2) for i in range(12)]
    ds = load_csv(csv(rows, header="a;b;c", sep=";").encode())
    assert ds.X[2].tolist() == [2.5, -2.25]


def test_bom_is_not_part_of_the_first_name():
    ds = load_csv(b"\xef\xbb\xbf" + csv(points()).encode("utf-8"))
    assert ds.feature_names[0] == "a"


def test_latin1_header():
    ds = load_csv(csv(points(), header="température,pression,état").encode("latin-1"))
    assert ds.feature_names == ("température", "pression") and ds.target_name == "état"


@pytest.mark.parametrize("labels", [(0, 1), ("no", "yes")])
def test_no_header_when_first_row_is_data(labels):
    ds = load_csv(csv(points(labels=labels), header=None).encode())
    assert ds.feature_names == ("x1", "x2") and ds.target_name == "x3"
    assert len(ds.y) == 20


def test_extra_columns_with_explicit_choice():
    rows = [(i, f"id{i}", 2 * i, -i, "ab"[i % 2], 9) for i in range(15)]
    table = read_table(csv(rows, header="p,id,q,r,kind,const").encode())
    assert table.columns == ("p", "id", "q", "r", "kind", "const")
    assert table.numeric_columns == ("p", "q", "r", "const")
    ds = to_dataset(table, features=["r", "p"], target="kind")
    assert ds.feature_names == ("r", "p") and ds.X[4].tolist() == [-4.0, 4.0]
    assert ds.y[:2].tolist() == [0.0, 1.0]


def test_text_labels_sorted_and_larger_is_class_one():
    ds = load_csv(csv(points(labels=("yes", "no"))).encode())
    assert ds.classes == ("no", "yes")
    assert ds.y[0] == 1.0 and ds.y[1] == 0.0


def test_numeric_labels_sorted_by_value():
    ds = load_csv(csv(points(labels=(10, 9, "9.0"))).encode())
    assert ds.classes == ("9", "10") and ds.y[:3].tolist() == [1.0, 0.0, 0.0]


def test_regression_with_one_feature():
    rows = [(i, i * i) for i in range(12)]
    ds = load_csv(csv(rows, header="x,y").encode(), task="regression")
    assert ds.X.shape == (12, 1) and ds.y[3] == 9.0 and ds.task == "regression"


def test_path_and_file_like_uploads(tmp_path):
    data = csv(points()).encode()
    path = tmp_path / "points.csv"
    path.write_bytes(data)
    stream = io.BytesIO(data)
    stream.read()  # a rerun hands over an UploadedFile that was already read
    for upload in (path, str(path), stream):
        assert load_csv(upload).X.shape == (20, 2)
    assert load_csv(path).name == "points.csv"


def test_blank_trailing_rows_are_ignored():
    ds = load_csv((csv(points()) + ",,\n\n,,\n").encode())
    assert len(ds.y) == 20


def test_refuses_empty_file():
    refused(b"", "empty")
    refused(b"\n  \n", "empty")


def test_refuses_binary_junk():
    refused(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, "not a text")
    refused(b"PK\x03\x04" + bytes(200), "not a text")


def test_refuses_file_without_numbers():
    rows = [("red", "big", "yes"), ("blue", "small", "no")] * 6
    refused(csv(rows), "numeric columns", "none")


def test_refuses_one_numeric_feature_for_classification():
    rows = [(i, "x", "ab"[i % 2]) for i in range(12)]
    refused(csv(rows), "two feature columns", "found: a")


def test_refuses_missing_column():
    refused(csv(points()), "no column called", "the columns are", features=["a", "zz"])
    refused(csv(points()), "no column called", target="zz")


@pytest.mark.parametrize("cell, word", [
    ("", "missing"),
    ("NaN", "missing"),
    ("inf", "infinite"),
    ("-1e39", "too large"),
    ("1e500", "infinite"),
    ("abc", "not all numbers"),
])
def test_refuses_bad_cells_in_chosen_columns(cell, word):
    rows = points()
    rows[4] = (cell, 1, "yes")
    refused(csv(rows), word, "'a'", "row 5", features=["a", "b"])


def test_refuses_missing_label():
    rows = points()
    rows[2] = (1, 2, "")
    refused(csv(rows), "label", "empty")


def test_refuses_one_class():
    refused(csv(points(labels=("yes",))), "only one class", "yes")


def test_three_to_ten_classes_load_in_sorted_order():
    ds = load_csv(csv(points(labels=("emu", "cat", "dog"))).encode())
    assert ds.classes == ("cat", "dog", "emu")
    assert sorted(set(ds.y)) == [0.0, 1.0, 2.0]
    ten = load_csv(csv(points(n=40, labels=tuple("abcdefghij"))).encode())
    assert len(ten.classes) == 10 and np.bincount(ten.y.astype(int)).tolist() == [4] * 10


def test_refuses_more_than_ten_classes_and_names_them():
    refused(csv(points(n=44, labels=tuple("abcdefghijk"))), "11 classes", "a, b, c",
            "at most 10")


def test_refuses_a_class_with_too_few_points_among_three():
    rows = [(i, i % 7, "cat" if i < 10 else "dog") for i in range(20)] + [(3, 4, "emu")]
    refused(csv(rows), "'emu'", "1 point", "at least 2")


def test_refuses_too_many_rows_without_truncating():
    refused(csv(points(n=101)), "more than 100 rows", max_rows=100)
    assert len(load_csv(csv(points(n=100)).encode(), max_rows=100).y) == 100


def test_a_hand_worked_table_of_four_rows_loads():
    ds = load_csv(b"x1,x2,label\n0,0,no\n1,0,yes\n0,1,yes\n1,1,no\n")
    assert ds.X.shape == (4, 2) and list(ds.y) == [0, 1, 1, 0]
    reg = load_csv(b"x,y\n1,2\n2,4\n3,5\n", task="regression")
    assert reg.X.shape == (3, 1)


def test_too_few_points_of_a_class_names_the_class():
    refused(b"a,b,label\n0,0,no\n1,0,yes\n0,1,yes\n", "Class 'no'", "1 point",
            "at least 2")
    with pytest.raises(DataError, match="at least 3 points"):
        load_csv(b"x,y\n1,2\n2,4\n", task="regression")


@pytest.mark.parametrize("content, words", [
    (b"only\n1\n2\n3\n4\n", ("numeric columns",)),  # one column
    (b"a,b,label\nred,big,0\nblue,small,1\nred,small,1\nblue,big,0\n",
     ("numeric columns", "none")),  # text features
    (b"a,b,label\n1,2,0\n,3,1\n4,5,1\n6,7,0\n", ("missing", "row 2")),  # a hole
])
def test_small_bad_files_get_the_real_message_not_a_row_count(content, words):
    refused(content, *words)


def test_id_like_columns_are_not_chosen_as_features():
    rows = [(i + 1, 7 + i, 0.5 * i, f"n{i}", i % 2) for i in range(12)]
    ds = load_csv(csv(rows, header="id,x1,x2,note,label").encode())
    assert ds.feature_names == ("x1", "x2")
    numbered = [(i + 1, 3.0 * (i % 5), 0.5 * i, i % 2) for i in range(12)]  # 1..n, unnamed
    assert load_csv(csv(numbered, header="n,u,v,label").encode()).feature_names == ("u", "v")
    # still the user's to choose
    table = read_table(csv(rows, header="id,x1,x2,note,label").encode())
    assert to_dataset(table, ["id", "x2"], "label").feature_names == ("id", "x2")


def test_utf16_and_tab_separated_files_are_read():
    text = "température\tpression\tétat\n" + "".join(
        f"{i}\t{2 * i}\t{'oui' if i % 2 else 'non'}\n" for i in range(10))
    for encoding in ("utf-16", "utf-16-be"):
        raw = text.encode(encoding)
        if encoding == "utf-16-be":
            raw = b"\xfe\xff" + raw
        ds = load_csv(raw)
        assert ds.feature_names == ("température", "pression") and ds.classes == ("non", "oui")
    assert load_csv(text.encode()).X.shape == (10, 2)  # the same as UTF-8 tab-separated


# Excel, in locales whose list separator is not a comma (or when asked to), writes the
# separator on a first line of its own; pandas alone refuses such a file.
EXCEL_ROWS = [(f"{i},5", f"-{i},25", "yes" if i % 2 else "no") for i in range(12)]


@pytest.mark.parametrize("line", ["sep=;", "SEP=;", '"sep=;"', "sep=;;;", "sep=; "])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_excel_sep_line_names_the_separator_and_is_skipped(line, newline):
    text = newline.join([line, "a;b;label"] + [";".join(r) for r in EXCEL_ROWS]) + newline
    for raw in (text.encode("utf-8"), b"\xef\xbb\xbf" + text.encode("utf-8"),
                text.encode("cp1252"), text.encode("utf-16")):
        table = read_table(raw)
        assert table.columns == ("a", "b", "label") and table.n_rows == 12
        ds = to_dataset(table)
        assert ds.feature_names == ("a", "b") and ds.classes == ("no", "yes")
        assert ds.X[2].tolist() == [2.5, -2.25]  # decimal commas, as the locale writes them


@pytest.mark.parametrize("sep", [",", "\t", "|"])
def test_excel_sep_line_with_other_separators(sep):
    rows = [(i, 0.5 * i, "yes" if i % 2 else "no") for i in range(10)]
    text = f"sep={sep}\n" + csv(rows, header=sep.join(["a", "b", "label"]), sep=sep)
    ds = load_csv(text.encode())
    assert ds.feature_names == ("a", "b") and ds.X.shape == (10, 2)
    assert ds.X[3].tolist() == [3.0, 1.5]


def test_a_column_called_sep_is_not_a_separator_line():
    rows = [(i, 0.5 * i, i % 2) for i in range(10)]
    ds = load_csv(csv(rows, header="sep=1,b,label").encode())
    assert ds.feature_names == ("sep=1", "b")


def test_excel_sep_line_and_nothing_else_is_an_empty_file():
    refused("sep=;\n", "empty")


def test_refuses_file_too_large():
    refused(csv(points(n=200)), "larger than", max_bytes=1000)


def test_refuses_ragged_rows():
    refused(csv(points()) + "1,2,yes,extra\n", "same number of values")


def test_refuses_same_column_as_feature_and_label():
    refused(csv(points()), "different columns", features=["a", "label"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(
    st.binary(max_size=2000),
    # Text made of what CSV files are made of reaches the parser, not only the decoder.
    st.text(alphabet="0123456789.,;\t\n\r\"'-e ab", max_size=2000).map(str.encode),
))
def test_any_bytes_give_a_dataset_or_a_data_error(data):
    try:
        ds = load_csv(data)
    except DataError:
        return
    assert ds.X.shape[1] == 2 and np.isfinite(ds.X).all()
