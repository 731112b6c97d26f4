"""The report of `make validate`, read at a glance: the verdict and the nodes that fell out in its
first lines, a table nodes x parts (the verdict and the fraction of the limit reached, also a
heat map), one line per node and part, the run (sizes, the injected fault, the machine's load,
the baseline), the rule, each node's inventory beside the others' and the baseline's, every
check, and the sources as footnotes.

hpcaas/validate computes the tables (judge.py) and calls `build`; this module only writes.
"""

import io

import pandas as pd

from analysis import files

PART_TITLES = {"compute": "compute", "memory": "memory", "network": "network", "io": "I/O"}
MARK = {"PASS": "PASS", "FAIL": "**FAIL**", "UNSTABLE": "*UNSTABLE*", "not checked": "not checked"}


def _cell(verdict, heat) -> str:
    value, kind = heat if isinstance(heat, tuple) else (None, "")
    if value is None or pd.isna(value):
        return MARK[verdict]
    shown = f"{value:.0%} of limit" if kind == "limit" else f"{value:.2f}x peers"
    return f"{MARK[verdict]} {shown}"


def heat_figure(summary: pd.DataFrame, heat: pd.DataFrame, parts) -> bytes:
    """PNG: nodes x parts, coloured by verdict, each cell the fraction of the limit (or of the
    peers' median where the limit is unknown)."""
    from matplotlib.patches import Rectangle

    from analysis.plot import axes

    colours = {"PASS": "#4caf50", "FAIL": "#e53935", "UNSTABLE": "#ffb300", "not checked": "#e0e0e0"}
    nodes = list(heat["node"])
    fig, ax = axes((1.6 * len(parts) + 1.5, 0.55 * len(nodes) + 1.2))
    verdicts = summary.set_index(["node", "part"])["verdict"]
    for i, node in enumerate(nodes):
        row = heat[heat["node"] == node].iloc[0]
        for j, part in enumerate(parts):
            verdict = verdicts.get((node, part), "not checked")
            ax.add_patch(Rectangle((j, i), 1, 1, color=colours[verdict], ec="white", lw=2))
            value, kind = row[part] if isinstance(row[part], tuple) else (None, "")
            label = (
                verdict if value is None or pd.isna(value) else f"{value:.0%}" if kind == "limit" else f"{value:.2f}x"
            )
            ax.text(j + 0.5, i + 0.5, label, ha="center", va="center", fontsize=9)
    ax.set_xlim(0, len(parts))
    ax.set_ylim(len(nodes), 0)
    ax.set_xticks([j + 0.5 for j in range(len(parts))], [PART_TITLES[p] for p in parts])
    ax.set_yticks([i + 0.5 for i in range(len(nodes))], nodes)
    ax.tick_params(length=0)
    ax.set_title("fraction of the limit (x: of the other nodes' median where the limit is unknown)", fontsize=8)
    for side in ax.spines.values():
        side.set_visible(False)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    return buf.getvalue()


def _footnotes(checks: pd.DataFrame, sources: dict) -> tuple:
    """(checks with their sources as [n] marks, the footnotes in order)."""
    order = []
    marks = []
    for keys in checks["sources"].fillna(""):
        numbers = []
        for key in [k for k in str(keys).split("|") if k]:
            if key not in order:
                order.append(key)
            numbers.append(f"[{order.index(key) + 1}]")
        marks.append(" ".join(numbers))
    notes = [f"[{i}] {key}: {sources.get(key, 'source not found')}" for i, key in enumerate(order, 1)]
    return checks.assign(sources=marks), notes


def _number(value, digits=4) -> str:
    return "" if value is None or pd.isna(value) else f"{value:.{digits}g}"


def build(
    run: dict, summary: pd.DataFrame, heat: pd.DataFrame, checks: pd.DataFrame, inventory: pd.DataFrame, sources: dict
) -> str:
    """The report. `run`: system, verdict, nodes, repeats, sizes, fault, load, baseline, rule,
    limits_rule (texts); `checks` has a `sources` column of '|'-separated keys of `sources`."""
    parts = list(PART_TITLES)
    bad = summary[summary["verdict"].isin(["FAIL", "UNSTABLE"])]
    bad = bad.sort_values("verdict", key=lambda v: v.map({"FAIL": 0, "UNSTABLE": 1}), kind="stable")
    lines = [f"# Validation of {run['system']}: {run['verdict']}", ""]
    if bad.empty:
        lines.append(
            f"Every node passed every part that was checked ({len(run['nodes'])} nodes, {run['repeats']} repeats)."
        )
    else:
        for r in bad.itertuples():
            where = "all nodes" if r.node == "all" else r.node
            lines.append(f"- **{where}: {PART_TITLES[r.part]} {r.verdict}**: {r.why}")
    lines += [
        "",
        f"Fault injected: {run['fault']}. Machine load: {run['load']}.",
        "",
        "## Nodes x parts",
        "",
        "| node | " + " | ".join(PART_TITLES[p] for p in parts) + " |",
        "|---|" + "---|" * len(parts),
    ]
    verdicts = summary.set_index(["node", "part"])["verdict"]
    for row in heat.to_dict("records"):
        cells = [_cell(verdicts.get((row["node"], p), "not checked"), row[p]) for p in parts]
        lines.append(f"| {row['node']} | " + " | ".join(cells) + " |")
    if (summary["node"] == "all").any():
        lines.append(
            f"| all nodes (Allreduce) | | | {MARK[summary.loc[summary['node'] == 'all', 'verdict'].iloc[0]]} | |"
        )
    lines += ["", "![nodes x parts](heatmap.png)", "", "## One line per node and part", ""]
    for r in summary.itertuples():
        where = "all nodes" if r.node == "all" else r.node
        lines.append(f"- {where} {PART_TITLES[r.part]}: {r.verdict} ({r.gates})" + (f": {r.why}" if r.why else ""))
    lines += [
        "",
        "## The run",
        "",
        f"- Nodes: {len(run['nodes'])} ({', '.join(run['nodes'])}), every node at once, {run['repeats']} repeats.",
        f"- Sizes: {run['sizes']}.",
        f"- Fault: {run['fault']}.",
        f"- Machine load: {run['load']}.",
        f"- Baseline: {run['baseline']}.",
        "",
        "## The rule",
        "",
        f"Each check is PASS, FAIL or UNSTABLE by one rule (analysis/gate.py): {run['rule']}.",
        f"{run['limits_rule']}",
        "",
        "## Inventory",
        "",
        "Each node's, the baseline's where it has one; rows where they differ first.",
        "",
        files.render(inventory, "markdown") if not inventory.empty else "(none)",
        "",
        "## Every check",
        "",
    ]
    shown, notes = _footnotes(checks, sources)
    table = pd.DataFrame(
        {
            "where": shown["section"],
            "metric": shown["metric"],
            "gate": shown["gate"],
            "verdict": shown["verdict"],
            "mean": [f"{_number(m)} {u}" if _number(m) else "" for m, u in zip(shown["mean"], shown["unit"])],
            "reference": [_number(v) for v in shown["reference"]],
            "fraction": [_number(v, 3) for v in shown["fraction"]],
            "expected": [_number(v, 3) for v in shown["expected"]],
            "tolerance %": [_number(v, 3) for v in shown["tolerance_pct"]],
            "change % ± margin": [
                f"{c:+.1f} ± {m:.1f}" if not (pd.isna(c) or pd.isna(m)) else ""
                for c, m in zip(shown["change_pct"], shown["margin_pct"])
            ],
            "reason": shown["reason"].fillna(""),
            "sources": shown["sources"],
        }
    )
    lines += [files.render(table, "markdown"), "", "## Sources", ""] + [f"{n}  " for n in notes]
    return "\n".join(lines) + "\n"
