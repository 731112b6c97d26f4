"""A paper's conclusions, checked on our results: `holds`, `does not hold here`,
`not comparable at this scale` (the results lack a value the claim is about), or
`not comparable here` (the claim is about systems or data no run here can give: `needs` names them).

study.yaml `conclusions:` rows:

    - claim: "'cores' binding about 2x better than 'threads'"   # the paper's words
      where: Section 4.4                                        # where they stand
      metric: Elapsed time                                      # our FOM the claim is about
      where_rows: {fabric: ofi}                                 # optional: only these rows
      check:                                                    # one of:
        ratio: {axis: binding, a: cores, b: threads, at_least: 1.5}   # a better than b by >= x (at_most: <= x)
        ratio: {a: {fabric: yalla, system: s1}, b: {fabric: tcp, system: s2}, at_least: 16}   # two cells
        best: {axis: binding, value: cores}                           # the best value along the axis
        best: {axis: fabric, value: yalla, every: context}            # ... at each message size alone
        worst: {axis: distribution, value: 'cyclic:cyclic'}           # the worst value along the axis
        order: {axis: nodes, values: ['1', '2', '4']}                 # best to worst, in this order
        speedup: {axis: nodes, at_least: 1.2}                         # largest vs smallest axis value
        scaling: {axis: nodes, column: filesystem, best: lustre}      # whose speedup along the axis is best
        scaling: {axis: ranks, groups: {fdr: {system: s1}, cloud: {system: s2, fabric: yalla}}, best: cloud}
        scaling: {axis: ranks, groups: {...}, worst: cloud}           # ... or whose is the lowest
        needs: "IRUS17's ns/day and node prices (Fig. 11)"            # what the claim compares with
      threshold: {ours: "why this bound"}   # with at_least/at_most: the bound's source, one of
                                            # paper: "the paper's words that state it", or
                                            # ours: "why we chose it" (a lone bound of exactly 1,
                                            # "a better than b" or "a not better than b", needs none)

Values are the mean over the successful rows of each axis value; FAILED rows never count. With
`every: <column>` in an axis check, the check holds only if it holds within each value of that
column on its own (a paper's "consistently", at every message size), not on the mean over them.
With
`of: best` in an axis check, each axis value takes its best configuration's mean instead (the
configurations told apart by every other varying column: a paper that reports the best setting
per node count, such as Kutzner et al.'s protocol). "Better" follows the metric's direction
(analysis.directions: a time is lower-is-better).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from analysis.errors import InputError, listed

if TYPE_CHECKING:  # pandas is imported where results are read: a study loads without it
    import pandas as pd

HOLDS, FAILS, NOT_COMPARABLE = "holds", "does not hold here", "not comparable at this scale"
NOT_COMPARABLE_HERE = "not comparable here"
CHECKS = ("ratio", "best", "worst", "order", "speedup", "scaling", "needs")
BOUNDS = ("at_least", "at_most")


def bounded(check: dict) -> bool:
    """Whether the check states a threshold: a bound other than a lone one of exactly 1 (which says
    only "a is better than b", or "is not", the paper's own comparison)."""
    spec = next(iter(check.values()))
    if not isinstance(spec, dict) or not any(b in spec for b in BOUNDS):
        return False
    given = [b for b in BOUNDS if b in spec]
    return not (len(given) == 1 and float(spec[given[0]]) == 1.0)


def validate(rows, file) -> list:
    for key, row in listed(rows, file, "conclusions", "a list of claims (hpcaas/conclusions.py)"):
        for field in ("claim", "where", "metric", "check"):
            if not row.get(field):
                raise InputError(file, f"{key}.{field}", "present (hpcaas/conclusions.py)")
        check = row["check"]
        if not isinstance(check, dict) or len(check) != 1 or next(iter(check)) not in CHECKS:
            raise InputError(file, f"{key}.check", f"one of {', '.join(CHECKS)}")
        spec = next(iter(check.values()))
        if "needs" in check:
            if not isinstance(spec, str) or not spec.strip():
                raise InputError(file, f"{key}.check.needs", "what the claim needs that no run here gives (text)")
            continue
        kind = next(iter(check))
        cells = isinstance(spec.get("a"), dict) and isinstance(spec.get("b"), dict)
        if "axis" not in spec and not cells:
            raise InputError(
                file, f"{key}.check.{next(iter(check))}.axis", "the results column the claim compares along"
            )
        if kind == "scaling" and not (
            (spec.get("column") or isinstance(spec.get("groups"), dict)) and len({"best", "worst"} & set(spec)) == 1
        ):
            raise InputError(
                file,
                f"{key}.check.scaling",
                "column or groups (what is compared) and one of best or worst (the one that scales best or least)",
            )
        if spec.get("of", "best") != "best":
            raise InputError(file, f"{key}.check.{next(iter(check))}.of", "best (or leave it out: the mean)")
        if "every" in spec and (cells or kind == "scaling" or not isinstance(spec["every"], str)):
            raise InputError(
                file,
                f"{key}.check.{kind}.every",
                "a results column, in an axis check (ratio, best, worst, order, speedup)",
            )
        threshold = row.get("threshold")
        if bounded(check):
            if (
                not isinstance(threshold, dict)
                or len(threshold) != 1
                or not str(next(iter(threshold.values()), "")).strip()
            ):
                raise InputError(
                    file,
                    f"{key}.threshold",
                    'the bound\'s source: {paper: "<the words that state it>"} or {ours: "<why we chose it>"}',
                )
            if next(iter(threshold)) not in ("paper", "ours"):
                raise InputError(file, f"{key}.threshold", f"paper or ours, not {next(iter(threshold))}")
        elif threshold is not None:
            raise InputError(file, f"{key}.threshold", "only with a bound (at_least/at_most other than a lone 1)")
    return rows


def _rows(df, row):
    """The successful rows of the claim's metric that `where_rows` selects (in one unit), or None."""
    from analysis import frame, units

    rows = units.harmonise(df[(df["metric"].astype(str) == row["metric"]) & frame.ok(df)], "results")
    for col, value in (row.get("where_rows") or {}).items():
        if col not in rows:
            return None
        rows = rows[rows[col].astype(str) == str(value)]
    return rows


def _means(df, row, rows=None) -> tuple:
    """(mean per axis value as text, direction) of the claim's metric, or (None, None)."""
    from analysis import directions, frame

    kind, spec = next(iter(row["check"].items()))
    rows = _rows(df, row) if rows is None else rows
    if rows is None or rows.empty or spec["axis"] not in rows:
        return None, None
    direction = directions.of(row["metric"], rows["unit"].iloc[0])
    axis = rows[spec["axis"]].astype(str)
    if spec.get("of") != "best" or direction is None:
        return rows.groupby(axis)["value"].mean(), direction
    configs = [c for c in frame.varying(rows, frame.dimensions(rows)) if c != spec["axis"]]
    per_config = rows.assign(_axis=axis).groupby(["_axis", *configs], dropna=False, observed=True)["value"].mean()
    pick = per_config.groupby(level=0).min if direction == directions.LOWER else per_config.groupby(level=0).max
    return pick(), direction


def _cell(df, row, where: dict):
    """Mean of the claim's metric over the successful rows matching `where`, or None."""
    rows = _rows(df, {**row, "where_rows": {}})
    for col, value in where.items():
        if col not in rows:
            return None
        rows = rows[rows[col].astype(str) == str(value)]
    return float(rows["value"].mean()) if not rows.empty else None


def evaluate(df: pd.DataFrame, row: dict) -> tuple:
    """(status, what was measured, as a short text)."""
    from analysis import directions

    kind, spec = next(iter(row["check"].items()))
    if kind == "needs":
        return NOT_COMPARABLE_HERE, f"needs {spec.strip()}"
    if kind == "ratio" and isinstance(spec.get("a"), dict):
        a, b = _cell(df, row, spec["a"]), _cell(df, row, spec["b"])
        units = df.loc[df["metric"].astype(str) == row["metric"], "unit"]
        direction = directions.of(row["metric"], units.iloc[0]) if len(units) else None
        if a is None or b is None or direction is None:
            return NOT_COMPARABLE, f"no result here for {_cell_text(spec['a'] if a is None else spec['b'])}"
        ratio = directions.oriented_ratio(a, b, direction)
        ok = ratio >= spec.get("at_least", float("-inf")) and ratio <= spec.get("at_most", float("inf"))
        return (HOLDS if ok else FAILS), f"{ratio:.3g}x"
    if kind == "scaling":
        return _scaling(df, row, spec)
    if spec.get("every"):
        return _every(df, row, kind, spec)
    means, direction = _means(df, row)
    if means is None or direction is None:
        return NOT_COMPARABLE, f"no successful {row['metric']} along {spec['axis']}"
    better = (lambda x, y: x < y) if direction == directions.LOWER else (lambda x, y: x > y)
    if kind == "ratio":
        a, b = str(spec["a"]), str(spec["b"])
        if a not in means or b not in means:
            return NOT_COMPARABLE, f"{spec['axis']} has {', '.join(means.index)}, not both {a} and {b}"
        ratio = directions.oriented_ratio(means[a], means[b], direction)
        ok = ratio >= spec.get("at_least", float("-inf")) and ratio <= spec.get("at_most", float("inf"))
        return (HOLDS if ok else FAILS), f"{a} vs {b}: {ratio:.3g}x"
    if kind in ("best", "worst"):
        lowest = (kind == "best") == (direction == directions.LOWER)
        extreme = means.min() if lowest else means.max()
        found = [v for v in means.index if means[v] == extreme]  # a tie names every value in it
        if len(means) < 2:
            return NOT_COMPARABLE, f"one {spec['axis']} value only ({found[0]})"
        return (HOLDS if str(spec["value"]) in found else FAILS), f"{kind} {spec['axis']}: {', '.join(found)}"
    if kind == "order":
        wanted = [str(v) for v in spec["values"] if str(v) in means]
        if len(wanted) < 2:
            return NOT_COMPARABLE, f"fewer than two of {spec['values']} measured"
        ok = all(better(means[x], means[y]) for x, y in zip(wanted, wanted[1:]))
        return (HOLDS if ok else FAILS), " > ".join(f"{v} ({means[v]:.4g})" for v in wanted)
    found = _speedup(means, direction)
    if found is None:
        return NOT_COMPARABLE, f"one {spec['axis']} value only"
    speedup, first, last = found
    return (HOLDS if speedup >= spec["at_least"] else FAILS), f"{first} -> {last}: {speedup:.3g}x"


def _every(df, row, kind, spec) -> tuple:
    """The check within each value of the `every` column on its own: it holds if it holds at each
    value that decides it (and at least one does)."""
    column = spec["every"]
    rows = _rows(df, row)
    if rows is None or rows.empty or column not in rows:
        return NOT_COMPARABLE, f"no successful {row['metric']} by {column}"
    inner = {k: v for k, v in spec.items() if k != "every"}
    decided = {}
    for value in dict.fromkeys(rows[column].astype(str)):
        one = {**row, "where_rows": {**(row.get("where_rows") or {}), column: value}, "check": {kind: inner}}
        status, measured = evaluate(df, one)
        if status in (HOLDS, FAILS):
            decided[value] = (status, measured)
    if not decided:
        return NOT_COMPARABLE, f"no {column} value decides it"
    failing = [v for v, (status, _) in decided.items() if status == FAILS]
    if failing:
        shown = "; ".join(f"{v}: {decided[v][1]}" for v in failing[:3])
        return FAILS, f"fails at {len(failing)} of {len(decided)} {column} values ({shown})"
    return HOLDS, f"holds at each of {len(decided)} {column} values"


def _speedup(means, direction):
    """(largest vs smallest value of a numeric axis, oriented so > 1 is better, and the two
    values), or None for fewer than two."""
    from analysis import directions

    values = sorted(means.index, key=lambda v: float(v))
    if len(values) < 2:
        return None
    return directions.oriented_ratio(means[values[-1]], means[values[0]], direction), values[0], values[-1]


def _scaling(df, row, spec) -> tuple:
    """Which group of `column` speeds up most (best) or least (worst) along the axis (each
    group's own smallest to largest axis value): the paper's "scales better", "speed-up ... lower"."""
    rows = _rows(df, row)
    by = spec.get("column") or "groups"
    if rows is None or rows.empty or spec["axis"] not in rows or (spec.get("column") and by not in rows):
        return NOT_COMPARABLE, f"no successful {row['metric']} along {spec['axis']} by {by}"
    if spec.get("column"):
        groups = rows.groupby(rows[by].astype(str))
    else:  # named groups, each the rows matching its column: value pairs
        groups = []
        for name, where in spec["groups"].items():
            sub = rows
            for col, value in where.items():
                sub = sub[sub[col].astype(str) == str(value)] if col in sub else sub.iloc[0:0]
            groups.append((name, sub))
    speedups = {}
    for group, sub in groups:
        means, direction = _means(df, row, sub)
        found = None if means is None or direction is None else _speedup(means, direction)
        if found:
            speedups[group] = found[0]
    if len(speedups) < 2:
        return NOT_COMPARABLE, f"fewer than two {by} measured at two {spec['axis']} values"
    kind = "best" if "best" in spec else "worst"
    found = (max if kind == "best" else min)(speedups, key=speedups.get)
    measured = ", ".join(f"{g} {v:.3g}x" for g, v in sorted(speedups.items(), key=lambda kv: -kv[1]))
    return (HOLDS if found == str(spec[kind]) else FAILS), measured


def _cell_text(cell: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in cell.items())


def checked(row: dict) -> str:
    """What a claim's check compares, in words: the cells or the axis values, and the rows it keeps."""
    kind, spec = next(iter(row["check"].items()))
    if kind == "ratio" and isinstance(spec.get("a"), dict):
        text = f"{_cell_text(spec['a'])} vs {_cell_text(spec['b'])}"
    elif kind == "ratio":
        text = f"{spec['axis']} {spec['a']} vs {spec['b']}"
    elif kind in ("best", "worst"):
        text = f"the {kind} {spec['axis']}" + (" (each at its best configuration)" if spec.get("of") == "best" else "")
    elif kind == "scaling":
        groups = spec.get("column") or ", ".join(spec["groups"])
        text = f"whose speed-up along {spec['axis']} is {'best' if 'best' in spec else 'lowest'}, by {groups}"
    elif kind == "needs":
        return f"not comparable here: needs {spec.strip()}"
    elif kind == "order":
        text = f"{spec['axis']} {' > '.join(map(str, spec['values']))}"
    else:
        text = f"{spec['axis']}: largest vs smallest"
    bounds = [
        f"at least {spec['at_least']}x" if "at_least" in spec else "",
        f"at most {spec['at_most']}x" if "at_most" in spec else "",
    ]
    text += "".join(f", {b}" for b in bounds if b)
    if spec.get("every"):
        text += f", at each {spec['every']} on its own"
    where = row.get("where_rows")
    return text + (f" (rows with {_cell_text(where)})" if where else "")


def table(df: pd.DataFrame, rows: list) -> pd.DataFrame:
    import pandas as pd

    out = []
    for row in rows:
        status, measured = evaluate(df, row)
        out.append(
            {
                "claim": row["claim"],
                "where": row["where"],
                "metric": row["metric"],
                "checked": checked(row),
                "measured": measured,
                "status": status,
                "threshold": threshold(row),
            }
        )
    return pd.DataFrame(out, columns=["claim", "where", "metric", "checked", "measured", "status", "threshold"])


def threshold(row: dict) -> str:
    """The bound's source as the report and README print it ('' for a check without one)."""
    given = row.get("threshold")
    if not given:
        return ""
    source, words = next(iter(given.items()))
    return f"{'the paper' if source == 'paper' else 'ours'}: {str(words).strip()}"


def counts(verdicts: pd.DataFrame) -> str:
    """The verdicts in words: how many hold, do not hold here, and cannot be compared here."""
    n = verdicts["status"].value_counts()
    parts = [f"{n.get(HOLDS, 0)} hold", f"{n.get(FAILS, 0)} do not hold here"]
    if n.get(NOT_COMPARABLE, 0):
        parts.append(f"{n[NOT_COMPARABLE]} are not comparable at this scale (the measured column says why)")
    if n.get(NOT_COMPARABLE_HERE, 0):
        parts.append(f"{n[NOT_COMPARABLE_HERE]} are not comparable here (the measured column says what they need)")
    return f"Of the paper's {len(verdicts)} conclusions checked here: " + ", ".join(parts) + "."
