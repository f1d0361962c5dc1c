"""CSV uploads: an untrusted file read as text cells, then the user's choice of columns.

:func:`read_table` (so the user can see the columns and choose) and :func:`to_dataset`,
or :func:`load_csv` in one step. Any problem with the user's choices or file raises
:class:`~explorer.data.DataError` whose message says what is wrong and what to do, so
the app can show it as is.

Size: the library's own limit, :data:`MAX_BYTES`, is 10 MB; it is the default of
:func:`read_table` and :func:`load_csv` and what the command line
(``python -m explorer export --csv``) accepts. The app passes a smaller one of its own,
``explorer.dataset.MAX_UPLOAD_MB`` (5 MB), which ``.streamlit/config.toml``'s
``server.maxUploadSize`` repeats for the server (a test checks that the two agree).
"""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .data import MAX_CLASSES, MAX_ROWS, TASKS, DataError, Dataset

if TYPE_CHECKING:
    import pandas as pd


def _pd():
    """pandas, imported when a file is first read: it takes 0.2 s, and the app's first page
    needs none of it."""
    import pandas
    return pandas


MAX_BYTES = 10 * 1024 * 1024  # the library's and the command line's limit (the app's is 5 MB)
# A file can be small and still declare a huge number of columns on one line;
# pandas would build one object per column, so refuse before parsing.
MAX_COLUMNS = 1_000
# Engines may store features as float32 (histogram binning, xgboost), so a
# larger value would silently become inf there.
FLOAT32_MAX = float(np.finfo(np.float32).max)
# The least a fit can be shown on: a split needs two points on each side of a class.
MIN_POINTS_PER_CLASS = 2
MIN_POINTS_REGRESSION = 3

# CSV uploads
#
# An upload is untrusted. It is read as text cells only (dtype=str, no NA
# guessing); nothing is evaluated, unpickled or executed. The byte limit bounds
# memory and the row limit bounds the work every later step does.
# --------------------------------------------------------------------------

_SEPARATORS = ("\t", ";", ",")  # in order of preference when several fit
_MISSING = {"", "nan", "na", "n/a", "null", "none"}
_SEPARATOR_NAMES = {"\t": "tab", ";": "semicolon", ",": "comma"}
_CONTROL_CHARACTERS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Excel (in locales whose list separator is not a comma, and when asked) writes the
# separator on a first line of its own: sep=; (sometimes quoted, or padded with it).
_SEP_LINE = re.compile(r'"?sep=(\t|[^\w\s"\'])"?\1*', re.IGNORECASE)


@dataclass(frozen=True, eq=False)
class Table:
    """An uploaded CSV file as text cells, before the user chooses columns.

    Attributes
    ----------
    cells : pandas.DataFrame
        One column of stripped strings per file column; missing cells are "".
    name : str
        File name, or "upload".
    numeric_columns : tuple of str
        Columns whose every non-empty cell is a number: the possible features.
    decimal_comma : bool
        True when numbers are read with a comma as the decimal mark ("1,5"),
        which is allowed when the separator is not a comma.
    """

    cells: pd.DataFrame
    name: str
    numeric_columns: tuple[str, ...]
    decimal_comma: bool = False

    @property
    def columns(self) -> tuple[str, ...]:
        """All column names, in file order."""
        return tuple(self.cells.columns)

    @property
    def n_rows(self) -> int:
        """Number of data rows (the header is not counted)."""
        return len(self.cells)


def load_csv(file, features=None, target=None, task: str = "classification", *,
             max_rows: int = MAX_ROWS, max_bytes: int = MAX_BYTES) -> Dataset:
    """Read a CSV upload into a dataset in one step.

    Equivalent to ``to_dataset(read_table(file, ...), features, target, task)``;
    with the defaults, the label is the last column and the features are the
    first two numeric columns before it.

    Raises
    ------
    DataError
        With a message for the user when the file or the choice cannot be used.
    """
    table = read_table(file, max_rows=max_rows, max_bytes=max_bytes)
    return to_dataset(table, features, target, task)


def read_table(file, *, max_rows: int = MAX_ROWS, max_bytes: int = MAX_BYTES) -> Table:
    """Read an uploaded CSV file into text cells, refusing what cannot be a table.

    Parameters
    ----------
    file : bytes, str, os.PathLike or binary file-like
        The content, a path, or an object with ``read`` (Streamlit's
        UploadedFile); a seekable object is read from its start.
    max_rows : int
        More data rows than this is refused, never silently cut.
    max_bytes : int
        Larger files are refused. The default, :data:`MAX_BYTES` (10 MB), is the
        library's and the command line's; the app passes its own 5 MB.

    Returns
    -------
    Table

    Notes
    -----
    The separator is the one a first line ``sep=;`` names (Excel writes it; the
    line is then skipped), else a tab, semicolon or comma: the first one that splits
    the first lines into the same number of fields. The first row is taken as data
    (columns named x1, x2, ...) when each of its cells is a number or a label
    that appears again further down its column; otherwise it is the header.
    """
    raw, name = _read_bytes(file, max_bytes)
    text = _decode(raw)
    declared, text = _declared_separator(text)
    lines = [line for line in text.splitlines()[:50] if line.strip()]
    if not lines:
        raise DataError("The file is empty. Upload a CSV file with a header row "
                        "and one row per point.")
    sep = declared or _sniff_separator(lines)
    if lines[0].count(sep) + 1 > MAX_COLUMNS:
        raise DataError(f"The file has more than {MAX_COLUMNS:,} columns. "
                        "Keep only the columns you need and upload it again.")
    try:
        cells = _pd().read_csv(io.StringIO(text), sep=sep, header=None, dtype=str,
                               na_filter=False, skipinitialspace=True,
                               nrows=max_rows + 2)  # a header plus one row too many
    except (_pd().errors.ParserError, _pd().errors.EmptyDataError, ValueError) as error:
        raise DataError(
            f"The file could not be read as a table ({_first_line(error)}). Check that "
            f"every row has the same number of values, separated by a "
            f"{_SEPARATOR_NAMES.get(sep, repr(sep))}."
        ) from None

    cells = cells.fillna("").apply(lambda column: column.str.strip())
    cells = cells[(cells != "").any(axis=1)].reset_index(drop=True)  # e.g. ",,," rows from Excel
    if cells.empty:
        raise DataError("The file has no values in it. Upload a CSV file with a header row "
                        "and one row per point.")
    decimal_comma = sep != ","
    if _has_header(cells, decimal_comma):
        names = _unique_names(list(cells.iloc[0]))
        cells = cells.iloc[1:].reset_index(drop=True)
    else:
        names = [f"x{j + 1}" for j in range(cells.shape[1])]
    cells.columns = names

    if len(cells) > max_rows:
        raise DataError(f"The file has more than {max_rows:,} rows; the explorer takes at "
                        f"most {max_rows:,}. Upload a sample of the rows.")
    numeric = tuple(c for c in names if _is_numeric(cells[c], decimal_comma))
    return Table(cells, name, numeric, decimal_comma)


def to_dataset(table: Table, features=None, target=None,
               task: str = "classification") -> Dataset:
    """Build a dataset from chosen columns of a table.

    Parameters
    ----------
    table : Table
    features : sequence of str, optional
        Two numeric columns (one is allowed for regression). By default the
        first two numeric columns other than the target.
    target : str, optional
        The label column; by default the last column. For classification it
        must hold 2 to 10 distinct values, text or numbers; they are sorted and
        class k is the k-th (with two, the larger becomes class 1).
    task : {"classification", "regression"}

    Returns
    -------
    Dataset

    Raises
    ------
    DataError
        For a missing or unsuitable column, missing or infinite values, values
        beyond float32, or a label that does not give 2 to 10 classes.
    """
    if task not in TASKS:
        raise DataError(f"The task must be classification or regression (got {task!r}).")
    target = table.columns[-1] if target is None else target
    _check_column_exists(table, target)
    wanted = "two feature columns" if task == "classification" else "one or two feature columns"
    allowed = (2,) if task == "classification" else (1, 2)
    if features is None:
        candidates = default_features(table, target)
        features = candidates[:2]
        if len(features) not in allowed:
            raise DataError(
                f"A {task} needs {wanted} of numbers besides the label column {target!r}, and "
                f"this file has too few numeric columns (found: {', '.join(candidates) or 'none'}). "
                "Check that values are separated by commas, semicolons or tabs and that the "
                "feature columns hold plain numbers.")
    features = [features] if isinstance(features, str) else list(features)
    for column in features:
        _check_column_exists(table, column)
    if len(features) not in allowed:
        raise DataError(f"Choose {wanted} (got {len(features)}).")
    if len(set(features)) != len(features) or target in features:
        raise DataError("Choose different columns for each feature and for the label.")

    X = np.column_stack([_numbers(table, column) for column in features])
    if task == "regression":
        y, classes = _numbers(table, target), ()
        if len(y) < MIN_POINTS_REGRESSION:
            raise DataError(f"A regression needs at least {MIN_POINTS_REGRESSION} points; "
                            f"this file has {len(y)}.")
    else:
        y, classes = _classes(table, target)
        counts = np.bincount(y.astype(int), minlength=len(classes))
        if counts.min() < MIN_POINTS_PER_CLASS:
            few = classes[int(np.argmin(counts))]
            raise DataError(f"Class {few!r} of the label column {target!r} has "
                            f"{int(counts.min())} point{'s' if counts.min() != 1 else ''}; "
                            "each class needs at least "
                            f"{MIN_POINTS_PER_CLASS}.")
    return Dataset(X, y, tuple(features), target, task, table.name, classes)


_ID_NAMES = {"id", "index", "row"}


def default_features(table: Table, target: str) -> list[str]:
    """The numeric columns other than the label, best features first: in file order, those
    that do not look like an id (named id, index or row, or holding the row numbers 1..n),
    then those that do (a hand-worked table's x may well be 1, 2, 3)."""
    def id_like(column):
        if column.strip().lower() in _ID_NAMES:
            return True
        values = _parse(table.cells[column], table.decimal_comma)
        return len(values) > 2 and np.array_equal(values, np.arange(1, len(values) + 1))
    numeric = [c for c in table.numeric_columns if c != target]
    return sorted(numeric, key=id_like)  # stable: file order within each group


def _read_bytes(file, max_bytes):
    """The raw bytes of an upload, never more than max_bytes + 1 of them."""
    name = "upload"
    if isinstance(file, (bytes, bytearray, memoryview)):
        raw = bytes(file[: max_bytes + 1])
    elif isinstance(file, (str, os.PathLike)):
        name = os.path.basename(os.fspath(file))
        try:
            with open(file, "rb") as stream:
                raw = stream.read(max_bytes + 1)
        except OSError as error:
            raise DataError(f"The file {name!r} could not be opened ({error.strerror}).") from None
    elif hasattr(file, "read"):
        name = os.path.basename(str(getattr(file, "name", "") or "upload"))
        # Streamlit hands the same UploadedFile to every rerun: start from the top.
        if getattr(file, "seekable", lambda: False)():
            file.seek(0)
        raw = file.read(max_bytes + 1)
        if isinstance(raw, str):
            raw = raw.encode("utf-8")
    else:
        raise DataError("The upload is not a file. Upload a CSV file.")
    if len(raw) > max_bytes:
        raise DataError(f"The file is larger than {max_bytes / 2**20:.3g} MB, the limit. "
                        "Upload a smaller file (fewer rows or columns).")
    return raw, name


def _decode(raw):
    """Text of the file: UTF-16 with its byte-order mark (a spreadsheet's "Unicode text"),
    UTF-8 (BOM removed) or else a Windows/Latin-1 file."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return _text_only(raw.decode("utf-16"))
        except UnicodeDecodeError:
            raise DataError("The file says it is UTF-16 text but is not. Save it again as "
                            "CSV (UTF-8) and upload that.") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raw = raw.removeprefix(b"\xef\xbb\xbf")
        try:
            # cp1252 is what "Latin-1" files from Windows really are (it has the
            # curly quotes and the euro sign); true Latin-1 decodes any byte.
            text = raw.decode("cp1252")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
    return _text_only(text)


def _text_only(text):
    # Text files never contain control characters other than tab and line
    # breaks; images, spreadsheets (.xlsx) and archives always do.
    if _CONTROL_CHARACTERS.search(text):
        raise DataError("The file is not a text CSV file (it looks like a binary file, such "
                        "as a spreadsheet or an image). Save it as CSV and upload that.")
    return text


def _declared_separator(text):
    """The separator named by Excel's first line ``sep=;`` and the text after that line;
    (None, text) when the file has no such line."""
    first, _, rest = text.partition("\n")
    match = _SEP_LINE.fullmatch(first.rstrip("\r").strip(" "))
    return (match.group(1), rest) if match else (None, text)


def _sniff_separator(lines):
    counts = {sep: [line.count(sep) for line in lines] for sep in _SEPARATORS}
    for sep in _SEPARATORS:
        if min(counts[sep]) > 0 and len(set(counts[sep])) == 1:
            return sep
    # Quoted fields can hide separators: take the one found on the most lines.
    return max(_SEPARATORS[::-1], key=lambda sep: sum(c > 0 for c in counts[sep]))


def _first_line(error):
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def _parse(cells, decimal_comma):
    """Numbers of a column of text cells; NaN where a cell is not a number."""
    if decimal_comma:
        cells = cells.str.replace(",", ".", regex=False)
    return _pd().to_numeric(cells, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


def _missing(cells):
    return cells.str.lower().isin(_MISSING).to_numpy()


def _is_numeric(cells, decimal_comma):
    present = ~_missing(cells)
    return present.any() and not np.isnan(_parse(cells, decimal_comma)[present]).any()


def _has_header(cells, decimal_comma):
    if len(cells) < 2:
        return True
    first = cells.iloc[0]
    for column, value in first.items():
        rest = cells[column].iloc[1:]
        looks_like_data = (value.lower() in _MISSING
                           or not np.isnan(_parse(_pd().Series([value], dtype=str),
                                                  decimal_comma)[0])
                           or (rest == value).any())
        if not looks_like_data:
            return True
    return False


def _unique_names(names):
    seen = {}
    unique = []
    for j, name in enumerate(names):
        name = name or f"column {j + 1}"
        seen[name] = seen.get(name, 0) + 1
        unique.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return unique


def _check_column_exists(table, column):
    if column not in table.columns:
        raise DataError(f"There is no column called {column!r}. "
                        f"The columns are: {', '.join(table.columns)}.")


def _rows(mask, limit=5):
    """'rows 3, 8 and 12', numbered from 1 after the header, for messages."""
    rows = [str(i + 1) for i in np.flatnonzero(mask)[:limit]]
    more = " and more" if mask.sum() > limit else ""
    return ("row " if len(rows) == 1 else "rows ") + ", ".join(rows) + more


def _numbers(table, column):
    """The finite float32-safe numbers of a column, or a DataError saying why not."""
    cells = table.cells[column]
    missing = _missing(cells)
    if missing.any():
        raise DataError(f"Column {column!r} has empty or missing values ({_rows(missing)}). "
                        "Fill them in or remove those rows.")
    values = _parse(cells, table.decimal_comma)
    not_number = np.isnan(values)
    if not_number.any():
        first = cells[not_number].iloc[0]
        raise DataError(f"Column {column!r} is not all numbers ({_rows(not_number)}, e.g. "
                        f"{first!r}). Choose a column of numbers.")
    infinite = np.isinf(values)
    if infinite.any():
        raise DataError(f"Column {column!r} has infinite values ({_rows(infinite)}). "
                        "Replace them with ordinary numbers.")
    huge = np.abs(values) > FLOAT32_MAX
    if huge.any():
        raise DataError(f"Column {column!r} has values too large to use ({_rows(huge)}; the "
                        "limit is about 3.4e38). Rescale the column.")
    return values


def _classes(table, column):
    """Class indices 0..K-1 from a column of 2..MAX_CLASSES distinct values, and those values."""
    cells = table.cells[column]
    missing = _missing(cells)
    if missing.any():
        raise DataError(f"The label column {column!r} has empty values ({_rows(missing)}). "
                        "Give every row a label or remove those rows.")
    numbers = _parse(cells, table.decimal_comma)
    if not np.isnan(numbers).any():
        # Numeric labels: "1" and "1.0" are the same class, and 10 sorts after 9.
        keys, shown = numbers, _pd().Series(numbers).map("{:g}".format).to_numpy()
    else:
        keys, shown = cells.to_numpy(dtype=str), cells.to_numpy(dtype=str)
    values, first_index, y = np.unique(keys, return_index=True, return_inverse=True)
    names = [str(shown[i]) for i in first_index]
    if len(values) == 1:
        raise DataError(f"The label column {column!r} has only one class ({names[0]!r}); "
                        "two are needed. Choose another label column or add points of the "
                        "other class.")
    if len(values) > MAX_CLASSES:
        listed = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
        advice = (" If it is a measured quantity, choose regression."
                  if not np.isnan(numbers).any() else "")
        raise DataError(f"The label column {column!r} has {len(values)} classes ({listed}); "
                        f"the explorer fits at most {MAX_CLASSES} (one tree per class and "
                        f"round). Keep the rows of {MAX_CLASSES} classes or fewer, or choose "
                        f"another label column.{advice}")
    return y.astype(np.float64), tuple(names)
