"""Tables for people: Markdown (the CLI's --format markdown, report.md; report.html renders it).
Numbers are shown to six significant digits (as the papers print them: 1340.54, 93.5); a
missing number is left blank so it can never be read as one."""

import math

import numpy as np
import pandas as pd


def number(x) -> str:
    """1340.54 -> '1340.54', 1.2192307 -> '1.21923', 7 -> '7', 2.5e6 -> '2500000', NaN -> ''."""
    if x is None or x is pd.NA:
        return ""
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = float(x)
    if math.isnan(x):
        return ""
    if math.isfinite(x) and abs(x) >= 1e6:
        return f"{x:.0f}"
    return f"{x:.6g}"


def cell(x) -> str:
    if isinstance(x, str):
        return x
    if isinstance(x, (int, float, np.integer, np.floating, np.bool_)) or x is None or x is pd.NA:
        return number(x)
    return str(x)


def _rows(df: pd.DataFrame):
    header = [str(c) for c in df.columns]
    body = [[cell(v) for v in row] for row in df.itertuples(index=False, name=None)]
    return header, body


def markdown(df: pd.DataFrame) -> str:
    header, body = _rows(df)

    def esc(s):
        return s.replace("|", "\\|").replace("\n", " ")

    numeric = [pd.api.types.is_numeric_dtype(df[c]) for c in df.columns]
    lines = [
        "| " + " | ".join(esc(h) for h in header) + " |",
        "|" + "|".join("---:" if n else "---" for n in numeric) + "|",
    ]
    lines += ["| " + " | ".join(esc(v) for v in row) + " |" for row in body]
    return "\n".join(lines) + "\n"
