"""The typed frame of a large results CSV, kept after its first read so the next command on the
same file skips the parse (1,000,000 rows: 0.8 s to parse, 0.15 s to load here).

An entry belongs to one version of one file: its key is the file's path, size, inode, mtime and
ctime (ctime changes with every write and cannot be set back, so a rewritten file misses), and
the versions of this format, pandas and numpy. Only files of MIN_BYTES or more are kept, the
KEEP most recently used, in $HPCAAS_CACHE/analysis (~/.cache/hpcaas-bench/analysis), a folder
only the user can write: an entry is loaded only when the user owns it and no one else may
write it (it is a pickle). Any problem with an entry makes it a miss, never an error.

The experiment column (a name per row) is stored as one NUL-separated text: unpickling a million
small strings one by one is most of a pickle's load time."""

import hashlib
import os
import pickle
import stat
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

FORMAT = 2
MIN_BYTES = 16 * 2**20
KEEP = 4


def folder() -> Path:
    base = (
        os.environ.get("HPCAAS_CACHE")
        or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hpcaas-bench"
    )
    return Path(base) / "analysis"


def _entry(path: Path):
    """The entry's file for this version of path, or None when path is not worth keeping."""
    try:
        st = path.stat()
    except OSError:
        return None
    if st.st_size < MIN_BYTES:
        return None
    identity = [str(path.resolve()), st.st_size, st.st_ino, st.st_dev, st.st_mtime_ns, st.st_ctime_ns]
    identity += [FORMAT, pd.__version__, np.__version__]
    return folder() / (hashlib.sha256("\0".join(map(str, identity)).encode()).hexdigest() + ".pickle")


def load(path: Path):
    """The frame read_results made from this version of path, or None."""
    entry = _entry(path)
    if entry is None:
        return None
    try:
        st = entry.stat()
        if st.st_uid != os.getuid() or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return None
        with open(entry, "rb") as f:
            columns, index = pickle.load(f)
        for name, column in columns.items():
            if isinstance(column, bytes):  # the NUL-joined names (store)
                columns[name] = np.array(column.decode().split("\0"), dtype=object)
            if len(columns[name]) != len(index):
                return None
        df = pd.DataFrame(columns, index=index, copy=False)
        os.utime(entry)  # recently used: kept longer
        return df
    except Exception:  # a damaged or foreign entry is a miss
        return None


def store(path: Path, df: pd.DataFrame):
    """Keep df as the frame of this version of path (when it is large enough); then drop the
    least recently used entries beyond KEEP."""
    entry = _entry(path)
    if entry is None:
        return
    # The columns, not the frame: pickling a frame copies its blocks, and the columns are
    # what the next read joins again without a copy.
    columns = {name: df[name].array for name in df.columns}
    if "experiment" in columns and df["experiment"].dtype == object:
        try:
            text = "\0".join(df["experiment"].to_numpy())
        except TypeError:  # a name that is not text: kept as objects
            text = None
        if text is not None and text.count("\0") == len(df) - 1:  # no NUL inside a name
            columns["experiment"] = text.encode()
    try:
        entry.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump((columns, df.index), f, protocol=5)
            os.replace(tmp, entry)
        finally:
            Path(tmp).unlink(missing_ok=True)
        _prune(entry.parent)
    except OSError:
        pass  # a full or read-only cache only costs the next read its parse


def _prune(where: Path):
    entries = sorted(where.glob("*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[KEEP:]:
        old.unlink(missing_ok=True)
