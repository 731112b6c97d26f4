"""`make baseline` and `make validate NODES=all` on a real two-node Slurm cluster of this machine
(its own, so that no other job shares a node): every node runs the suite at once and is judged
part by part. On the unchanged machine each node PASSes; with OpenBLAS's generic kernels
injected on n2 only (FAULT=n2:slowblas) the run FAILs naming n2 and its compute, not n1; a
killed tool FAILs its node's part with the reason, and no baseline is ever written from such a
run."""

import subprocess

import pandas as pd
import pytest
from slurm_helpers import ROOT, start_cluster, stop_cluster

from hpcaas.run.place import Place

# The latest run of the suite on local-slurm at the small scale, where make validate writes its report.
LATEST = Place("validate", "local-slurm", "small").latest
# The gates compare performance with the limits, the other node and a baseline: nothing else may run meanwhile.
pytestmark = [pytest.mark.exclusive, pytest.mark.long]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    state = tmp_path_factory.mktemp("slurm-validate")
    cluster = start_cluster(state, nodes=2)
    yield cluster
    proc = stop_cluster(state)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def make(cluster, *args):
    return subprocess.run(
        ["make", "-s", *args, "SYSTEM=local-slurm", "SCALE=small"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=3600,
        env=dict(cluster.env),
    )


def verdicts() -> dict:
    return {(r.node, r.part): r.verdict for r in pd.read_csv(LATEST / "nodes.csv").itertuples()}


@pytest.fixture(scope="module")
def baseline(project, cluster, tmp_path_factory):
    path = tmp_path_factory.mktemp("validate") / "baseline.csv"
    proc = make(cluster, "baseline", f"BASELINE={path}")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert path.is_file() and path.with_name("baseline.inventory.json").is_file()
    return path


def test_unchanged_machine_passes_node_by_node(cluster, baseline):
    """PASS on every node and part; on a shared machine whose neighbours make the repeats spread,
    a part may be UNSTABLE (a non-zero exit, saying so), never FAIL: noise never widens a tolerance."""
    proc = make(cluster, "validate", "NODES=all", f"BASELINE={baseline}")
    verdict = proc.stdout.splitlines()[-1]
    assert verdict in ("PASS", "UNSTABLE") and (proc.returncode == 0) == (verdict == "PASS"), (
        proc.stdout[-3000:] + proc.stderr[-2000:]
    )
    got = verdicts()
    assert {n for n, _ in got} == {"n1", "n2", "all"}
    parts = {got[(n, p)] for n in ("n1", "n2") for p in ("compute", "memory", "io")}
    assert parts <= {"PASS", "UNSTABLE"} and (verdict == "PASS") == (parts == {"PASS"}), got
    report = (LATEST / "report.md").read_text()
    assert report.startswith(f"# Validation of local-slurm: {verdict}")
    if verdict == "UNSTABLE":
        assert "more repeats or a quieter machine needed" in report
    assert "Fault injected: none." in report and "Machine load: 1-minute load average" in report


def test_generic_blas_on_n2_fails_naming_n2_and_compute(cluster, baseline):
    proc = make(cluster, "validate", "NODES=all", "FAULT=n2:slowblas", f"BASELINE={baseline}")
    assert proc.returncode != 0 and proc.stdout.splitlines()[-1] == "FAIL", proc.stdout[-3000:]
    got = verdicts()
    assert got[("n2", "compute")] == "FAIL"
    assert got[("n1", "compute")] != "FAIL"
    report = (LATEST / "report.md").read_text().splitlines()
    assert report[0] == "# Validation of local-slurm: FAIL"
    assert report[2].startswith("- **n2: compute FAIL**") and not any(
        line.startswith("- **n1: compute FAIL") for line in report
    )
    assert any(line.startswith("Fault injected: slowblas on n2") for line in report)
    # The inventory tells why: n2's OpenBLAS ran its generic Prescott kernels.
    inventory = "\n".join(report)
    assert "| blas kernel |" in inventory and "Prescott" in inventory


def test_a_killed_tool_fails_its_node_and_never_becomes_a_baseline(cluster, baseline, tmp_path):
    before = baseline.read_bytes()
    new = tmp_path / "never.csv"
    proc = make(cluster, "baseline", f"BASELINE={new}", "FAULT=n2:kill")
    assert proc.returncode != 0 and "not writing a baseline" in proc.stderr, proc.stdout[-2000:] + proc.stderr
    assert not new.exists() and baseline.read_bytes() == before
    got = verdicts()
    # HPL and HPCC outlive the 3 s the fault gives each tool; STREAM and fio may finish within them.
    assert got[("n2", "compute")] == "FAIL" and got[("n1", "compute")] != "FAIL"
    assert "exit status 137" in (LATEST / "report.md").read_text()
