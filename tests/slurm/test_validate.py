"""`make baseline` and `make validate` on the session's real Slurm cluster: PASS against a
baseline made minutes earlier on the unchanged machine; FAIL (exit 1) with the FOMs that moved
named in the report when the run is deliberately slowed; FAIL when an experiment fails, and no
baseline is ever written from a failed run."""

import subprocess

import pytest
from slurm_helpers import ROOT, Cluster

REPORT = ROOT / "results/validate/report.md"
# The gates compare performance with the limits and a baseline: nothing else may run meanwhile.
pytestmark = [pytest.mark.exclusive, pytest.mark.long]


def make(cluster, *args):
    return subprocess.run(
        ["make", "-s", *args, "SYSTEM=local-slurm"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
        env=dict(cluster.env),
    )


def validate(cluster, baseline, fault):
    """scripts/validate.sh itself (make turns any failure into its own status 2)."""
    return subprocess.run(
        ["scripts/validate.sh", "local-slurm", str(baseline)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
        env={**cluster.env, "HPCAAS_SET": fault},
    )


@pytest.fixture(scope="module")
def baseline(project, slurm_cluster: Cluster, tmp_path_factory):
    path = tmp_path_factory.mktemp("validate") / "baseline.csv"
    proc = make(slurm_cluster, "baseline", f"BASELINE={path}")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return path


def test_unchanged_machine_passes(slurm_cluster, baseline):
    proc = make(slurm_cluster, "validate", f"BASELINE={baseline}")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert proc.stdout.splitlines()[-1] == "PASS"
    report = REPORT.read_text()
    assert report.startswith("# Validation of local-slurm: PASS")
    assert "## FOMs that moved (0)" in report and "## Failed experiments (0)" in report
    # Slurm's job statistics: five jobs, one per repeat, with their wait and run time.
    assert report.count("| hpcc.sized.validate-local-slurm-openmpi-2ranks.") == 5
    assert "5 jobs: wait" in report


def test_a_deliberate_regression_fails_and_names_what_moved(slurm_cluster, baseline):
    # OpenBLAS forced onto its generic SSE3 kernels (as a wrong BLAS build would): DGEMM slows down.
    proc = validate(slurm_cluster, baseline, "pin=slowblas")
    assert proc.returncode == 1 and proc.stdout.splitlines()[-1] == "FAIL", proc.stdout[-3000:]
    report = REPORT.read_text()
    assert report.startswith("# Validation of local-slurm: FAIL")
    moved = report.split("## FOMs that moved")[1].split("## Failed experiments")[0]
    assert "| StarDGEMM_Gflops |" in moved and "regressed beyond the tolerance" in moved


def test_a_killed_run_fails_validation_and_never_becomes_a_baseline(slurm_cluster, baseline, tmp_path):
    before = baseline.read_bytes()
    proc = validate(slurm_cluster, baseline, "pin=kill")
    assert proc.returncode == 1 and proc.stdout.splitlines()[-1] == "FAIL", proc.stdout[-3000:]
    report = REPORT.read_text()
    assert "## Failed experiments (5)" in report and "ended FAILED (exit 137" in report
    new = tmp_path / "never.csv"
    proc = make(slurm_cluster, "baseline", f"BASELINE={new}", "SET=pin=kill")
    assert proc.returncode != 0 and "not writing a baseline from a run with failed experiments" in proc.stderr
    assert not new.exists() and baseline.read_bytes() == before
