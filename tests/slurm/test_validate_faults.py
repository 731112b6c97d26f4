"""Failures are failures: the fault-injection study (ramble-workspaces/fault-injection) on the
session's real Slurm cluster. Each fault is injected on the real stack (Slurm, Open MPI, HPCC);
every faulty experiment must end FAILED in the results CSV with the reason, carry no value, and
make the run exit 1; the clean control run stays SUCCESS."""

import csv
import math
import subprocess

import pytest
import yaml
from slurm_helpers import ROOT, Cluster
from testkit import place

STUDY = "fault-injection"
HPCC_CASES = ROOT / "tests/apps/hpcc/cases.yaml"
# experiment -> words its status_reason must contain
FAULTS = {
    "fault-sigkill-1ranks": ["success criteria not met", "ended FAILED (exit 137"],
    "fault-exit3-1ranks": ["ended FAILED (exit 3"],
    "fault-timelimit-1ranks": ["success criteria not met", "ended TIMEOUT"],
    "fault-truncated-1ranks": ["success criteria not met"],
    "fault-nan-1ranks": ["success criteria not met"],
    "fault-verification-1ranks": ["success criteria not met"],
    "fault-wrong-pmi-2ranks": ["success criteria not met"],
}


@pytest.fixture(scope="module")
def fault_run(project, slurm_cluster: Cluster):
    proc = subprocess.run(
        [".venv/bin/hpcaas", "run", STUDY, "local-slurm"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env=dict(slurm_cluster.env),
    )
    rows = list(csv.DictReader((place(STUDY, "local-slurm").latest / "results.csv").open()))
    return proc, rows


def test_the_run_fails_and_says_how_many(fault_run):
    proc, _ = fault_run
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert f"[hpcaas] {STUDY} on local-slurm: {len(FAULTS) + 1} experiments, {len(FAULTS)} FAILED" in proc.stdout


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_each_fault_is_a_failed_experiment_with_its_reason(fault_run, name):
    _, rows = fault_run
    mine = [r for r in rows if r["experiment"] == f"hpcc.sized.{name}"]
    assert mine, f"{name} is missing from the CSV"
    assert {r["status"] for r in mine} == {"FAILED"}
    assert {r["value"] for r in mine} == {""}, "a failed experiment must carry no value"
    for words in FAULTS[name]:
        assert all(words in r["status_reason"] for r in mine), (words, mine[0]["status_reason"])


def test_the_control_run_succeeds_with_every_fom(fault_run):
    _, rows = fault_run
    control = [r for r in rows if r["experiment"] == "hpcc.sized.fault-none-1ranks"]
    # Every FOM HPCC prints on one rank: as many as the FOM corpus extracts from this control
    # run's own log (tests/apps/hpcc, the case whose origin is this experiment).
    one_rank = [c for c in yaml.safe_load(HPCC_CASES.read_text()) if "fault-none-1ranks" in c["origin"]]
    assert {r["status"] for r in control} == {"SUCCESS"} and len(control) == one_rank[0]["count"]
    values = {r["metric"]: float(r["value"]) for r in control}
    assert all(math.isfinite(v) for v in values.values())
    # Rates are positive; counts such as MPIRandomAccess_Errors and PTRANS_residual may be 0.
    assert all(values[m] > 0 for m in ("HPL_Tflops", "StarDGEMM_Gflops", "StarSTREAM_Triad")), values


def test_failed_experiments_are_left_out_of_every_metric(fault_run):
    """`best` per experiment: a failed experiment is counted as failed and given no value."""
    out = subprocess.run(
        [
            str(ROOT / ".venv/bin/hpcaas-analyze"),
            "best",
            str(place(STUDY, "local-slurm").latest / "results.csv"),
            "--metric",
            "HPL_Tflops",
            "--by",
            "experiment",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    best = {r["experiment"]: r for r in csv.DictReader(out.stdout.splitlines())}
    assert float(best["hpcc.sized.fault-none-1ranks"]["value"]) > 0
    for name in FAULTS:
        assert best[f"hpcc.sized.{name}"]["value"] == "" and best[f"hpcc.sized.{name}"]["n_failed"] == "1"
