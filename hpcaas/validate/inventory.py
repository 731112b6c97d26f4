"""Each node's inventory (suite.sh's: kernel, CPU governor, SMT, transparent hugepages, MPI, the
BLAS library and the kernel it picked, the fabric and its libraries), side by side with the
other nodes' and the baseline's, and the machine's load during the run."""

import json
import re
from pathlib import Path

import pandas as pd

# Keys that differ from node to node by nature, or are the run's and not the node's.
OWN = {"node", "cpus allowed", "load", "fault"}
LOAD = re.compile(r"^([0-9.]+) [0-9.]+ [0-9.]+ on ([0-9]+) cpu")


def collect(sections_by_repeat: dict) -> dict:
    """{node: {key: value}} over the repeats (a value that changed between repeats lists each)."""
    out = {}
    for sections in sections_by_repeat.values():
        for section, found in sections.items():
            if not section.startswith("node "):
                continue
            node = out.setdefault(section.split(" ", 1)[1], {})
            for key, value in found["inventory"].items():
                seen = node.setdefault(key, [])
                if value not in seen:
                    seen.append(value)
    return {n: {k: " / ".join(v) for k, v in keys.items()} for n, keys in out.items()}


def failures(sections_by_repeat: dict) -> dict:
    """{section: {tool: reason}} of the tools that failed, in any repeat (the first reason)."""
    out = {}
    for sections in sections_by_repeat.values():
        for section, found in sections.items():
            for tool, reason in found["failed"].items():
                out.setdefault(section, {}).setdefault(tool, reason)
    return out


def table(nodes: dict, baseline: dict = None) -> pd.DataFrame:
    """key, one column per node (and `baseline`: the same node's, else the value every baseline
    node had); rows where nodes differ, or differ from the baseline, first."""
    names = list(nodes)
    keys = list(dict.fromkeys(k for n in names for k in nodes[n] if k not in OWN))
    rows = []
    for key in keys:
        row = {"key": key, **{n: nodes[n].get(key, "") for n in names}}
        if baseline:
            theirs = {b.get(key, "") for b in baseline.values()}
            row["baseline"] = theirs.pop() if len(theirs) == 1 else " / ".join(sorted(theirs))
        differs = len({row[n] for n in names}) > 1 or (baseline and any(row[n] != row["baseline"] for n in names))
        row["differs"] = "yes" if differs else ""
        rows.append(row)
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    return out.sort_values("differs", ascending=False, kind="stable").reset_index(drop=True)


def load(nodes: dict, shares: dict) -> str:
    """The machine's load in words: the 1-minute load average each node saw at the start of each
    repeat, and the share of their cores the tools' tasks had ({tool: [shares]})."""
    averages, cpus = [], set()
    for found in nodes.values():
        for value in found.get("load", "").split(" / "):
            match = LOAD.match(value)
            if match:
                averages.append(float(match[1]))
                cpus.add(match[2])
    text = (
        f"1-minute load average {min(averages):g} to {max(averages):g} on {'/'.join(sorted(cpus))} CPU(s)"
        if averages
        else "load average not recorded"
    )
    parts = [f"{tool} {min(v):.0%}-{max(v):.0%}" for tool, v in shares.items() if v]
    if parts:
        text += "; the tools' tasks had this share of their cores: " + ", ".join(parts)
    return text


def sidecar(baseline_csv) -> Path:
    """Where a baseline's inventory is kept: beside it."""
    path = Path(baseline_csv)
    return path.with_name(path.stem + ".inventory.json")


def write(baseline_csv, nodes: dict):
    sidecar(baseline_csv).write_text(json.dumps(nodes, indent=1, sort_keys=True) + "\n")


def read(baseline_csv) -> dict:
    path = sidecar(baseline_csv)
    return json.loads(path.read_text()) if path.is_file() else {}
