"""`normalise`: each configuration's value of a metric divided by that of one reference cell, as a
paper plots "execution time normalised w.r.t. 32 processes on 10GbE-Cloud" (ICACC'16 Fig. 2).

--to names the reference cell by column=value pairs (system=..., ranks=32); the columns of --by
(default: every varying dimension that is not in --to and does not follow one of them, as the
fabric follows the system) keep their own reference each (one per NPB
kernel). A configuration whose reference cell is missing or failed gets no value, and the note
says why. The ratio is a plain quotient (a time of 0.5 is half the reference's time), not
oriented by the metric's direction: it is the paper's number."""

import numpy as np
import pandas as pd

from analysis import frame
from analysis.errors import InputError


def parse_cell(items, file="command line") -> dict:
    """--to's column=value pairs as {column: value}."""
    cell = {}
    for item in items:
        column, sep, value = item.partition("=")
        if not sep or not column:
            raise InputError(file, "--to", f"column=value pairs naming the reference cell; got {item!r}")
        cell[column] = value
    return cell


def normalise(df, metric, to: dict, file, by=None) -> pd.DataFrame:
    if not to:
        raise InputError(file, "--to", "at least one column=value naming the reference cell")
    frame.require(df, list(to), file, "a column of --to")
    rows = frame.select_metric(df, metric, file)
    for column, value in to.items():
        present = pd.unique(frame.strings(rows[column]))
        if value not in set(present):
            shown = ", ".join(map(str, present[:15]))
            raise InputError(
                file, column, f"a value of the column for '{metric}' (one of {shown}); '{value}' is not there"
            )
    others = [d for d in frame.varying(rows, frame.dimensions(rows)) if d not in to]
    if by is None:
        # Columns that change together with a column of --to (the fabric of a system) describe
        # the reference, not a group of its own.
        follow = {c for leader in to for c in frame.following(rows, leader, others)}
        by = [d for d in others if d not in follow]
    frame.require(rows, by, file, "a --by column")
    if set(by) & set(to):
        raise InputError(file, "--by", f"no column of --to ({', '.join(sorted(set(by) & set(to)))})")
    agg = frame.aggregate(rows, frame.keys(rows, others, list(to)), file)  # every configuration
    is_reference = np.logical_and.reduce([frame.strings(agg[c]).to_numpy() == v for c, v in to.items()])
    reference = agg.loc[is_reference, by + ["value", "status"]]
    if (reference.duplicated(subset=by) if by else pd.Series([len(reference) > 1])).any():
        raise InputError(
            file, "--to", "a cell that is one configuration per group (name the column that varies within it)"
        )
    reference = reference.rename(columns={"value": "reference_value", "status": "reference_status"})
    out = agg.merge(reference, on=by, how="left") if by else agg.merge(reference, how="cross")
    usable = (out["reference_status"] == frame.SUCCESS) & (out["status"] == frame.SUCCESS)
    out["normalised"] = (out["value"] / out["reference_value"]).where(usable)
    where = ", ".join(f"{c}={v}" for c, v in to.items())
    out["note"] = np.select(
        [out["reference_status"].isna(), out["reference_status"] != frame.SUCCESS],
        [
            f"no reference cell ({where})",
            f"the reference cell ({where}) " + out["reference_status"].fillna("").str.lower(),
        ],
        default=out["note"],
    )
    columns = [c for c in out.columns if c not in ("n", "reference_status")]
    return out[columns].reset_index(drop=True)
