"""frame.is_varying and frame.following (code comparisons, for a million rows) agree with their
definitions by counting (nunique, as groupby(dropna=False) counts) on small frames of every
column kind the reader makes, with missing values."""

import numpy as np
import pandas as pd

from analysis import frame


def _varying_by_count(df, col) -> bool:
    return df[col].nunique(dropna=False) > 1


def _following_by_count(df, leader, columns) -> list:
    per_leader = df.groupby(leader, observed=True, dropna=False)[columns].nunique(dropna=False)
    return [c for c in columns if _varying_by_count(df, c) and per_leader[c].max() <= 1]


def _column(rng, kind, rows) -> pd.Series:
    base, gaps = rng.integers(0, 3, rows), rng.random(rows) < 0.2
    if kind == "whole":
        col = pd.Series(base, dtype="Int64")
        col[gaps] = pd.NA
    elif kind == "float":
        col = pd.Series(np.where(gaps, np.nan, base.astype(float)))
    elif kind == "category":
        col = pd.Series(np.array(["a", "b", "c"], dtype=object)[base]).astype("category")
        col[gaps] = np.nan
    else:
        col = pd.Series(np.array(["x", "y", ""], dtype=object)[base])
    return col


def test_fast_forms_agree_with_counting():
    rng = np.random.default_rng(17)
    kinds = ["whole", "float", "category", "text"]
    for _ in range(300):
        rows = int(rng.integers(0, 12))
        df = pd.DataFrame({f"c{i}": _column(rng, kinds[rng.integers(0, 4)], rows) for i in range(4)})
        for col in df.columns:
            assert frame.is_varying(df, col) == _varying_by_count(df, col), (df, col)
            others = [c for c in df.columns if c != col]
            assert frame.following(df, col, others) == _following_by_count(df, col, others), (df, col)
        leaders = ["c0", "c1"]  # several columns can lead together
        assert frame.following(df, leaders, ["c2", "c3"]) == _following_by_count(df, leaders, ["c2", "c3"]), df
