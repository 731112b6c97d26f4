"""make reproduce through Slurm: the scaled-down binding x distribution study (S1 T7) on
local-slurm, against the session's cluster. Each experiment is an sbatch job whose srun line
carries the swept --cpu-bind and --distribution; the report pivots HPL by both."""

import csv
import subprocess

from slurm_helpers import ROOT, Cluster

STUDY = "binding-distribution-small"
RUNS = ROOT / "ramble-workspaces" / STUDY / "experiments/hpcc/sized"


def test_binding_distribution_study_through_slurm(project, slurm_cluster: Cluster):
    env = {k: v for k, v in slurm_cluster.env.items()}
    proc = subprocess.run(["make", "reproduce", f"STUDY={STUDY}", "SYSTEM=local-slurm"], cwd=ROOT,
                          capture_output=True, text=True, timeout=1200, env=env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]

    names = {f"placement-local-slurm-openmpi-bind-{b}-dist-{d}" for b in ("none", "cores") for d in ("block", "cyclic")}
    rows = list(csv.DictReader((ROOT / "results" / STUDY / "results.csv").open()))
    assert {r["experiment"] for r in rows} == {f"hpcc.sized.{n}" for n in names}
    assert {r["status"] for r in rows} == {"SUCCESS"}
    hpl = {(r["binding"], r["distribution"]): float(r["value"]) for r in rows if r["metric"] == "HPL_Tflops"}
    assert set(hpl) == {(b, f"{d}:{d}") for b in ("none", "cores") for d in ("block", "cyclic")}
    assert all(v > 0 for v in hpl.values())

    script = (RUNS / "placement-local-slurm-openmpi-bind-cores-dist-cyclic/execute_experiment").read_text()
    assert "#SBATCH --nodes=2" in script and "#SBATCH --ntasks=2" in script
    assert ("env OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo "
            "srun --mpi=pmix -N 2 -n 2 -c 1 --cpu-bind=cores --distribution='cyclic:cyclic' hpcc >>") in script

    # Every experiment was a Slurm job that completed, with its wait and run time recorded.
    jobs_csv = sorted((ROOT / "results" / STUDY).glob("jobs-*.csv"))[-1]
    jobs = list(csv.DictReader(jobs_csv.open()))
    assert sorted(j["name"] for j in jobs) == sorted(f"hpcc.sized.{n}" for n in names)
    assert {j["state"] for j in jobs} == {"COMPLETED"} and {j["nodes"] for j in jobs} == {"2"}

    report = (ROOT / "results" / STUDY / "report.md").read_text()
    assert "| binding | unit | block:block | cyclic:cyclic |" in report
    assert "failed (exit" not in report
