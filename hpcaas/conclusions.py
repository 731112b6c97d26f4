"""A paper's conclusions, checked on our results: `holds`, `does not hold here`, or
`not comparable at this scale` (the results lack a value the claim is about).

study.yaml `conclusions:` rows:

    - claim: "'cores' binding about 2x better than 'threads'"   # the paper's words
      where: Section 4.4                                        # where they stand
      metric: Elapsed time                                      # our FOM the claim is about
      where_rows: {fabric: ofi}                                 # optional: only these rows
      check:                                                    # one of:
        ratio: {axis: binding, a: cores, b: threads, at_least: 1.5}   # a better than b by >= x (at_most: <= x)
        ratio: {a: {fabric: yalla, system: s1}, b: {fabric: tcp, system: s2}, at_least: 16}   # two cells
        best: {axis: binding, value: cores}                           # the best value along the axis
        order: {axis: nodes, values: ['1', '2', '4']}                 # best to worst, in this order
        speedup: {axis: nodes, at_least: 1.2}                         # largest vs smallest axis value

Values are the mean over the successful rows of each axis value; FAILED rows never count. "Better"
follows the metric's direction (analysis.directions: a time is lower-is-better).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from analysis.errors import InputError, listed

if TYPE_CHECKING:  # pandas is imported where results are read: a study loads without it
    import pandas as pd

HOLDS, FAILS, NOT_COMPARABLE = "holds", "does not hold here", "not comparable at this scale"
CHECKS = ("ratio", "best", "order", "speedup")


def validate(rows, file) -> list:
    for key, row in listed(rows, file, "conclusions", "a list of claims (hpcaas/conclusions.py)"):
        for field in ("claim", "where", "metric", "check"):
            if not row.get(field):
                raise InputError(file, f"{key}.{field}", "present (hpcaas/conclusions.py)")
        check = row["check"]
        if not isinstance(check, dict) or len(check) != 1 or next(iter(check)) not in CHECKS:
            raise InputError(file, f"{key}.check", f"one of {', '.join(CHECKS)}")
        spec = next(iter(check.values()))
        cells = isinstance(spec.get("a"), dict) and isinstance(spec.get("b"), dict)
        if "axis" not in spec and not cells:
            raise InputError(
                file, f"{key}.check.{next(iter(check))}.axis", "the results column the claim compares along"
            )
    return rows


def _means(df, row) -> tuple:
    """(mean per axis value as text, direction) of the claim's metric, or (None, None)."""
    from analysis import directions, frame

    kind, spec = next(iter(row["check"].items()))
    rows = df[(df["metric"].astype(str) == row["metric"]) & frame.ok(df)]
    for col, value in (row.get("where_rows") or {}).items():
        if col not in rows:
            return None, None
        rows = rows[rows[col].astype(str) == str(value)]
    if rows.empty or spec["axis"] not in rows:
        return None, None
    direction = directions.of(row["metric"], rows["unit"].iloc[0])
    means = rows.groupby(rows[spec["axis"]].astype(str))["value"].mean()
    return means, direction


def _cell(df, row, where: dict):
    """Mean of the claim's metric over the successful rows matching `where`, or None."""
    from analysis import frame

    rows = df[(df["metric"].astype(str) == row["metric"]) & frame.ok(df)]
    for col, value in where.items():
        if col not in rows:
            return None
        rows = rows[rows[col].astype(str) == str(value)]
    return float(rows["value"].mean()) if not rows.empty else None


def evaluate(df: pd.DataFrame, row: dict) -> tuple:
    """(status, what was measured, as a short text)."""
    from analysis import directions

    kind, spec = next(iter(row["check"].items()))
    if kind == "ratio" and isinstance(spec.get("a"), dict):
        a, b = _cell(df, row, spec["a"]), _cell(df, row, spec["b"])
        units = df.loc[df["metric"].astype(str) == row["metric"], "unit"]
        direction = directions.of(row["metric"], units.iloc[0]) if len(units) else None
        if a is None or b is None or direction is None:
            return NOT_COMPARABLE, f"no result here for {_cell_text(spec['a'] if a is None else spec['b'])}"
        ratio = directions.oriented_ratio(a, b, direction)
        ok = ratio >= spec.get("at_least", float("-inf")) and ratio <= spec.get("at_most", float("inf"))
        return (HOLDS if ok else FAILS), f"{ratio:.3g}x"
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
    if kind == "best":
        best = min(means.index, key=means.get) if direction == directions.LOWER else max(means.index, key=means.get)
        if len(means) < 2:
            return NOT_COMPARABLE, f"one {spec['axis']} value only ({best})"
        return (HOLDS if best == str(spec["value"]) else FAILS), f"best {spec['axis']}: {best}"
    if kind == "order":
        wanted = [str(v) for v in spec["values"] if str(v) in means]
        if len(wanted) < 2:
            return NOT_COMPARABLE, f"fewer than two of {spec['values']} measured"
        ok = all(better(means[x], means[y]) for x, y in zip(wanted, wanted[1:]))
        return (HOLDS if ok else FAILS), " > ".join(f"{v} ({means[v]:.4g})" for v in wanted)
    values = sorted(means.index, key=lambda v: float(v))  # speedup: a numeric axis (nodes, ranks)
    if len(values) < 2:
        return NOT_COMPARABLE, f"one {spec['axis']} value only"
    speedup = directions.oriented_ratio(means[values[-1]], means[values[0]], direction)
    return (HOLDS if speedup >= spec["at_least"] else FAILS), f"{values[0]} -> {values[-1]}: {speedup:.3g}x"


def _cell_text(cell: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in cell.items())


def checked(row: dict) -> str:
    """What a claim's check compares, in words: the cells or the axis values, and the rows it keeps."""
    kind, spec = next(iter(row["check"].items()))
    if kind == "ratio" and isinstance(spec.get("a"), dict):
        text = f"{_cell_text(spec['a'])} vs {_cell_text(spec['b'])}"
    elif kind == "ratio":
        text = f"{spec['axis']} {spec['a']} vs {spec['b']}"
    elif kind == "best":
        text = f"the best {spec['axis']}"
    elif kind == "order":
        text = f"{spec['axis']} {' > '.join(map(str, spec['values']))}"
    else:
        text = f"{spec['axis']}: largest vs smallest"
    bounds = [
        f"at least {spec['at_least']}x" if "at_least" in spec else "",
        f"at most {spec['at_most']}x" if "at_most" in spec else "",
    ]
    text += "".join(f", {b}" for b in bounds if b)
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
            }
        )
    return pd.DataFrame(out, columns=["claim", "where", "metric", "checked", "measured", "status"])


def counts(verdicts: pd.DataFrame) -> str:
    """The verdicts in words: how many hold, do not hold here, and cannot be compared here."""
    n = verdicts["status"].value_counts()
    parts = [f"{n.get(HOLDS, 0)} hold", f"{n.get(FAILS, 0)} do not hold here"]
    if n.get(NOT_COMPARABLE, 0):
        parts.append(f"{n[NOT_COMPARABLE]} are not comparable at this scale (the measured column says why)")
    return f"Of the paper's {len(verdicts)} conclusions checked here: " + ", ".join(parts) + "."
