"""A large results file's frame is kept after its first read and loaded, identical, by the next
read of the same file; a changed file, a foreign entry or a small file is read afresh."""

import os

import pandas as pd
import pytest
from analysis_testkit import write

from analysis import fastread, files, readcache

ROWS = "".join(f"e{i},sys-{i % 3},time,{0.1 * (i + 1)!r},s,{1 + i % 4},SUCCESS\n" for i in range(50))
HEADER = "experiment,system,metric,value,unit,nodes,status\n"


@pytest.fixture
def cache(monkeypatch, tmp_path):
    """A cache of its own that keeps every file, however small."""
    monkeypatch.setenv("HPCAAS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(readcache, "MIN_BYTES", 0)
    return tmp_path / "cache" / "analysis"


def _no_parsing(monkeypatch):
    """Any parse from now on fails the test: the frame must come from the cache."""

    def refuse(*args, **kwargs):
        raise AssertionError("the file was parsed again")

    monkeypatch.setattr(fastread, "read", refuse)
    monkeypatch.setattr(pd, "read_csv", refuse)


def test_second_read_loads_the_same_frame(monkeypatch, tmp_path, cache):
    path = write(tmp_path, "results.csv", HEADER + ROWS)
    first = files.read_results(path)
    assert len(list(cache.glob("*.pickle"))) == 1
    with monkeypatch.context() as m:
        _no_parsing(m)
        again = files.read_results(path)
    pd.testing.assert_frame_equal(again, first, check_exact=True)
    assert list(again.columns) == list(first.columns)  # the experiment column back in its place


def test_a_changed_file_is_read_again(tmp_path, cache):
    path = write(tmp_path, "results.csv", HEADER + ROWS)
    files.read_results(path)
    write(tmp_path, "results.csv", HEADER + ROWS.replace("sys-1", "sys-9"))  # same size, new content
    assert "sys-9" in set(files.read_results(path)["system"])


def test_an_entry_others_may_write_is_not_loaded(monkeypatch, tmp_path, cache):
    path = write(tmp_path, "results.csv", HEADER + ROWS)
    files.read_results(path)
    (entry,) = cache.glob("*.pickle")
    os.chmod(entry, 0o666)
    assert readcache.load(tmp_path / "results.csv") is None


def test_small_files_and_published_precision_are_not_kept(monkeypatch, tmp_path):
    monkeypatch.setenv("HPCAAS_CACHE", str(tmp_path / "cache"))
    path = write(tmp_path, "results.csv", HEADER + ROWS)
    files.read_results(path)  # far below MIN_BYTES
    monkeypatch.setattr(readcache, "MIN_BYTES", 0)
    files.read_results(path, value_decimals=True)  # the decimals are read from the text each time
    assert not (tmp_path / "cache" / "analysis").exists()


def test_only_the_most_recent_entries_are_kept(monkeypatch, tmp_path, cache):
    monkeypatch.setattr(readcache, "KEEP", 2)
    for i in range(4):
        files.read_results(write(tmp_path, f"results-{i}.csv", HEADER + ROWS))
    assert len(list(cache.glob("*.pickle"))) == 2
