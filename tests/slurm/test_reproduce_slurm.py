"""make reproduce through Slurm: the binding x distribution study (S1 T7) at its small scale on
local-slurm, against the session's cluster. Each experiment is an sbatch job running Debian's
OpenFOAM motorBike on 2 ranks, whose srun lines carry the swept --cpu-bind and --distribution;
the report pivots each utility's time by both."""

import csv

import pytest
from slurm_helpers import ROOT, Cluster
from testkit import place

pytestmark = pytest.mark.long  # make test-long (scripts/test.sh --tier long)

STUDY = "openfoam-binding-distribution"
PLACE = place(STUDY, "local-slurm", "small")
RUNS = PLACE.workspace / "experiments/openfoam/motorbike"
# The small preset: binding {none, cores} at Slurm's default distribution, then auto binding
# (--cpu-bind=verbose) x --distribution {block, cyclic}:{block, cyclic}, 2 ranks on 2 nodes.
CELLS = {("none", "*:*"), ("cores", "*:*")} | {
    ("auto", f"{n}:{s}") for n in ("block", "cyclic") for s in ("block", "cyclic")
}
NAMES = {f"motorbike-local-slurm-bind-{b}-dist-default-2nodes-1x1" for b in ("none", "cores")} | {
    f"motorbike-local-slurm-bind-verbose-dist-{n}-{s}-2nodes-1x1"
    for n in ("block", "cyclic")
    for s in ("block", "cyclic")
}


def test_binding_distribution_study_through_slurm(project, slurm_cluster: Cluster):
    slurm_cluster.run(
        "make", "reproduce", f"STUDY={STUDY}", "SYSTEM=local-slurm", "SCALE=small", cwd=ROOT, timeout=3600
    )

    rows = list(csv.DictReader((PLACE.latest / "results.csv").open()))
    assert {r["experiment"] for r in rows} == {f"openfoam.motorbike.{n}" for n in NAMES}
    assert {r["status"] for r in rows} == {"SUCCESS"}
    solver = {
        (r["binding"], r["distribution"]): float(r["value"])
        for r in rows
        if r["metric"] == "Execution time" and r["context"] == "simpleFoam"
    }
    assert set(solver) == CELLS
    assert all(v > 0 for v in solver.values())

    script = (RUNS / "motorbike-local-slurm-bind-verbose-dist-cyclic-cyclic-2nodes-1x1/execute_experiment").read_text()
    assert "#SBATCH --nodes=2" in script and "#SBATCH --ntasks=2" in script
    assert (
        "env OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo "
        "srun --mpi=pmix -N 2 -n 2 -c 1 --cpu-bind=verbose --distribution='cyclic:cyclic' simpleFoam -parallel"
    ) in script

    # Every experiment was a Slurm job that completed, with its wait and run time recorded.
    jobs = list(csv.DictReader((PLACE.latest / "jobs.csv").open()))
    assert sorted(j["name"] for j in jobs) == sorted(f"openfoam.motorbike.{n}" for n in NAMES)
    assert {j["state"] for j in jobs} == {"COMPLETED"} and {j["nodes"] for j in jobs} == {"2"}

    report = (PLACE.latest / "report.md").read_text()
    assert "| context | binding | distribution | unit | 2 |" in report
    assert "| simpleFoam | auto | block:block | s |" in report
    assert "failed (exit" not in report
