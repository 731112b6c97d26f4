"""Two systems' runs of one study stand side by side (runs/<system>/<scale>/<study>/) and
hpcaas-analyze compares them without copying a file: STREAM on this machine run in place
(`local`) and through the session's Slurm cluster (`local-slurm`)."""

import csv
import subprocess

import pytest
from slurm_helpers import ROOT, Cluster
from testkit import place

pytestmark = pytest.mark.long  # make test-long (scripts/test.sh --tier long)

STUDY = "stream-node"
METRIC = "Triad top rate"


def test_two_systems_runs_compare_in_place(project, slurm_cluster: Cluster):
    for system in ("local", "local-slurm"):
        slurm_cluster.run(
            "make", "reproduce", f"STUDY={STUDY}", f"SYSTEM={system}", "SCALE=small", cwd=ROOT, timeout=1800
        )
    runs = [place(STUDY, system, "small").latest for system in ("local", "local-slurm")]
    proc = subprocess.run(
        [
            ROOT / ".venv/bin/hpcaas-analyze",
            "compare",
            *runs,
            "--metric",
            METRIC,
            "--axis",
            "system",
            "--a",
            "local",
            "--b",
            "local-slurm",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    (row,) = list(csv.DictReader(proc.stdout.splitlines()))
    measured = {
        system: [float(r["value"]) for r in csv.DictReader((run / "results.csv").open()) if r["metric"] == METRIC]
        for system, run in zip(("local", "local-slurm"), runs)
    }
    # The ratio is B over A for a rate (analysis/compare.py), of each run's own mean.
    mean = {system: sum(values) / len(values) for system, values in measured.items()}
    assert float(row["ratio"]) == pytest.approx(mean["local-slurm"] / mean["local"])
