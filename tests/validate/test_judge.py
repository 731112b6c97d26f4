"""hpcaas/validate/judge.py on a real run of the suite (tests/validate/data: make validate
SYSTEM=local-slurm on this machine, two nodes, their results files): every node's checks
against the limits and the other node, a node made slower in the data failing against its
peers while the other does not, a failed tool failing its node's part, a failed suite failing
everything, and a node's network judged by all the pairs it is in."""

import numpy as np
import pandas as pd
import pytest
from testkit import ROOT

from analysis import files
from analysis import gate as rule
from hpcaas import limits, systems
from hpcaas.paths import CONFIGS
from hpcaas.validate import inventory, judge, suite

DATA = ROOT / "tests/validate/data"
RUN = DATA / "local-slurm-healthy.csv"


@pytest.fixture
def run():
    return files.read_results(str(RUN))


def sections_of(folder):
    return {i: suite.read_results_file(p) for i, p in enumerate(sorted(folder.glob("suite-*.txt")), 1)}


def row(checks, section, metric, gate):
    got = checks[(checks["section"] == section) & (checks["metric"] == metric) & (checks["gate"] == gate)]
    assert len(got) == 1, (section, metric, gate, got)
    return got.iloc[0]


def test_every_node_is_judged_on_every_check(run):
    checks = judge.judge("local-slurm", run)
    doc = systems.load_system(CONFIGS / "local-slurm")
    have = limits.limits(doc)
    for metric, part, kind, _ in judge.CHECKS:
        where = ["node n1", "node n2"] if kind == "node" else ["pair n1-n2"] if kind == "pair" else ["all n1,n2"]
        for section in where:
            lim = row(checks, section, metric, "limits")
            assert lim["part"] == part
            if not have.get(metric, (None,))[0]:
                assert lim["verdict"] == judge.NOT_CHECKED and lim["reason"].startswith(("unknown: ", "no limit"))
            if kind == "node":  # two nodes: each against the other; one pair, one allocation: no peers
                peer = row(checks, section, metric, "peers")
                other = "node n2" if section == "node n1" else "node n1"
                mean_other = run[(run["context"] == other) & (run["metric"] == metric)]["value"].mean()
                assert peer["reference"] == pytest.approx(mean_other)
    assert not (checks["section"].str.startswith(("pair", "all")) & (checks["gate"] == "peers")).any()


def test_the_limits_gate_judges_the_fraction_of_r_peak(run):
    checks = judge.judge("local-slurm", run)
    doc = systems.load_system(CONFIGS / "local-slurm")
    hpl = run[(run["context"] == "node n1") & (run["metric"] == "HPL GFlops")]["value"]
    got = row(checks, "node n1", "HPL GFlops", "limits")
    assert got["fraction"] == pytest.approx(hpl.mean() / systems.rpeak_per_node_gflops(doc, gpu="none"))
    assert got["expected"] == limits.expected("local-slurm", doc)["HPL GFlops"][0]
    # R_peak's facts cite where make system read them (the clock's source, whichever it is).
    assert f"configs/local-slurm/system.yaml: {doc['base_clock_ghz']['source']}" in got["sources"]


def test_a_slower_node_fails_against_its_peer_and_the_peer_does_not(run):
    slow = run.copy()
    mask = (slow["context"] == "node n2") & (slow["metric"] == "HPL GFlops")
    slow.loc[mask, "value"] = slow.loc[mask, "value"] * 0.5
    checks = judge.judge("local-slurm", slow)
    assert row(checks, "node n2", "HPL GFlops", "peers")["verdict"] == rule.FAIL
    assert row(checks, "node n1", "HPL GFlops", "peers")["verdict"] != rule.FAIL
    summary = judge.summary(checks, ["n1", "n2"]).set_index(["node", "part"])
    assert summary.loc[("n2", "compute"), "verdict"] == rule.FAIL
    assert "HPL GFlops vs peers" in summary.loc[("n2", "compute"), "why"]
    assert summary.loc[("n1", "compute"), "verdict"] != rule.FAIL


def test_a_failed_tool_fails_its_node_part(run):
    n2_second = (run["repeat"] == 2) & (run["context"] == "node n2")
    broken = run[~(n2_second & (run["metric"] == "HPL GFlops"))].copy()
    broken.loc[n2_second.loc[broken.index] & (broken["metric"] == "hpl ok"), "value"] = 0.0
    why = {"node n2": {"hpl": "exit status 137 (output: hpl.txt)"}}
    checks = judge.judge("local-slurm", broken, failures=why)
    got = row(checks, "node n2", "HPL GFlops", "run")
    assert got["verdict"] == rule.FAIL
    assert got["reason"] == f"hpl failed in 1 of {run['repeat'].nunique()} repeats: exit status 137 (output: hpl.txt)"
    summary = judge.summary(checks, ["n1", "n2"]).set_index(["node", "part"])
    assert (
        summary.loc[("n2", "compute"), "verdict"] == rule.FAIL
        and summary.loc[("n1", "compute"), "verdict"] != rule.FAIL
    )


def test_a_failed_suite_fails_every_part(run):
    failed = run.assign(status="FAILED", value=np.nan, status_reason="scheduler job 9 ended FAILED (exit 1)")
    checks = judge.judge("local-slurm", failed)
    summary = judge.summary(checks, [])
    assert set(summary["verdict"]) == {rule.FAIL} and set(summary["part"]) == set(judge.PARTS)
    assert judge.verdict(summary) == rule.FAIL
    assert "no repeat of" in summary["why"].iloc[0] and "exit 1" in summary["why"].iloc[0]


def test_a_node_fails_its_network_only_when_every_pair_it_is_in_fails():
    """A ring of three: n2's two links FAIL, n3-n1 passes. n2 is the bad node; n1 and n3 each
    have a good link, so their network is not FAIL."""
    rows = [
        {"section": s, "part": "network", "metric": "osu_bw 4 MiB", "gate": "peers", "verdict": v, "reason": "r"}
        for s, v in (("pair n1-n2", rule.FAIL), ("pair n2-n3", rule.FAIL), ("pair n3-n1", rule.PASS))
    ]
    checks = pd.DataFrame(rows, columns=judge.COLUMNS)
    summary = judge.summary(checks, ["n1", "n2", "n3"]).set_index(["node", "part"])["verdict"]
    assert summary[("n2", "network")] == rule.FAIL
    assert summary[("n1", "network")] == rule.PASS and summary[("n3", "network")] == rule.PASS


def test_the_baseline_is_the_same_node_or_the_median_of_its_nodes(run):
    checks = judge.judge("local-slurm", run, baseline=run)
    same = row(checks, "node n1", "HPL GFlops", "baseline")
    assert same["change_pct"] == pytest.approx(0) and same["verdict"] != rule.FAIL
    renamed = run.assign(context=run["context"].astype(str).replace({"node n2": "node n7"}))
    got = row(judge.judge("local-slurm", renamed, baseline=run), "node n7", "HPL GFlops", "baseline")
    means = [
        run[(run["context"] == f"node {n}") & (run["metric"] == "HPL GFlops")]["value"].mean() for n in ("n1", "n2")
    ]
    assert got["reference"] == pytest.approx(np.median(means))


def test_inventory_and_load_from_the_results_files():
    sections = sections_of(DATA / "local-slurm-healthy")
    nodes = inventory.collect(sections)
    assert sorted(nodes) == ["n1", "n2"]
    for found in nodes.values():
        assert {"kernel", "mpi", "blas", "blas kernel", "transparent hugepages", "load"} <= set(found)
    table = inventory.table(nodes)
    assert list(table.columns) == ["key", "n1", "n2", "differs"] and "load" not in set(table["key"])
    text = inventory.load(nodes, {"hpl": [0.5, 0.9]})
    assert text.startswith("1-minute load average ") and "hpl 50%-90%" in text


def test_a_tool_not_measured_alone_is_unstable_against_the_baseline_and_fails_against_its_peers(run):
    """n2's HPL halved against a baseline of the same run: measured at another time with the
    tools holding a third of their cores (this machine's real shares), the comparison cannot
    tell the hardware from the load (UNSTABLE); against n1, measured at the same time, it FAILs.
    With the cores to themselves, the baseline gate FAILs it too."""
    slow = run.copy()
    mask = (slow["context"] == "node n2") & (slow["metric"] == "HPL GFlops")
    slow.loc[mask, "value"] = slow.loc[mask, "value"] * 0.5
    shares = run.loc[run["metric"] == "hpl CPU share", "value"]
    assert shares.max() < judge.SHARE_MIN  # the data's own: other work took most of the cores
    checks = judge.judge("local-slurm", slow, baseline=run)
    got = row(checks, "node n2", "HPL GFlops", "baseline")
    assert got["verdict"] == rule.UNSTABLE and "measured at two times" in got["reason"]
    assert row(checks, "node n2", "HPL GFlops", "peers")["verdict"] == rule.FAIL
    alone = run.copy()
    alone.loc[alone["metric"] == "hpl CPU share", "value"] = 1.0
    slow.loc[slow["metric"] == "hpl CPU share", "value"] = 1.0
    assert (
        row(judge.judge("local-slurm", slow, baseline=alone), "node n2", "HPL GFlops", "baseline")["verdict"]
        == rule.FAIL
    )
