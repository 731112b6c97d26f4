"""`scaling`: speed-up and parallel efficiency of each configuration relative to the smallest
node count that ran in its group (PASC'19 Table 15: 'relative to 1 node').

Strong scaling (fixed problem): speedup = perf(N) / perf(N0), efficiency = speedup / (N / N0).
Weak scaling (problem grows with N): efficiency = T(N0) / T(N) for a time, and the scaled
speed-up is efficiency x N / N0. perf is the metric oriented so that larger is better."""

import pandas as pd

from analysis import frame
from analysis.directions import LOWER
from analysis.errors import InputError

DERIVED = {"speedup": "x", "parallel_efficiency": "%"}


def default_by(df, nodes_col) -> list:
    """Every dimension that varies, except the node count and what follows it (ranks at a fixed
    ranks-per-node): one curve per remaining combination."""
    dims = [d for d in frame.varying(df, frame.dimensions(df)) if d != nodes_col]
    follow = frame.following(df, nodes_col, dims)
    return [d for d in dims if d not in follow]


def scaling(df, metric, direction, file, by=None, nodes_col="nodes", weak=False) -> pd.DataFrame:
    frame.require(df, [nodes_col], file, "the node count the scaling is over")
    if not pd.api.types.is_numeric_dtype(df[nodes_col]):
        raise InputError(file, nodes_col, "whole numbers (the node count of each row)")
    rows = frame.select_metric(df, metric, file)
    by = list(by) if by is not None else default_by(rows, nodes_col)
    frame.require(rows, by, file, "a --by column")
    if nodes_col in by:
        raise InputError(file, nodes_col, "not in --by: it is the axis the scaling is over")
    others = [d for d in frame.varying(rows, frame.dimensions(rows)) if d not in by and d != nodes_col]
    keys = frame.keys(rows, by, [nodes_col] + frame.following(rows, nodes_col, others))
    agg = frame.aggregate(rows, keys, file)

    groups = by or ["_all"]  # no --by: the whole file is one group
    agg["_all"] = 0
    good = agg[agg["status"] == frame.SUCCESS]
    if good[nodes_col].isna().any():
        raise InputError(file, nodes_col, "a node count on every row with a value")
    # The base of each group: its smallest node count that has a number.
    base = good.loc[frame.group(good, groups)[nodes_col].idxmin().to_numpy(), groups + [nodes_col, "value"]]
    base = base.rename(columns={nodes_col: "base_nodes", "value": "_base"})
    out = agg.merge(base, on=groups, how="left")

    ratio = out[nodes_col].astype(float) / out["base_nodes"].astype(float)
    value, base_value = out["value"], out["_base"]
    if weak:
        efficiency = (base_value / value) if direction == LOWER else (value / base_value) / ratio
        speedup = efficiency * ratio
    else:
        speedup = (base_value / value) if direction == LOWER else (value / base_value)
        efficiency = speedup / ratio
    out["speedup"] = speedup.where(out["status"] == frame.SUCCESS)
    out["parallel_efficiency"] = (efficiency * 100).where(out["status"] == frame.SUCCESS)
    out = out.drop(columns=["_base", "_all"])
    return frame.sort_natural(out, by + [nodes_col], rows).reset_index(drop=True)


def as_tidy(scaled, nodes_col="nodes") -> pd.DataFrame:
    """The derived numbers as tidy rows (metric speedup / parallel_efficiency), so `published`
    can hold them against a paper's printed speed-ups and efficiencies."""
    id_cols = [
        c for c in scaled.columns if c not in ("metric", "value", "unit", "n", "base_nodes", "note") + tuple(DERIVED)
    ]
    parts = []
    for metric, unit in DERIVED.items():
        part = scaled[id_cols].copy()
        part["metric"], part["value"], part["unit"] = metric, scaled[metric], unit
        parts.append(part)
    return pd.concat(parts, ignore_index=True)
