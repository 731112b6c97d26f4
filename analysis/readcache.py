"""The typed frame of a large results CSV, kept after its first read so the next command on the
same file skips the parse (1,000,000 rows: 1.3 s to parse, 0.2 s to load here).

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

FORMAT = 1
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
            df, experiments, position = pickle.load(f)
        if experiments is not None:
            names = np.array(experiments.decode().split("\0"), dtype=object)
            if len(names) != len(df):
                return None
            df.insert(position, "experiment", names)
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
    rest, experiments, position = df, None, None
    if "experiment" in df.columns and df["experiment"].dtype == object:
        names = df["experiment"].tolist()
        if all(type(n) is str for n in names):
            text = "\0".join(names)
            if text.count("\0") == len(names) - 1:  # no NUL inside a name
                experiments, position = text.encode(), df.columns.get_loc("experiment")
                rest = df.drop(columns="experiment")
    try:
        entry.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump((rest, experiments, position), f, protocol=5)
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
