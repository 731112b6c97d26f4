"""The fast reader (analysis/fastread.py, Polars) gives the very frame the careful reader
(pandas' C parser) gives, or steps aside: same dtypes, values, category order."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from analysis_testkit import REFERENCE, write

from analysis import fastread, files
from analysis.errors import InputError
from analysis.schema import MEASURE


def _careful(monkeypatch, path, **kwargs):
    """read_results with the fast path turned off."""
    with monkeypatch.context() as m:
        m.setattr(fastread, "read", lambda *args: None)
        return files.read_results(path, **kwargs)


def _took_fast_path(path) -> bool:
    columns = files._header(path, str(path))
    numeric = [c for c in columns if c in ["value"] + files._WHOLE_NUMBER_COLUMNS]
    return fastread.read(path, columns, numeric) is not None


def _readable(path) -> bool:
    try:
        files.read_results(path)
    except InputError:
        return False
    return True


TABLES = sorted(p for p in REFERENCE.glob("*.csv") if set(MEASURE) <= set(files._header(p, str(p))))


@pytest.mark.parametrize("table", TABLES, ids=lambda p: p.stem)
def test_published_tables_read_alike(monkeypatch, table):
    if not _readable(table):
        pytest.skip(f"{table.name} is not a results table read_results accepts")
    pd.testing.assert_frame_equal(files.read_results(table), _careful(monkeypatch, table), check_exact=True)


def test_category_order_follows_pandas_blocks(monkeypatch, tmp_path):
    """pandas sorts a categorical's values within each block of rows it parses and joins the
    blocks in file order; a value first seen in the second block comes after the first block's."""
    columns = ["experiment", "system", "metric", "value", "unit", "nodes"]
    rows = fastread._pandas_block_rows(len(columns)) + 1000  # into pandas' second block
    systems = np.where(np.arange(rows) < rows - 500, "b-system", "a-system")  # 'a' only at the end
    df = pd.DataFrame(
        {
            "experiment": [f"e{i}" for i in range(rows)],
            "system": systems,
            "metric": "time",
            "value": np.linspace(0.1, 1e6, rows),
            "unit": "s",
            "nodes": (np.arange(rows) % 7) + 1,
        }
    )
    path = tmp_path / "results.csv"
    df.to_csv(path, index=False)
    assert _took_fast_path(path)
    fast, careful = files.read_results(path), _careful(monkeypatch, path)
    assert list(careful["system"].cat.categories) == ["b-system", "a-system"]
    pd.testing.assert_frame_equal(fast, careful, check_exact=True)


CLEAN = "experiment,system,metric,value,unit,nodes,status,status_reason\n" + "".join(
    f"e{i},sys-{i % 3},time,{0.1 * (i + 1)!r},s,{1 + i % 4},{'FAILED' if i == 5 else 'SUCCESS'},"
    f"{'Ramble status FAILED' if i == 5 else ''}\n"
    for i in range(40)
)


@pytest.mark.parametrize(
    "text, fast",
    [
        (CLEAN, True),
        (CLEAN.replace("sys-1,", '"sys-1",'), True),  # a quoted value
        (CLEAN.replace("e3,", 'e"3,'), False),  # a quote inside an unquoted value: Polars refuses it
        (CLEAN.replace("\n", "\r\n"), True),  # Windows line ends
        (CLEAN.replace(",s,2,", ",s,,"), True),  # an empty node count
        (CLEAN + "\n", False),  # a blank line: pandas skips it
        (CLEAN.replace("sys-1,", "sys\r1,"), False),  # a bare CR ends pandas' line
        (CLEAN.replace(",0.2,", ",nan,"), False),  # text pandas reads otherwise
    ],
    ids=["clean", "quoted", "inner-quote", "crlf", "empty-cell", "blank-line", "bare-cr", "nan-text"],
)
def test_small_files_read_alike_or_fall_back(monkeypatch, tmp_path, text, fast):
    path = Path(write(tmp_path, "results.csv", text))
    assert _took_fast_path(path) is fast
    try:
        careful = _careful(monkeypatch, path)
    except InputError as err:
        with pytest.raises(InputError, match=str(err).split(":")[0]):
            files.read_results(path)
        return
    pd.testing.assert_frame_equal(files.read_results(path), careful, check_exact=True)
