"""The cells of a study's results that ran with a substitute (issue 13): every row of the study's
fidelity table (hpcaas/fidelity.py) with `substitute:` that holds on a system the results ran on,
with its value, the reason, and the experiments of the results it covers.

A fidelity row describes the study as it renders on its paper system(s) (`paper_system`), and
holds on every one of them unless it names a `system:`; `application:` and `experiment:` narrow
it to some experiments, as in the dry-run check. On a system that is not a paper system of the
study, the table and its substitutes do not apply: the report says so."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hpcaas.fidelity import holds, on, paper_systems

if TYPE_CHECKING:  # pandas is imported where results are read: a study loads without it
    import pandas as pd

COLUMNS = ["system", "parameter", "application", "value", "substitute", "cells", "experiments"]


def rows(doc: dict, systems) -> list:
    """[(system, row)] for each substitute row that holds on each of `systems` (paper systems
    of the study only), in the table's order."""
    papers = paper_systems(doc)
    return [
        (system, row)
        for system in systems
        if system in papers
        for row in doc.get("fidelity") or []
        if row.get("substitute") and on(row, system)
    ]


def cells(row: dict, system: str, df: pd.DataFrame) -> list:
    """The experiments of the results (one name each) that the row covers on `system`."""
    if not {"experiment", "system", "application"} <= set(df):
        return []
    mine = df[df["system"].astype(str) == system]
    # Results name an experiment <application>.<workload>.<name>; the row's regex reads <name>.
    pairs = set(zip(mine["application"].astype(str), mine["experiment"].astype(str)))
    return sorted(e for app, e in pairs if holds(row, system, app, e.split(".", 2)[-1]))


def table(doc: dict, df: pd.DataFrame) -> pd.DataFrame:
    """One line per (system, substitute row): value, reason and the cells it covers."""
    import pandas as pd

    systems = sorted(set(df["system"].astype(str))) if "system" in df else []
    lines = []
    for system, row in rows(doc, systems):
        names = cells(row, system, df)
        lines.append(
            {
                "system": system,
                "parameter": row["parameter"],
                "application": row.get("application", ""),
                "value": str(row["value"]),
                "substitute": str(row["substitute"]).strip(),
                "cells": len(names),
                "experiments": ", ".join(names),
            }
        )
    return pd.DataFrame(lines, columns=COLUMNS)


def section(doc: dict, df: pd.DataFrame, render) -> str:
    """The report's section (without its heading): the table, or why there is none.
    `render` turns a DataFrame into Markdown (analysis.files.render(df, "markdown"))."""
    systems = sorted(set(df["system"].astype(str))) if "system" in df else []
    papers = paper_systems(doc)
    others = [s for s in systems if s not in papers]
    parts = []
    if others:
        parts.append(
            f"{', '.join(others)}: not a paper system of this study "
            f"({', '.join(papers) or 'none named'}); its fidelity table and substitutes describe "
            "the paper systems only.\n"
        )
    subs = table(doc, df)
    if not subs.empty:
        parts.append(
            f"{len(subs)} fidelity rows ran with a substitute for the paper's value "
            f"({int(subs['cells'].sum())} cells):\n\n" + render(subs)
        )
    elif set(systems) & set(papers):
        parts.append("None: every fidelity row that holds here is the paper's value or `paper silent`.\n")
    return "\n".join(parts)
