"""`published`: measured (or derived) numbers against a paper's printed ones, cell by cell.

The two files are joined on the dimensions both have (and use), and on the metric; the ratio is
measured / published. agrees_as_printed says whether the measured number, rounded as the paper
printed its number (3.89 -> 2 decimals), gives the printed number: how a paper's own arithmetic
is checked. Of the metrics both files have, cells only one side has are listed, with status
saying which side lacks them."""

import numpy as np
import pandas as pd

from analysis import frame, units
from analysis.errors import InputError

BOTH, NO_MEASURED, NO_PUBLISHED = "both", "missing_measured", "missing_published"


def _used(df, col) -> bool:
    return bool((df[col].astype(str) != "").any())


def shared_dimensions(measured, reference) -> list:
    """Dimensions both files have and fill: an empty column in either joins nothing."""
    ref_dims = set(frame.dimensions(reference))
    return [d for d in frame.dimensions(measured) if d in ref_dims and _used(measured, d) and _used(reference, d)]


def _round_half_up(values, decimals):
    scale = np.power(10.0, decimals)
    return np.floor(np.abs(values) * scale + 0.5) / scale * np.sign(values)


def published(measured, reference, measured_file, reference_file, rename=None) -> pd.DataFrame:
    if "value_decimals" not in reference.columns:
        raise ValueError("read the reference with files.read_results(value_decimals=True)")
    measured = measured.copy()
    measured["metric"] = measured["metric"].astype(str).replace(rename or {})
    on = shared_dimensions(measured, reference)
    if not on:
        raise InputError(
            reference_file,
            "(dimensions)",
            "at least one dimension column shared with " f"{measured_file} (e.g. system, nodes)",
        )
    metrics = set(measured["metric"]) & set(reference["metric"].astype(str))
    if not metrics:
        # A report says it in words (not_comparable); the command line shows the option that maps names.
        raise InputError(
            reference_file,
            "metric",
            "a metric the measured file also has "
            f"(measured: {', '.join(sorted(set(measured['metric']))[:10])}; use --map M=REF)",
        )
    # Metrics only one side has are not cells to compare (a paper's walltime vs our speed-ups).
    reference = reference[reference["metric"].astype(str).isin(metrics)]
    measured = measured[measured["metric"].isin(metrics)]

    mine = frame.aggregate(units.harmonise(measured, measured_file), on, measured_file)
    theirs = frame.aggregate(reference, on, reference_file)
    decimals = reference.groupby(on + ["metric"], observed=True, dropna=False)["value_decimals"].first()
    theirs = theirs.merge(decimals.reset_index(), on=on + ["metric"], how="left")
    mine, theirs = frame.as_text(mine, on + ["metric", "unit"]), frame.as_text(theirs, on + ["metric", "unit"])
    both = mine.merge(theirs, on=on + ["metric"], how="outer", suffixes=("_m", "_p"), indicator=True)

    # Bring the measured number into the published unit where the units convert.
    scale = [_scale(um, up) for um, up in zip(both["unit_m"].fillna(""), both["unit_p"].fillna(""))]
    both["measured"] = both["value_m"] * np.array(scale, dtype=float)
    both["published"] = both["value_p"]
    both["unit"] = both["unit_p"].where(both["unit_p"].notna(), both["unit_m"])
    both["ratio"] = both["measured"] / both["published"]
    printed = _round_half_up(both["measured"], both["value_decimals"].fillna(0).to_numpy())
    agree = np.isclose(printed, both["published"], rtol=0, atol=1e-9)
    both["agrees_as_printed"] = pd.Series(agree, index=both.index).where(
        both["measured"].notna() & both["published"].notna()
    )
    both["status"] = np.select(
        [
            both["_merge"] == "left_only",
            both["_merge"] == "right_only",
            both["status_p"] != frame.SUCCESS,
            both["status_m"] != frame.SUCCESS,
        ],
        [
            NO_PUBLISHED,
            NO_MEASURED,
            "published_" + both["status_p"].fillna("").str.lower(),
            "measured_" + both["status_m"].fillna("").str.lower(),
        ],
        default=BOTH,
    )
    both["note"] = list(_notes(both))
    out = both[on + ["metric", "unit", "measured", "published", "ratio", "agrees_as_printed", "status", "note"]]
    return frame.sort_natural(out, ["metric"] + on, reference).reset_index(drop=True)


def _scale(unit_measured, unit_published) -> float:
    if not unit_measured or not unit_published:
        return 1.0
    try:
        return units.factor(unit_measured, unit_published)
    except ValueError:
        return np.nan  # units that do not convert give no ratio rather than a wrong one


def _notes(both):
    """The published note, the measured side's reason, and any unit conversion."""
    for um, up, nm, np_, m, p in zip(
        both["unit_m"], both["unit_p"], both["note_m"], both["note_p"], both["value_m"], both["measured"]
    ):
        parts = [x for x in (np_, nm) if isinstance(x, str) and x]
        if isinstance(um, str) and isinstance(up, str) and um and up and um != up:  # an empty unit is not converted
            lost = np.isnan(p) and not np.isnan(m)
            parts.append(f"measured in {um}, " + ("which does not convert to " if lost else "converted to ") + up)
        yield "; ".join(parts)


def not_comparable(measured, reference, rename=None):
    """Why the paper's table cannot be set beside ours at all, as a sentence; None when it can."""
    ours = set(measured["metric"].astype(str).replace(rename or {}))
    theirs = set(reference["metric"].astype(str))
    if not ours & theirs:
        return (
            f"the paper's table reports {', '.join(sorted(theirs)[:6])}, and this run measured none of them "
            f"(it measured {', '.join(sorted(ours)[:6])})"
        )
    if not shared_dimensions(measured, reference):
        return "the paper's table and these results share no dimension (system, nodes, ...) to match cells by"
    return None
