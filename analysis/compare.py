"""`compare`: A/B along one column (mpi, compiler, binding, ...), per group of everything else.

ratio > 1 means B is better, whichever way the metric points: A/B for a time, B/A for a rate.
A side that failed or is absent gives no ratio, and the note says why."""

import numpy as np
import pandas as pd

from analysis import frame
from analysis.directions import oriented_ratio
from analysis.errors import InputError


def _side_note(axis, label, status, note):
    if pd.isna(status):
        return f"no {axis}={label} row"
    if status != frame.SUCCESS:
        return f"{axis}={label} {status.lower()}" + (f": {note}" if note else "")
    return ""


def compare(df, metric, axis, a, b, direction, file, by=None) -> pd.DataFrame:
    frame.require(df, [axis], file, "the column the comparison is along")
    rows = frame.select_metric(df, metric, file)
    labels = frame.strings(rows[axis])
    present = pd.unique(labels)
    for label in (a, b):
        if label not in set(present):
            raise InputError(
                file,
                axis,
                f"a value of the column for '{metric}' (one of "
                f"{', '.join(map(str, present[:15]))}); '{label}' is not there",
            )
    if a == b:
        raise InputError(file, axis, "two different values for --a and --b")
    rows = rows[labels.isin([a, b]).to_numpy()]
    others = [d for d in frame.varying(rows, frame.dimensions(rows)) if d != axis]
    if by is None:
        # Columns that change together with the axis (the system's processor) cannot be held equal.
        follow = frame.following(rows, axis, others)
        by = [d for d in others if d not in follow]
    frame.require(rows, by, file, "a --by column")
    if axis in by:
        raise InputError(file, axis, "not in --by: it is the axis of the comparison")
    keys = frame.keys(rows, by, [axis])
    agg = frame.aggregate(rows, keys, file)

    pair = [k for k in keys if k != axis] + ["metric", "unit"]
    side = frame.strings(agg[axis])
    cols = pair + ["value", "status", "note"]
    both = agg.loc[side == a, cols].merge(agg.loc[side == b, cols], on=pair, how="outer", suffixes=("_a", "_b"))
    ratio = oriented_ratio(both["value_b"], both["value_a"], direction)
    both["ratio"] = ratio
    both["better"] = np.select([ratio > 1, ratio < 1, ratio == 1], [b, a, "equal"], default="")
    notes = np.full(len(both), "", dtype=object)
    both_ok = ((both["status_a"] == frame.SUCCESS) & (both["status_b"] == frame.SUCCESS)).to_numpy()
    sides = both.loc[~both_ok, ["status_a", "note_a", "status_b", "note_b"]]  # only these have a note
    notes[~both_ok] = [
        "; ".join(n for n in (_side_note(axis, a, sa, na), _side_note(axis, b, sb, nb)) if n)
        for sa, na, sb, nb in zip(sides["status_a"], sides["note_a"], sides["status_b"], sides["note_b"])
    ]
    out = both[pair[:-2]].copy()
    out["metric"], out["unit"] = both["metric"], both["unit"]
    out["axis"], out["a"], out["b"] = axis, a, b
    out["value_a"], out["value_b"] = both["value_a"], both["value_b"]
    out["ratio"], out["better"], out["note"] = both["ratio"], both["better"], notes
    return frame.sort_natural(out, by, rows).reset_index(drop=True)
