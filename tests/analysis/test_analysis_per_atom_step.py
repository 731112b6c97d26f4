"""`hpcaas-analyze per-atom-step`: IJHPCA'19's seconds per atom per MD step (Fig. 8 for LAMMPS,
Fig. 10 for GROMACS against R_peak), from the FOMs Ramble reads in real logs (`make foms`, the
logs of tests/apps/), placed in a results CSV as `collect` writes one."""

import csv
import subprocess

import pytest
from analysis_testkit import ROOT, cli

DESMOS = "desmos-angara-haswell-gtx1070"


def foms(app, log, workload):
    """{FOM: (value, unit)} that Ramble reads in the log (make foms prints name, value, unit)."""
    out = subprocess.run(
        ["make", "-s", "foms", f"APP={app}", f"LOG={ROOT}/tests/apps/{app}/logs/{log}", f"WORKLOAD={workload}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    rows = [line.split("\t") for line in out.stdout.splitlines() if line.count("\t") == 2]
    return {name: (value, unit) for name, value, unit in rows}


def results(tmp_path, app, runs, wanted):
    """A results CSV of one experiment per (nodes, log FOMs) on Desmos, with the FOMs `wanted`."""
    path = tmp_path / "results.csv"
    with path.open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["experiment", "system", "application", "workload", "nodes", "metric", "value", "unit", "status"])
        for nodes, got in runs:
            for name in wanted:
                value, unit = got[name]
                out.writerow([f"{app}-{nodes}", DESMOS, app, "w", nodes, name, value, unit, "SUCCESS"])
    return path


def rows(proc):
    assert proc.returncode == 0, proc.stderr
    return list(csv.DictReader(proc.stdout.splitlines()))


def test_lammps_loop_time_over_steps_and_atoms(project, tmp_path):
    # "Loop time of 1.59142 on 1 procs for 100 steps with 32000 atoms"
    got = foms("lammps", "lammps-29Sep2021-lj-1rank.log", "lj")
    path = results(tmp_path, "lammps", [(1, got)], ["Loop time", "Steps", "Atoms"])
    out = rows(cli("per-atom-step", path, "--metric", "Loop time", "--atoms", "Atoms", "--steps", "Steps"))
    assert len(out) == 1 and out[0]["metric"] == "Seconds per atom per step" and out[0]["unit"] == "s"
    assert float(out[0]["value"]) == pytest.approx(1.59142 / (100 * 32000), rel=1e-12)


def test_gromacs_ns_per_day_with_its_time_step_against_rpeak(project, tmp_path):
    # md.log: "Performance: 79.271 ns/day", "dt = 0.002" (ps), "There are: 1066628 Atoms".
    got = foms("gromacs", "gromacs-2024-gpu-resident-4xa100-md.log", "water_box")
    path = results(tmp_path, "gromacs", [(1, got), (4, got)], ["Nanosecs per day", "Time step", "Atoms"])
    proc = cli(
        "per-atom-step", path, "--metric", "Nanosecs per day", "--atoms", "Atoms", "--timestep", "Time step",
        "--systems", "configs", "--gpu", "half_sp",
    )  # fmt: skip
    out = {row["nodes"]: row for row in rows(proc)}
    # 86400 s/day x 0.002e-3 ns per step / 79.271 ns/day = 2.17986e-3 s per step, over 1066628 atoms.
    assert float(out["1"]["value"]) == pytest.approx(86400 * 0.002e-3 / 79.271 / 1066628, rel=1e-12)
    # Fig. 10's axis: the nodes' R_peak, Desmos' node at the paper's 336 + 0.5 x GPU SP peak.
    assert float(out["4"]["rpeak_gflops"]) == pytest.approx(4 * float(out["1"]["rpeak_gflops"]))
    assert round(float(out["1"]["rpeak_gflops"])) == 3228


def test_a_run_without_the_atom_count_has_no_value(project, tmp_path):
    got = foms("lammps", "lammps-29Sep2021-lj-1rank.log", "lj")
    path = results(tmp_path, "lammps", [(1, got)], ["Loop time", "Steps"])
    proc = cli("per-atom-step", path, "--metric", "Loop time", "--atoms", "Atoms", "--steps", "Steps")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "'Atoms' is not there" in proc.stderr


def test_steps_or_timestep_and_the_metric_unit_must_agree(project, tmp_path):
    got = foms("lammps", "lammps-29Sep2021-lj-1rank.log", "lj")
    path = results(tmp_path, "lammps", [(1, got)], ["Loop time", "Steps", "Atoms"])
    neither = cli("per-atom-step", path, "--metric", "Loop time", "--atoms", "Atoms")
    assert neither.returncode == 2 and "--steps/--timestep" in neither.stderr
    wrong = cli("per-atom-step", path, "--metric", "Loop time", "--atoms", "Atoms", "--timestep", "Steps")
    assert wrong.returncode == 2 and "ns/day for --metric with --timestep" in wrong.stderr
