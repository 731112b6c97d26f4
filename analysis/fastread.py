"""The fast path of files.read_results: a results CSV parsed by Polars (multi-threaded, text
columns dictionary-encoded as they are parsed), handed to pandas as the very frame the careful
reader (pandas' C parser) makes: same dtypes, same values, categories in the same order.

It gives up (returns None) on anything the two parsers might read differently: a parse error,
a blank or whitespace-only line (pandas skips it, Polars makes a row of it), a carriage return
or NUL inside a value, an unnamed column, no data rows, or a number pandas would not read as
Polars did ('nan', '1e400', ' '). files.read_results then reads the file again with pandas,
which gives the same frame or the exact error (file, column, line). So bad input is never
judged here: a file is either clean, and fast, or read the careful way."""

import csv
import io
import mmap
import re

import numpy as np
import pandas as pd


def read(path, columns, numeric) -> "pd.DataFrame | None":
    """The file as read_results' typed frame before its whole-number checks, or None."""
    if "" in columns:
        return None  # pandas names it 'Unnamed: N'
    if not _plain_bytes(path):
        return None
    try:
        import polars as pl
    except ImportError:
        return None
    # Text and whole-number columns repeat a few values: categorical. The experiment name is
    # nearly one per row and value is checked before it is cast: plain text.
    schema = {c: pl.String if c in ("experiment", "value") else pl.Categorical for c in columns}
    try:
        df = pl.read_csv(
            path, schema_overrides=schema, infer_schema=False, missing_utf8_is_empty_string=True, raise_if_empty=True
        )
    except (pl.exceptions.PolarsError, OSError, ValueError):
        return None
    if df.columns != columns or df.height == 0 or _blank_rows(pl, df, columns):
        return None
    block = _pandas_block_rows(len(columns))
    out = {}
    for col in columns:
        series = df.get_column(col)
        if col == "experiment":
            if series.str.contains(r"[\r\x00]").any():
                return None
            out[col] = series.to_numpy()
        elif col == "value":
            out[col] = _numbers(pl, series)
        else:
            cats = _categorical(pl, series, block)
            if cats is None:
                return None
            out[col] = _whole_numbers(cats) if col in numeric else cats
        if out[col] is None:
            return None
    return pd.DataFrame(out, copy=False)


def _plain_bytes(path) -> bool:
    """No byte the two parsers treat differently: a NUL, a carriage return that does not end
    a line (pandas ends a line there) or any CR near a quoted value, and no quote left open at
    the end of the file (pandas stops there, Polars does not). Quotes are rare in results, so
    walking from one to the next (memchr speed on the mapped file) costs nothing on clean data."""
    with open(path, "rb") as f:
        if f.seek(0, 2) == 0:
            return False
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            if data.find(b"\x00") != -1:
                return False
            has_quote = data.find(b'"') != -1
            if data.find(b"\r") != -1 and (has_quote or re.search(rb"\r(?!\n)", data)):
                return False
            return not has_quote or _quotes_closed(data)


def _quotes_closed(data) -> bool:
    """Whether every quoted field closes right before a comma or the end of its line, read as
    pandas' tokenizer does: a quote opens a quoted field only as a field's first character;
    inside, a doubled quote is a quote."""
    start = 3 if data[:3] == b"\xef\xbb\xbf" else 0  # a BOM, which both skip
    pos = data.find(b'"', start)
    while pos != -1:
        if pos == start or data[pos - 1] in b",\n\r":  # opens a quoted field: find its end
            end = pos + 1
            while True:
                end = data.find(b'"', end)
                if end == -1:
                    return False
                if data[end + 1 : end + 2] != b'"':
                    break
                end += 2
            if data[end + 1 : end + 2] not in (b",", b"\n", b"\r", b""):
                return False  # text after the closing quote: pandas keeps it, Polars does not
            pos = end + 1
        else:  # a quote inside an unquoted value is a character
            pos += 1
        pos = data.find(b'"', pos)
    return True


def _blank_rows(pl, df, columns) -> bool:
    """Rows that were a blank or whitespace-only line (or a row of empty cells, which the
    careful reader handles as well): every cell empty, the first at most spaces and tabs."""
    first = pl.col(columns[0]).cast(pl.String)
    candidates = df.select((first.is_null() | (first.str.strip_chars(" \t") == "")).any()).item()
    if not candidates:
        return False
    empty = [pl.col(c).is_null() | (pl.col(c).cast(pl.String) == "") for c in columns[1:]]
    return df.select(pl.all_horizontal([first.is_null() | (first.str.strip_chars(" \t") == "")] + empty).any()).item()


def _numbers(pl, text) -> "np.ndarray | None":
    """The value column as floats; None when a cell that is not empty gives no finite number
    (pandas would refuse it, or the careful checks report it) or a text pandas reads otherwise."""
    values = text.cast(pl.Float64, strict=False)
    if values.null_count() != (text == "").sum() or values.is_nan().any() or values.is_infinite().any():
        return None
    return values.to_numpy()


def _pandas_block_rows(width) -> int:
    """Rows per block of pandas' C reader (pandas/_libs/parsers.pyx: the largest power of two
    below 2**20 / columns)."""
    rows = 1
    while rows * 2 < 2**20 // width:
        rows *= 2
    return rows


def _categorical(pl, series, block) -> "pd.Categorical | None":
    """A Polars categorical column as pandas' reader makes it: only the values present, sorted
    within each block of rows pandas parses and the blocks joined in file order
    (union_categoricals). The order shows wherever a groupby or pivot sorts by a categorical.
    An empty cell is null in Polars and '' in pandas (keep_default_na=False)."""
    names = series.cat.get_categories().to_list() + [""]  # Polars' codes index its global list
    codes = series.to_physical()
    if codes.null_count():
        codes = codes.fill_null(len(names) - 1)
    first_rows = codes.arg_unique()  # the row where each value first appears
    present = codes.gather(first_rows).to_list()
    if any("\r" in names[i] or "\x00" in names[i] for i in present):
        return None  # pandas ends a line at a bare CR and a cell at NUL
    first_block = dict(zip(present, (first_rows // block).to_list()))
    ordered = sorted(present, key=lambda i: (first_block[i], names[i]))
    categories = list(dict.fromkeys(names[i] for i in ordered))  # '' may be there twice
    position = {name: k for k, name in enumerate(categories)}
    lookup = np.zeros(len(names), dtype=_code_dtype(len(categories)))
    for i in present:
        lookup[i] = position[names[i]]
    pandas_codes = pl.Series(lookup).gather(codes).to_numpy()
    return pd.Categorical.from_codes(pandas_codes, categories=pd.Index(categories, dtype=object), validate=False)


def _code_dtype(n_categories):
    """The smallest signed integer pandas keeps the codes of n categories in."""
    for dtype in (np.int8, np.int16, np.int32):
        if n_categories < np.iinfo(dtype).max:
            return dtype
    return np.int64


def _whole_numbers(cats) -> "np.ndarray | None":
    """A whole-number column read as text: each distinct text parsed by pandas itself (as the
    careful reader would), then spread over the rows."""
    text = io.StringIO()
    writer = csv.writer(text, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(["n", "_"])
    writer.writerows([name, ""] for name in cats.categories)
    try:
        parsed = pd.read_csv(
            io.StringIO(text.getvalue()),
            dtype={"n": "float64", "_": str},
            keep_default_na=False,
            na_values={"n": [""]},
            float_precision="round_trip",
        )["n"].to_numpy()
    except (ValueError, TypeError):
        return None
    if len(parsed) != len(cats.categories):
        return None
    return parsed[cats.codes]
