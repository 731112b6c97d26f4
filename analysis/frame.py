"""What every command does first with a tidy frame: keep one metric, tell the configuration
columns apart (by the user, constant, or following another column), refuse two rows for one
configuration, and average the repeats of each configuration into one value with its status."""

import numpy as np
import pandas as pd

from analysis import units
from analysis.errors import InputError
from analysis.schema import dimension_columns

SUCCESS, FAILED, MISSING = "SUCCESS", "FAILED", "MISSING"


# --------------------------------------------------------------------------- columns


def dimensions(df) -> list:
    return dimension_columns(df.columns)


def require(df, columns, file, why):
    for col in columns:
        if col not in df.columns:
            raise InputError(file, col, f"a column of the file ({why})")


def is_varying(df, col) -> bool:
    """More than one value in the column (a missing value counts as one), told without hashing
    every cell: a million rows of a few categories compare their codes with the first row's."""
    values = df[col]
    if len(values) < 2:
        return False
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.cat.codes.to_numpy()
        return bool((codes != codes[0]).any())
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        numbers = values.to_numpy(dtype=float, na_value=np.nan)
        if np.isnan(numbers[0]):
            return not np.isnan(numbers).all()
        return bool((numbers != numbers[0]).any())  # NaN != x: a missing value beside a number varies
    return values.nunique(dropna=False) > 1


def varying(df, columns) -> list:
    return [c for c in columns if is_varying(df, c)]


def constant(df, columns) -> list:
    return [c for c in columns if not is_varying(df, c)]


def following(df, leader, columns) -> list:
    """Columns among `columns` that vary but take one value per value of `leader` (ranks follow
    nodes at a fixed ranks-per-node; the processor follows the system): they describe the leader
    rather than split groups."""
    if not columns:
        return []
    if isinstance(leader, (list, tuple)):  # several columns lead together (best's --by)
        lead = df.groupby(list(leader), observed=True, dropna=False, sort=False).ngroup().to_numpy()
    else:
        lead = _codes(df[leader])
    if not len(lead):
        return []
    slots = lead.max() + 2  # one more for a missing leader (code -1 lands in the last slot)
    out = []
    for col in columns:
        if not is_varying(df, col):
            continue
        codes = _codes(df[col])
        seen = np.empty(slots, dtype=codes.dtype)
        seen[lead] = codes  # one of each leader value's codes; it follows if every row has that one
        if (seen[lead] == codes).all():
            out.append(col)
    return out


def _codes(values: pd.Series) -> np.ndarray:
    """One integer per distinct value (a missing value is one value too), as groupby(dropna=False) tells them."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        return values.cat.codes.to_numpy()
    return pd.factorize(values, use_na_sentinel=False)[0]


def keys(df, by, extra=()) -> list:
    """Grouping columns in file order: `by`, `extra` and every constant dimension that has a
    value (carried along so outputs keep e.g. the application name; empty ones say nothing)."""
    filled = [c for c in constant(df, dimensions(df)) if len(df) and str(df[c].iloc[0]) not in ("", "<NA>", "nan")]
    wanted = set(by) | set(extra) | set(filled)
    return [c for c in df.columns if c in wanted]


# --------------------------------------------------------------------------- rows


def select_metric(df, metric, file) -> pd.DataFrame:
    """The rows of one metric, in one unit; a metric the file lacks is bad input."""
    present = [str(m) for m in pd.unique(df["metric"])]
    if metric not in set(present):
        shown = ", ".join(sorted(present)[:15]) + (", ..." if len(present) > 15 else "")
        raise InputError(file, "metric", f"one of the file's metrics ({shown}); '{metric}' is not there")
    return units.harmonise(df[df["metric"] == metric], file)


def ok(df) -> pd.Series:
    """Rows that carry a usable number: a value, and no status other than SUCCESS."""
    mask = df["value"].notna()
    if "status" in df.columns:
        mask &= df["status"].isin([SUCCESS, ""])
    return mask


def row_status(df) -> pd.Series:
    """SUCCESS, FAILED (the run failed: status says so) or MISSING (no number and no failure
    recorded, e.g. a published cell the paper could not fill)."""
    status = pd.Series(MISSING, index=df.index, dtype=object)
    if "status" in df.columns:
        status[~df["status"].isin([SUCCESS, ""])] = FAILED
    status[ok(df)] = SUCCESS
    return status


def check_duplicates(df, key_cols, file):
    """Two rows for one configuration (and repeat) are bad input: say which lines, and which
    column tells them apart when one does (so the user knows what to add to --by)."""
    subset = list(key_cols) + ["metric"] + (["repeat"] if "repeat" in df.columns else [])
    if "context" in df.columns and "context" not in subset:
        subset.append("context")
    dup = df.duplicated(subset=subset, keep=False)
    if not dup.any():
        return
    dups = df.loc[dup.to_numpy(), subset]
    ids = dups.groupby(subset, observed=True, dropna=False, sort=False).ngroup()
    first, twin = dups.index[(ids == ids.iloc[0]).to_numpy()][:2]
    differ = [c for c in dimensions(df) if c not in subset and not _same(df.at[first, c], df.at[twin, c])]
    where = ", ".join(f"{c}={df.at[first, c]}" for c in subset if c != "metric")
    if differ:
        expected = (
            f"one row per configuration; lines {first + 2} and {twin + 2} are both {where} "
            f"but differ in {', '.join(differ)}: group by it too (--by, --rows/--cols) or filter the file"
        )
    else:
        expected = (
            f"one row per configuration and repeat; lines {first + 2} and {twin + 2} "
            f"are the same configuration ({where})"
        )
    raise InputError(file, ",".join(c for c in subset if c != "metric") or "metric", expected)


def _same(a, b) -> bool:
    if pd.isna(a) or pd.isna(b):
        return pd.isna(a) and pd.isna(b)
    return a == b


def aggregate(df, key_cols, file) -> pd.DataFrame:
    """One row per configuration: key columns, metric, unit, value (mean of the successful
    repeats), n (how many), status (SUCCESS, FAILED or MISSING) and note (why not, if known)."""
    key_cols = list(key_cols)
    check_duplicates(df, key_cols, file)
    good = ok(df)
    status = row_status(df)
    group_cols = key_cols + ["metric", "unit"]
    work = df[group_cols].copy()
    work["_value"] = df["value"].where(good)
    work["_ok"] = good
    work["_failed"] = status == FAILED
    grouped = work.groupby(group_cols, observed=True, sort=False, dropna=False)
    out = grouped.agg(value=("_value", "mean"), n=("_ok", "sum"), _failed=("_failed", "any")).reset_index()
    out["status"] = SUCCESS
    out.loc[out["n"] == 0, "status"] = MISSING
    out.loc[(out["n"] == 0) & out["_failed"], "status"] = FAILED
    out = out.drop(columns="_failed")
    out["note"] = _notes(df[~good], group_cols, out)
    return out[key_cols + ["metric", "value", "unit", "n", "status", "note"]]


def _notes(bad, group_cols, out) -> pd.Series:
    """The first reason given (a published note, a status_reason) among a configuration's
    rows without a number; '' when none."""
    notes = pd.Series("", index=out.index, dtype=object)
    text_cols = [c for c in ("status_reason", "note") if c in bad.columns]
    if bad.empty or not text_cols:
        return notes
    reason = strings(bad[text_cols[0]])
    for col in text_cols[1:]:  # as " ".join per row, a column at a time
        reason = reason + " " + strings(bad[col])
    reason = reason.str.strip()
    first = (
        bad[group_cols]
        .assign(_note=reason)[reason != ""]
        .groupby(group_cols, observed=True, sort=False, dropna=False)["_note"]
        .first()
    )
    if first.empty:
        return notes
    merged = out[group_cols].merge(first.reset_index(), on=group_cols, how="left")["_note"]
    return merged.fillna("").set_axis(out.index)


def strings(values: pd.Series) -> pd.Series:
    """values.astype(str), made from the categories for a categorical column (a million rows
    repeat a few values: one string per category, not per row); a missing value is 'nan'."""
    if values.dtype.name != "category":
        return values.astype(str)
    names = np.append(values.cat.categories.astype(str).to_numpy(dtype=object), "nan")  # code -1: missing
    return pd.Series(names[values.cat.codes.to_numpy()], index=values.index, name=values.name)


def label(df, columns, sep=", ", names=False) -> pd.Series:
    """Text naming each row's configuration: 'a, x' or, with names, 'system=a, mpi=x'
    (vectorised: a million rows are fine)."""
    text = pd.Series("", index=df.index)
    for i, col in enumerate(columns):
        part = (col + "=" if names else "") + strings(df[col])
        text = part if i == 0 else text + sep + part
    return text


def as_text(df, columns) -> pd.DataFrame:
    """Categorical columns as plain text, so frames read from different files merge on them."""
    out = df.copy()
    for col in columns:
        if out[col].dtype.name == "category":
            out[col] = out[col].astype(str)
    return out


def group(df, by):
    """groupby that also works for no grouping columns (one group: the whole frame)."""
    if by:
        return df.groupby(list(by), observed=True, sort=False, dropna=False)
    return df.groupby(pd.Series(0, index=df.index), sort=False)


def sort_natural(df, columns, reference=None) -> pd.DataFrame:
    """Sort by columns: numbers as numbers, text in order of first appearance in `reference`
    (default df; pass the input rows to keep the file's order, which is the paper's)."""
    if not columns:
        return df
    reference = df if reference is None else reference
    keys = {}
    for col in columns:
        values = df[col]
        if pd.api.types.is_numeric_dtype(values):
            keys[col] = values
        else:
            seen = [str(v) for v in pd.unique(reference[col])] + [str(v) for v in pd.unique(values)]
            keys[col] = strings(values).map({v: i for i, v in enumerate(dict.fromkeys(seen))})
    order = pd.DataFrame(keys).sort_values(list(columns), kind="stable").index
    return df.loc[order]
