"""`correlate`: Pearson r of a metric with each numeric system trait (peak GFLOP/s, memory
bandwidth, cores, ...), per group: does performance follow the hardware (PASC'19)?

n is the number of (configuration, system) points with both numbers; r is empty when it is
undefined (fewer than two points, or no spread)."""

import numpy as np
import pandas as pd

from analysis import frame
from analysis.errors import InputError


def numeric_traits(traits) -> pd.DataFrame:
    """The system column and every trait column whose cells are all numbers (or empty)."""
    out = pd.DataFrame({"system": traits["system"].astype(str)})
    for col in traits.columns:
        if col == "system":
            continue
        values = pd.to_numeric(traits[col].replace("", np.nan), errors="coerce")
        if values.notna().any() and values.notna().sum() == traits[col].replace("", np.nan).notna().sum():
            out[col] = values.astype(float)
    return out


def _pearson(x, y, groups) -> pd.DataFrame:
    """r and n per group, from deviations about the group means (vectorised over groups)."""
    both = x.notna() & y.notna()
    x, y = x.where(both), y.where(both)

    def grouped(s):
        return s.groupby(groups, observed=True, dropna=False, sort=False)

    dx = x - grouped(x).transform("mean")
    dy = y - grouped(y).transform("mean")
    sxx, syy, sxy = grouped(dx * dx).sum(), grouped(dy * dy).sum(), grouped(dx * dy).sum()
    n = grouped(both).sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        r = sxy / np.sqrt(sxx * syy)
    defined = (sxx > 0) & (syy > 0) & (n >= 2)
    return pd.DataFrame({"r": r.where(defined).clip(-1, 1), "n": n})


def correlate(df, metric, traits, file, traits_file, by=()) -> pd.DataFrame:
    frame.require(df, ["system"], file, "correlate joins the traits on the system")
    rows = frame.select_metric(df, metric, file)
    by = list(by)
    frame.require(rows, by, file, "a --by column")
    keys = frame.keys(rows, frame.varying(rows, frame.dimensions(rows)))
    agg = frame.aggregate(rows, keys, file)
    table = numeric_traits(traits)
    names = [c for c in table.columns if c != "system"]
    if not names:
        raise InputError(traits_file, "(columns)", "at least one numeric trait column besides system")
    points = agg.assign(system=agg["system"].astype(str)).merge(table, on="system", how="left")
    groups = [points[c] for c in by] if by else pd.Series(0, index=points.index)
    parts = []
    for trait in names:
        stats = _pearson(points[trait], points["value"], groups).reset_index()
        stats.insert(len(by) if by else 0, "trait", trait)
        parts.append(stats)
    out = pd.concat(parts, ignore_index=True)
    if not by:
        out = out.drop(columns=[c for c in out.columns if c not in ("trait", "r", "n")])
    out["n"] = out["n"].astype(int)
    return out[by + ["trait", "r", "n"]]
