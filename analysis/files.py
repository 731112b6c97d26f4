"""Reading tidy CSVs (ours and the published ones) into typed frames, and writing results.

Every problem with a file becomes an InputError naming the file, the column and what was
expected; outputs are written whole or not at all (temporary file + rename)."""

import csv
import io
import os
import re
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from analysis import fastread, formats, readcache
from analysis.errors import InputError
from analysis.schema import MEASURE, NUMERIC_DIMENSIONS

#: Whole-number columns besides the numeric dimensions.
_WHOLE_NUMBER_COLUMNS = NUMERIC_DIMENSIONS + ["repeat"]


def note(message):
    """A one-line remark on stderr that does not stop the command (e.g. a skipped trait)."""
    print(f"hpcaas-analyze: note: {message}", file=sys.stderr)


# --------------------------------------------------------------------------- reading


def _source(path):
    """(what pandas reads, the name errors use); stdin is read once into memory."""
    if str(path) == "-":
        return io.StringIO(sys.stdin.read()), "<stdin>"
    p = Path(path)
    if p.is_dir():
        raise InputError(p, "(file)", "a CSV file, not a folder")
    if not p.is_file():
        raise InputError(p, "(file)", "an existing CSV file")
    return p, str(p)


def _rewind(src):
    if hasattr(src, "seek"):
        src.seek(0)
    return src


def _read_csv(src, name, **kwargs) -> pd.DataFrame:
    try:
        return pd.read_csv(_rewind(src), **kwargs)
    except pd.errors.EmptyDataError:
        raise InputError(name, "(header)", "a CSV header line; the file is empty") from None
    except pd.errors.ParserError as err:
        line = re.search(r"line (\d+)", str(err))
        row = re.search(r"row (\d+)", str(err))  # an unclosed quote: 0-based row, header included
        where = line.group(1) if line else str(int(row.group(1)) + 1) if row else "?"
        expected = "a closed quote" if "inside string" in str(err) else "as many fields as the header"
        raise InputError(name, f"line {where}", expected) from None
    except UnicodeDecodeError:
        raise InputError(name, "(encoding)", "UTF-8 text") from None


def _header(src, name) -> list:
    text = src.getvalue() if isinstance(src, io.StringIO) else None
    try:
        if text is None:
            with open(src, newline="", encoding="utf-8-sig") as f:  # as pandas, skip a BOM
                first = f.readline()
        else:
            first = text.split("\n", 1)[0]
    except UnicodeDecodeError:
        raise InputError(name, "(encoding)", "UTF-8 text") from None
    columns = next(csv.reader([first]), [])
    if not columns or columns == [""]:
        raise InputError(name, "(header)", "a CSV header line; the file is empty")
    seen = set()
    for col in columns:
        if col in seen:
            raise InputError(name, col, "a column name used once in the header")
        seen.add(col)
    return columns


def _require(columns, required, name):
    for col in required:
        if col not in columns:
            shown = ", ".join(columns[:12]) + (", ..." if len(columns) > 12 else "")
            raise InputError(name, col, f"a column of the file (it has: {shown})")


def _first_bad_number(src, name, columns):
    """(column, line, text) of the first cell of `columns` that is not a number."""
    raw = _read_csv(src, name, usecols=columns, dtype=str, keep_default_na=False)
    for column in columns:
        text = raw[column].str.strip()
        bad = raw[column][(text != "") & pd.to_numeric(text, errors="coerce").isna()]
        if len(bad):
            return column, bad.index[0] + 2, bad.iloc[0]
    return columns[0], "?", ""


def _decimals(text: pd.Series) -> pd.Series:
    """Digits after the point of each number as written ('3.89' -> 2, '98' -> 0)."""
    mantissa = text.astype(str).str.strip().str.split(r"[eE]", regex=True).str[0]
    parts = mantissa.str.partition(".")[2]
    return parts.str.len().astype(int)


def read_results(path, required=MEASURE, value_decimals=False) -> pd.DataFrame:
    """A tidy results CSV (ours from `collect`, or a published table) as a typed frame.

    Text columns become categoricals (a million rows repeat a few values), except the
    experiment name (nearly one per row); value is float, empty meaning no number (a failed
    run, a lost cell); nodes/ranks/threads/repeat are nullable whole numbers. The index is the
    data row number, so line = index + 2 in error messages. value_decimals adds how many
    decimals each value was written with (the precision the paper printed). A large file's
    frame is kept (readcache.py) and loaded instead of parsed until the file changes.
    """
    src, name = _source(path)
    columns = _header(src, name)
    _require(columns, required, name)
    numeric = [c for c in ["value"] + _WHOLE_NUMBER_COLUMNS if c in columns]
    keep = isinstance(src, Path) and not value_decimals  # a large file's frame is kept for the next read
    df = readcache.load(src) if keep else None
    if df is not None:
        return df
    dtypes = {c: "category" for c in columns}
    dtypes.update({c: "float64" for c in numeric})
    if "experiment" in columns:
        dtypes["experiment"] = str
    # A file goes through Polars when it is clean; anything doubtful is read again by pandas,
    # whose errors name the line. Both parse numbers exactly (round_trip), so both give one frame.
    df = fastread.read(src, columns, numeric) if isinstance(src, Path) else None
    try:
        if df is None:
            df = _read_csv(
                src,
                name,
                dtype=dtypes,
                keep_default_na=False,
                na_values={c: [""] for c in numeric},
                float_precision="round_trip",
            )
    except (ValueError, TypeError):
        column, line, text = _first_bad_number(src, name, numeric)
        what = "a number or empty" if column == "value" else "a whole number or empty"
        raise InputError(name, column, f"{what}; line {line} has {text!r}") from None
    for column in numeric:
        values = df[column].to_numpy()
        bad = np.isinf(values) if column == "value" else np.isinf(values) | (np.nan_to_num(values) % 1 != 0)
        if bad.any():
            line = int(np.argmax(bad)) + 2
            what = "a finite number or empty" if column == "value" else "a whole number or empty"
            raise InputError(name, column, f"{what}; line {line} has {float(values[line - 2]):g}")
        if column != "value":  # nullable whole numbers, built directly (astype goes via objects)
            missing = np.isnan(values)
            df[column] = pd.arrays.IntegerArray(np.where(missing, 0, values).astype(np.int64), missing)
    if value_decimals and "value" in df.columns:
        raw = _read_csv(src, name, usecols=["value"], dtype=str, keep_default_na=False)["value"]
        df["value_decimals"] = _decimals(raw)
    if keep:
        readcache.store(src, df)
    return df


def read_plain(path, required=()) -> pd.DataFrame:
    """A small side file (prices, traits) with every cell as text, '' when empty."""
    src, name = _source(path)
    columns = _header(src, name)
    _require(columns, required, name)
    return _read_csv(src, name, dtype=str, keep_default_na=False)


def numbers(df: pd.DataFrame, column, name, allow_empty=True) -> pd.Series:
    """A text column of a side file as floats; text that is not a number is bad input."""
    text = df[column].astype(str).str.strip()
    values = pd.to_numeric(text, errors="coerce")
    bad = ((text != "") & values.isna()) | ~np.isfinite(values.fillna(0))
    if not allow_empty:
        bad |= text == ""
    if bad.any():
        line = bad.to_numpy().argmax() + 2
        raise InputError(name, column, f"a number; line {line} has {df[column].iloc[line - 2]!r}")
    return values


def read_traits(path, where=(), systems=None) -> pd.DataFrame:
    """System characteristics, one row per system: a wide CSV (system + one column per trait)
    or a tidy one (system, metric, value: e.g. a published node-spec table) pivoted to wide.
    In a tidy file a trait with several values for one system (SMT options, two memory sizes)
    is ambiguous and left out, with a note. where: (column, op, value) conditions selecting a
    tidy file's rows first (analysis/correlate.py select; a wide file has one row per system);
    systems: {label: system} renaming a published table's system labels to ours."""
    df = read_plain(path, required=["system"])
    name = "<stdin>" if str(path) == "-" else str(path)
    if systems:
        df = df.assign(system=df["system"].replace(systems))
    if {"metric", "value"} <= set(df.columns):
        if where:
            from analysis import correlate

            df = correlate.select(df, where, name, "--traits-where")
        df = df.assign(value=pd.to_numeric(df["value"].str.strip(), errors="coerce"))
        df = df[df["value"].notna()]
        counts = df.groupby(["system", "metric"]).size()
        ambiguous = sorted(set(counts[counts > 1].index.get_level_values("metric")))
        if ambiguous:
            note(f"{name}: traits with more than one value per system left out: {', '.join(ambiguous)}")
        df = df[~df["metric"].isin(ambiguous)]
        wide = df.pivot(index="system", columns="metric", values="value")
        return wide.reset_index().rename_axis(columns=None)
    if df["system"].duplicated().any():
        dup = df.loc[df["system"].duplicated(), "system"].iloc[0]
        raise InputError(name, "system", f"one row per system; {dup!r} appears more than once")
    return df


# --------------------------------------------------------------------------- writing


def atomic_write(path, data):
    """Write text or bytes to path via a temporary file in the same folder and a rename, so a
    reader never sees half a file and an error leaves the old file as it was."""
    path = Path(path)
    if not path.parent.is_dir():
        raise InputError(path, "(output)", "a path in an existing folder")
    mode = "wb" if isinstance(data, bytes) else "w"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode) as f:
            f.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as open() would have made it, not mkstemp's 0600
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def render(df: pd.DataFrame, fmt="csv") -> str:
    if fmt == "markdown":
        return formats.markdown(df)
    return df.to_csv(index=False, lineterminator="\n")


def emit(data, output=None):
    """Write text (or a figure's bytes) to -o FILE, atomically, or text to stdout."""
    if output in (None, "-"):
        sys.stdout.write(data)
    else:
        atomic_write(output, data)
