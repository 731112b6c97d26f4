"""`repeats`: run-to-run variation per configuration: n, mean, min, max, stdev (sample) and
CV = stdev / mean over the successful repeats; failed repeats are counted, never averaged."""

import pandas as pd

from analysis import frame


def repeats(df, file, metric=None) -> pd.DataFrame:
    rows = frame.select_metric(df, metric, file) if metric else df
    varying = frame.varying(rows, frame.dimensions(rows))
    keys = frame.keys(rows, varying)
    if "repeat" in rows.columns:
        frame.check_duplicates(rows, keys, file)
    out = statistics(rows, keys)
    return frame.sort_natural(out, ["metric"] + varying, rows).reset_index(drop=True)


def statistics(rows, keys) -> pd.DataFrame:
    """keys, metric, unit, n, n_failed, mean, min, max, stdev, cv of each group's repeats."""
    group_cols = list(keys) + ["metric", "unit"]
    work = rows[group_cols].copy()
    good = frame.ok(rows)
    work["_value"] = rows["value"].where(good)
    work["_failed"] = ~good
    out = (
        work.groupby(group_cols, observed=True, sort=False, dropna=False)
        .agg(
            n=("_value", "count"),
            n_failed=("_failed", "sum"),
            mean=("_value", "mean"),
            min=("_value", "min"),
            max=("_value", "max"),
            stdev=("_value", "std"),
        )
        .reset_index()
    )
    out["cv"] = out["stdev"] / out["mean"]
    return out
