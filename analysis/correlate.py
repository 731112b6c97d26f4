"""`correlate`: Pearson r of a metric with each numeric system trait (peak GFLOP/s, memory
bandwidth, MPI latency, ...), per group: does performance follow the hardware (PASC'19 Table 11)?

The traits come from one or more sources, joined on the system and each trait written once:
a configs/ folder (each system's numeric facts by dotted key, e.g.
memory_bandwidth.measured_gbs_per_node, and its R_peak, rpeak_node_gflops), or a CSV, wide
(system + one column per trait) or tidy (system, metric, value: a published table, or another
study's results such as IMB's Sendrecv times), whose rows `traits_where` selects and whose system
labels `traits_systems` maps to ours. `where` selects the result rows; with `best`, each system
counts once per group, at its best configuration (the paper's per-system choice of build).

n is the number of (configuration, system) points with both numbers; r is empty when it is
undefined (fewer than two points, or no spread)."""

from pathlib import Path

import numpy as np
import pandas as pd

from analysis import directions, frame
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


def from_configs(configs_dir, names) -> pd.DataFrame:
    """system, rpeak_node_gflops and every numeric fact (dotted key) of configs/<name>/system.yaml
    for each of the names that has a folder (a list's facts, the GPUs', are left out)."""
    from hpcaas import systems  # lazily: it needs jsonschema and the configs tree

    rows = []
    for name in names:
        if not (Path(configs_dir) / name / "system.yaml").is_file():
            continue
        doc = systems.load_system(Path(configs_dir) / name)
        try:
            peak = float(systems.rpeak_per_node_gflops(doc))
        except (TypeError, KeyError):  # a fact R_peak needs is unknown (null) or absent
            peak = np.nan
        row = {"system": name, "rpeak_node_gflops": peak}
        for key, fact in systems._facts(doc):
            value = fact["value"]
            listed = any(part.isdigit() for part in key.replace("[", ".").replace("]", "").split("."))
            if isinstance(value, (int, float)) and not isinstance(value, bool) and not listed:
                row[key] = float(value)
        rows.append(row)
    return pd.DataFrame(rows).reindex(columns=["system", *dict.fromkeys(k for r in rows for k in r if k != "system")])


def select(df, conditions, file, option="--where") -> pd.DataFrame:
    """The rows matching every (column, op, value) of conditions (op '=' or '!=', as text)."""
    for column, op, value in conditions:
        if column not in df.columns:
            raise InputError(file, column, f"a column of the file ({option} {column}{op}{value})")
        same = frame.strings(df[column]) == value
        df = df[same if op == "=" else ~same]
    return df


def parse_where(items, option="--where") -> list:
    """COLUMN=VALUE / COLUMN!=VALUE items as (column, op, value)."""
    out = []
    for item in items or []:
        column, sep, value = item.partition("=")
        op = "="
        if column.endswith("!"):
            column, op = column[:-1], "!="
        if not sep or not column:
            raise InputError("command line", option, f"COLUMN=VALUE or COLUMN!=VALUE; got {item!r}")
        out.append((column, op, value))
    return out


def parse_systems(items) -> dict:
    """--traits-systems LABEL=SYSTEM items as {label: system}."""
    out = {}
    for item in items or []:
        label, sep, system = item.partition("=")
        if not sep or not label or not system:
            raise InputError("command line", "--traits-systems", f"LABEL=SYSTEM; got {item!r}")
        out[label] = system
    return out


def join_traits(tables) -> pd.DataFrame:
    """[(file, wide traits)] joined on the system; a trait two sources give is bad input."""
    out, seen = None, {}
    for file, table in tables:
        table = numeric_traits(table)
        for col in table.columns[1:]:
            if col in seen:
                raise InputError(file, col, f"a trait one source gives (it is also in {seen[col]})")
            seen[col] = file
        out = table if out is None else out.merge(table, on="system", how="outer")
    return out


def _best(agg, by, direction) -> pd.DataFrame:
    """Each (group, system)'s best configuration (its successful mean)."""
    ok = agg[agg["value"].notna()]
    keys = [*by, "system"]
    pick = ok.groupby(keys, observed=True, dropna=False, sort=False)["value"]
    index = pick.idxmin() if direction == directions.LOWER else pick.idxmax()
    return ok.loc[index.to_numpy()]


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


def correlate(df, metric, traits, file, traits_file, by=(), where=(), best=None, names=None) -> pd.DataFrame:
    """r per group and trait. traits: one wide table (system + trait columns); where: (column,
    op, value) conditions on the rows; best: the metric's direction, to take each system's best
    configuration per group; names: the traits to correlate with, in this order (default: all)."""
    frame.require(df, ["system"], file, "correlate joins the traits on the system")
    df = select(df, where, file)
    rows = frame.select_metric(df, metric, file)
    by = list(by)
    frame.require(rows, by, file, "a --by column")
    keys = frame.keys(rows, frame.varying(rows, frame.dimensions(rows)))
    agg = frame.aggregate(rows, keys, file)
    if best is not None:
        agg = _best(agg, by, best)
    table = numeric_traits(traits)
    found = [c for c in table.columns if c != "system"]
    if not found:
        raise InputError(traits_file, "(columns)", "at least one numeric trait column besides system")
    for name in names or []:
        if name not in found:
            raise InputError(traits_file, name, f"a numeric trait of the sources (they have {', '.join(found)})")
    names = list(names) if names else found
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
