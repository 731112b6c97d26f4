"""`table`: the paper-style pivot of one metric: rows = configurations, columns = e.g. node
counts, cells = the value (mean of repeats). A cell whose run failed reads FAILED and a
published cell without a number reads MISSING: never a number."""

import pandas as pd

from analysis import frame
from analysis.errors import InputError


def default_cols(rows) -> list:
    varying = frame.varying(rows, frame.dimensions(rows))
    if "nodes" in varying:
        return ["nodes"]
    return varying[-1:]


def table(df, metric, file, rows_by=None, cols=None) -> pd.DataFrame:
    data = frame.select_metric(df, metric, file)
    cols = list(cols) if cols else default_cols(data)
    varying = frame.varying(data, frame.dimensions(data))
    if rows_by is None:
        follow = frame.following(data, cols, varying) if cols else []
        rows_by = [d for d in varying if d not in cols and d not in follow]
    rows_by = list(rows_by)
    frame.require(data, rows_by + cols, file, "a --rows or --cols column")
    both = set(rows_by) & set(cols)
    if both:
        raise InputError(file, sorted(both)[0], "in --rows or in --cols, not both")
    agg = frame.aggregate(data, frame.keys(data, rows_by, cols), file)
    agg = frame.sort_natural(agg, rows_by + cols, data)

    agg["_cell"] = agg["value"].astype(object).where(agg["status"] == frame.SUCCESS, agg["status"])
    col_labels = _labels(agg, cols)
    agg["_col"] = col_labels
    index = rows_by or ["metric"]
    wide = agg.pivot_table(index=index, columns="_col", values="_cell", aggfunc="first", observed=True, sort=False)
    order_rows = agg[index].drop_duplicates()
    wide = wide.reindex(pd.MultiIndex.from_frame(order_rows) if len(index) > 1 else order_rows[index[0]])
    wide = wide[list(dict.fromkeys(col_labels))]
    wide.columns.name = None
    out = wide.reset_index()
    unit = agg["unit"].iloc[0] if len(agg) else ""
    if not rows_by:
        out["metric"] = f"{metric} ({unit})"
    else:
        out.insert(len(rows_by), "unit", unit)
    return out


def _labels(agg, cols) -> pd.Series:
    """Column headers: the value itself for one column ('4'), 'a / b' for several."""
    if not cols:
        return pd.Series(agg["metric"].astype(str), index=agg.index)
    return frame.label(agg, cols, sep=" / ")
