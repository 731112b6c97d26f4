"""Each node's verdict, part by part, from one run of the validation suite.

Every FOM of the suite that says something about the hardware (CHECKS) is judged in its section
(a node, a pair of neighbouring nodes, the whole allocation) by up to three gates, each with the
rule of analysis/gate.py (the tolerance from the reference's spread, never the run's; a noisy
run is UNSTABLE, never PASS):

    limits    its fraction of the limit the system's facts give (hpcaas/limits.py), repeat by
              repeat, against the fraction healthy hardware reaches (configs/expected/)
    peers     against the median of the other nodes (pairs) of the same run, with the tolerance
              from their repeats' spread
    baseline  against the system's baseline: the same node's numbers there, else the median of
              the baseline's nodes, with the tolerance from the baseline's spread

Against what was measured at another time (the limits, the baseline), a tool that had less than
SHARE_MIN of its cores (other processes took the rest) is UNSTABLE rather than FAIL: the load may
differ, not the hardware. Against its peers, measured at the same time, it FAILs.

A tool whose own checks failed on a node (suite.sh's status), or that measured nothing, FAILs
that node's part. A node's part takes the worst verdict of its checks (FAIL, UNSTABLE, PASS,
then `not checked`); a node's network is that of its pairs (FAIL only when every pair it is in
FAILs, so with three or more nodes the bad one stands out), the Allreduce is the allocation's.
"""

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis import directions, frame
from analysis import gate as rule
from hpcaas import limits, systems
from hpcaas.paths import CONFIGS

PARTS = ("compute", "memory", "network", "io")
NOT_CHECKED = "not checked"
GATES = ("run", "limits", "peers", "baseline")
# The section of a check about the whole run (the suite did not complete).
SUITE = "suite"
ORDER = {rule.FAIL: 0, rule.UNSTABLE: 1, rule.PASS: 2, NOT_CHECKED: 3}
# A tool with less of its cores than this was not measured alone.
SHARE_MIN = 0.9
# Tools that wait on a device rather than compute: their share of the cores says nothing.
WAITS = ("fio",)

# metric, part, section kind, the tool that measures it (suite.sh's name)
CHECKS = [
    ("HPL GFlops", "compute", "node", "hpl"),
    ("StarDGEMM_Gflops", "compute", "node", "hpcc"),
    ("Triad top rate", "memory", "node", "stream"),
    ("fio write bandwidth", "io", "node", "fio"),
    ("fio read bandwidth", "io", "node", "fio"),
    ("osu_latency 8 B", "network", "pair", "osu_latency"),
    ("osu_bw 4 MiB", "network", "pair", "osu_bw"),
    ("osu_allreduce 8 B", "network", "all", "osu_allreduce"),
    ("osu_allreduce 1 MiB", "network", "all", "osu_allreduce"),
]
# The gates in words, for the report (analysis/gate.py states the rule they share).
GATES_TEXT = (
    "Against the limits, each repeat's fraction of the limit is judged against the expected fraction "
    "(no tolerance: the expected fraction already sits below what healthy hardware reaches); against "
    "the peers, the median of the other nodes' means with the tolerance from their repeats; against "
    f"the baseline, its numbers with the tolerance from its repeats. A tool with less than "
    f"{SHARE_MIN:.0%} of its cores (other processes took the rest) is UNSTABLE rather than FAIL against "
    "what was measured at another time (the limits, the baseline): the load may differ, not the hardware; "
    "against its peers, measured at the same time under the same load, it FAILs."
)
# What the heat map shows of a part: its first metric here.
MAIN = {"compute": "HPL GFlops", "memory": "Triad top rate", "network": "osu_bw 4 MiB", "io": "fio write bandwidth"}
COLUMNS = [
    "section",
    "part",
    "metric",
    "unit",
    "gate",
    "verdict",
    "n",
    "mean",
    "reference",
    "fraction",
    "expected",
    "tolerance_pct",
    "change_pct",
    "margin_pct",
    "reason",
    "sources",
]


def worst(verdicts) -> str:
    verdicts = list(verdicts)
    return min(verdicts, key=lambda v: ORDER[v]) if verdicts else NOT_CHECKED


def _kind(section: str) -> str:
    return section.split(" ", 1)[0]


def nodes_of(sections) -> list:
    return [s.split(" ", 1)[1] for s in sections if _kind(s) == "node"]


def pair_nodes(section: str, nodes: list) -> list:
    where = section.split(" ", 1)[1]
    for a in nodes:
        for b in nodes:
            if a != b and where == f"{a}-{b}":
                return [a, b]
    return []


def _repeats(df, section, metric) -> list:
    rows = df[(df["context"] == section) & (df["metric"] == metric)]
    return [float(v) for v in rows.sort_values("repeat")["value"]]


def _cv(values) -> float:
    return float(np.std(values, ddof=1) / np.mean(values)) if len(values) >= 2 and np.mean(values) else math.nan


def _pooled(groups) -> tuple:
    """(pooled CV, repeats) of several sections' repeats."""
    cvs = [_cv(v) for v in groups if len(v) >= 2]
    cvs = [c for c in cvs if not math.isnan(c)]
    return (math.sqrt(np.mean(np.square(cvs))) if cvs else math.nan), sum(len(v) for v in groups)


@dataclass
class Check:
    """One FOM in one section, and what the gates need to judge it."""

    section: str
    part: str
    metric: str
    unit: str
    tool: str
    direction: str
    values: list

    def row(self, gate, verdict, reason="", values=None, **extra) -> dict:
        values = self.values if values is None else values
        row = dict.fromkeys(COLUMNS)
        row.update(section=self.section, part=self.part, metric=self.metric, unit=self.unit, gate=gate)
        row.update(verdict=verdict, reason=reason, n=len(values), mean=float(np.mean(values)) if values else None)
        row.update(extra)
        return row

    def judged(self, gate, values, reference, tol, direction, ref_cv=math.nan, ref_n=0, **extra) -> dict:
        """A check by the rule of analysis/gate.py, its reason in a few words: where the run
        stands against the reference and, when it is not PASS, how sure that is."""
        j = rule.judge(values, reference, tol, direction, ref_cv, ref_n)
        if gate == "limits":
            said = f"{np.mean(values):.0%} of the limit, expected >= {reference:.0%}"
        else:
            said = f"{j['change'] * 100:+.1f} % from {AGAINST[gate]} (tolerance {tol * 100:.1f} %)"
        if j["verdict"] == rule.UNSTABLE:
            spread = f"repeats spread {j['spread'] * 100:.0f} %" if len(values) > 1 else "one repeat"
            if ref_n >= 2 and not math.isnan(ref_cv):
                spread += f", {AGAINST[gate]}'s CV {ref_cv * 100:.0f} %"
            said += f", ± {j['margin'] * 100:.1f} % ({spread}): more repeats or a quieter machine needed"
        extra = {"reference": reference, "tolerance_pct": tol * 100, **extra}
        return self.row(
            gate, j["verdict"], said, values, change_pct=j["change"] * 100, margin_pct=j["margin"] * 100, **extra
        )


# What each gate compares with, in a check's reason.
AGAINST = {"peers": "the other nodes' median", "baseline": "the baseline"}


def share(df, section, tool) -> float:
    """The mean share of their cores a tool's tasks had in a section (suite.sh's timing)."""
    values = _repeats(df, section, f"{tool} CPU share")
    return float(np.mean(values)) if values else math.nan


def _run(check: Check, statuses: list, why: str, repeats: int) -> list:
    """The tool's own verdict: FAIL where it failed in a repeat, or measured in fewer repeats."""
    bad = [i for i, v in enumerate(statuses, 1) if v != 1]
    if bad or why:
        said = f"{check.tool} failed in {len(bad) or 'a'} of {repeats} repeats" + (f": {why}" if why else "")
        return [check.row("run", rule.FAIL, said)]
    if len(check.values) < repeats:
        return [check.row("run", rule.FAIL, f"measured in {len(check.values)} of {repeats} repeats")]
    return []


def _limits(check: Check, system: str, limit_of: dict, want: dict, cores: float) -> dict:
    """Each repeat's fraction of the limit against the expected fraction (a threshold: no spread)."""
    limit, _, how, keys = limit_of.get(check.metric, (None, check.unit, "no limit for this FOM", []))
    cited = [f"configs/{system}/system.yaml: {k}" for k in keys] + (
        [want[check.metric][1]] if check.metric in want else []
    )
    fractions = [limits.fraction(v, limit, check.metric, check.unit) for v in check.values] if limit else []
    mean = float(np.mean(fractions)) if fractions else None
    if not (limit and check.metric in want):
        said = how if not limit else f"no expected fraction of {how}"
        return check.row("limits", NOT_CHECKED, said, reference=limit, fraction=mean, sources="|".join(cited))
    expected = want[check.metric][0]
    got = check.judged("limits", fractions, expected, 0.0, directions.HIGHER, fraction=mean, expected=expected)
    got.update(mean=float(np.mean(check.values)), reference=limit, sources="|".join(cited))
    if got["verdict"] != rule.PASS and cores < SHARE_MIN and check.tool not in WAITS:
        got["verdict"] = rule.UNSTABLE
        got["reason"] += (
            f"; its tasks had {cores:.0%} of their cores (other processes took the rest): "
            "not judged against the limit on a shared machine"
        )
    return got


def _against(check: Check, gate: str, groups: list) -> dict:
    """Against the median of other sections' (or the baseline's) means, with the tolerance from
    their repeats' spread."""
    cv, n = _pooled(groups)
    reference = float(np.median([np.mean(g) for g in groups]))
    return check.judged(gate, check.values, reference, rule.tolerance(cv, n), check.direction, cv, n)


def _baseline_groups(base: pd.DataFrame, check: Check, kind: str) -> list:
    """The baseline's repeats for this check: the same section's, else (a node the baseline did
    not have) those of every section of its kind."""
    same = base[(base["context"] == check.section) & (base["metric"] == check.metric)]
    if not same.empty:
        return [[float(v) for v in same["value"]]]
    return [
        [float(v) for v in g["value"]]
        for s, g in base[base["metric"] == check.metric].groupby("context")
        if _kind(s) == kind
    ]


def judge(system: str, results: pd.DataFrame, baseline: pd.DataFrame = None, failures: dict = None) -> pd.DataFrame:
    """One row per (section, metric, gate): the checks of the run. `failures` is
    {section: {tool: reason}} from the results files (why a tool failed)."""
    doc = systems.load_system(CONFIGS / system)
    limit_of, want = limits.limits(doc), limits.expected(system, doc)
    failures = failures or {}
    ok = results[frame.ok(results)].copy()
    ok["context"] = ok["context"].astype(str)
    experiments = results.drop_duplicates("experiment")
    ran = experiments[experiments["status"] == frame.SUCCESS]
    if ran.empty:
        reasons = sorted(set(experiments["status_reason"].astype(str)) - {"", "nan"})
        reason = f"no repeat of {len(experiments)} succeeded" + (f", e.g. {reasons[0]}" if reasons else "")
        failed = Check(SUITE, "", "", "", "", "", [])
        return pd.DataFrame(
            [{**failed.row("run", rule.FAIL, f"the suite failed: {reason}"), "part": p} for p in PARTS],
            columns=COLUMNS,
        )
    base = None
    if baseline is not None:
        base = baseline[frame.ok(baseline)].copy()
        base["context"] = base["context"].astype(str)
    sections = list(dict.fromkeys(ok["context"]))
    nodes = nodes_of(sections)
    rows = []
    for metric, part, kind, tool in CHECKS:
        # The sections that should have it: every node's (pairs and the allocation: as they ran).
        wanted = [f"node {n}" for n in nodes] if kind == "node" else [s for s in sections if _kind(s) == kind]
        wanted += [s for s in failures if _kind(s) == kind and s not in wanted]
        unit = next(iter(ok.loc[ok["metric"] == metric, "unit"].astype(str)), limit_of.get(metric, (0, ""))[1])
        measured = {s: _repeats(ok, s, metric) for s in wanted}
        for section in wanted:
            check = Check(section, part, metric, unit, tool, directions.of(metric, unit), measured[section])
            failed = _run(check, _repeats(ok, section, f"{tool} ok"), failures.get(section, {}).get(tool), len(ran))
            rows += failed
            if not check.values or (failed and failed[0]["reason"].startswith(tool)):
                continue
            rows.append(_limits(check, system, limit_of, want, share(ok, section, tool)))
            others = [measured[s] for s in wanted if s != section and measured.get(s)]
            if kind != "all" and others:
                got = _against(check, "peers", others)
                if got["verdict"] != rule.PASS and tool not in WAITS:
                    mine = share(ok, section, tool)
                    theirs = np.nanmean([share(ok, s, tool) for s in wanted if s != section])
                    if not math.isnan(mine) and not math.isnan(theirs):
                        got["reason"] += f"; its tasks had {mine:.0%} of their cores, the others' {theirs:.0%}"
                rows.append(got)
            groups = _baseline_groups(base, check, kind) if base is not None else []
            if groups:
                got = _against(check, "baseline", groups)
                cores = min(share(ok, section, tool), share(base, section, tool))
                if got["verdict"] == rule.FAIL and cores < SHARE_MIN and tool not in WAITS:
                    got["verdict"] = rule.UNSTABLE
                    got["reason"] += (
                        f"; its tasks had {cores:.0%} of their cores in the run or the baseline (other processes "
                        "took the rest): measured at two times, the load may differ, not the hardware"
                    )
                rows.append(got)
    return pd.DataFrame(rows, columns=COLUMNS)


def summary(checks: pd.DataFrame, nodes: list) -> pd.DataFrame:
    """One row per node and part: its verdict, the gates that decided it and why; plus the
    allocation's Allreduce as the row of node 'all'."""
    rows = []
    if not nodes and (checks["section"] == SUITE).any():
        nodes = ["all"]  # the suite failed before any node reported
    for node in nodes:
        for part in PARTS:
            if part == "network":
                pairs = [s for s in checks["section"].unique() if _kind(s) == "pair" and node in pair_nodes(s, nodes)]
                per_pair = {s: worst(checks.loc[(checks["section"] == s), "verdict"]) for s in pairs}
                if per_pair and all(v == rule.FAIL for v in per_pair.values()):
                    verdict = rule.FAIL
                else:
                    verdict = worst(v for v in per_pair.values() if v != rule.FAIL) if per_pair else NOT_CHECKED
                mine = checks[checks["section"].isin(pairs)]
            else:
                mine = checks[(checks["section"] == f"node {node}") & (checks["part"] == part)]
                verdict = worst(mine["verdict"])
            failed = checks[(checks["section"] == SUITE) & (checks["part"] == part)]
            if not failed.empty:
                mine, verdict = failed, rule.FAIL
            rows.append(_summary_row(node, part, verdict, mine))
    allreduce = checks[checks["section"].map(_kind) == "all"]
    if not allreduce.empty:
        rows.append(_summary_row("all", "network", worst(allreduce["verdict"]), allreduce))
    return pd.DataFrame(rows)


def _summary_row(node, part, verdict, mine) -> dict:
    bad = mine[mine["verdict"] == verdict] if verdict in (rule.FAIL, rule.UNSTABLE) else mine.iloc[0:0]
    why = "; ".join(
        (f"{r.section.split(' ', 1)[1]} " if r.section.startswith("pair ") else "")
        + (f"{r.metric} vs {r.gate}: " if r.metric else "")
        + r.reason
        for r in bad.itertuples()
    )
    gates = ", ".join(
        f"{g} {worst(mine.loc[mine['gate'] == g, 'verdict'])}" for g in GATES if (mine["gate"] == g).any()
    )
    return {"node": node, "part": part, "verdict": verdict, "gates": gates or NOT_CHECKED, "why": why}


def heat(checks: pd.DataFrame, nodes: list) -> pd.DataFrame:
    """nodes x parts: the fraction of the limit the part's main FOM reached (its mean), or, where
    the limit is unknown, its ratio to the other nodes' median (then marked 'peers')."""
    rows = []
    for node in nodes:
        row = {"node": node}
        for part in PARTS:
            metric = MAIN[part]
            if part == "network":
                sections = [
                    s for s in checks["section"].unique() if _kind(s) == "pair" and node in pair_nodes(s, nodes)
                ]
            else:
                sections = [f"node {node}"]
            mine = checks[checks["section"].isin(sections) & (checks["metric"] == metric)]
            limit = mine[(mine["gate"] == "limits") & mine["fraction"].notna()]
            peers = mine[(mine["gate"] == "peers") & mine["change_pct"].notna()]
            if not limit.empty:
                row[part] = (float(limit["fraction"].min()), "limit")
            elif not peers.empty:
                row[part] = (1 + float(peers["change_pct"].min()) / 100, "peers")
            else:
                row[part] = (None, "")
        rows.append(row)
    return pd.DataFrame(rows)


def verdict(summary_table: pd.DataFrame) -> str:
    """The run's verdict: FAIL if any node's part FAILs, else UNSTABLE if any is, else PASS when
    something was checked."""
    got = worst(summary_table["verdict"])
    return rule.PASS if got == NOT_CHECKED else got
