"""Every application's FOM regexes against real output logs, through `make foms` (Ramble's
own definitions and matching). Each tests/apps/<app>/cases.yaml lists real logs, where they
came from, the exact values Ramble must extract, and whether the run must count as a success."""

import subprocess
from pathlib import Path

import pytest
import yaml

from testkit import ROOT, run

CASES = [
    (case_file.parent.name, case)
    for case_file in sorted((ROOT / "tests/apps").glob("*/cases.yaml"))
    for case in yaml.safe_load(case_file.read_text())
]


def parse(stdout):
    """`[<ctx>=<v> ...] <fom>\t<value>\t<units>` lines -> {(context, fom): (value, units)}."""
    foms = {}
    for line in stdout.splitlines():
        head, value, units = line.split("\t")
        *context, name = head.split(" ")
        foms[(" ".join(context), name)] = (value, units)
    return foms


@pytest.mark.parametrize("app,case", CASES, ids=[f"{a}:{Path(c['log']).name}" for a, c in CASES])
def test_foms_from_real_log(project, app, case):
    log = ROOT / "tests/apps" / app / case["log"]
    assert case.get("origin"), f"{log}: say where the log came from"
    # What `make foms` runs; called directly so its own exit status (1: criteria not met) shows.
    args = [app, str(log)] + ([case["workload"]] if case.get("workload") else [])
    args += [f"{k}={v}" for k, v in case.get("vars", {}).items()]
    proc = run("ramble python scripts/foms.py " + " ".join(args), check=False, timeout=300)
    got = parse(proc.stdout)
    if case["success"]:
        assert proc.returncode == 0, proc.stderr
    else:
        assert proc.returncode == 1, f"a failed run passed {app}'s success criteria:\n{proc.stdout}{proc.stderr}"
        assert "success criteria" in proc.stderr or "no figure of merit" in proc.stderr
    for key, expected in case.get("foms", {}).items():
        context, _, name = key.rpartition(" ")
        assert (context, name) in got, f"{key} not extracted; got {sorted(got)[:20]}"
        value, units = got[(context, name)]
        exp_value, exp_units = expected
        assert float(value) == pytest.approx(float(exp_value), rel=1e-12), key
        assert units == exp_units, key
    if "count" in case:
        assert len(got) == case["count"]


def test_make_foms_prints_and_fails_like_the_script(project):
    logs = ROOT / "tests/apps/hpcc/logs"
    ok = subprocess.run(["make", "-s", "foms", "APP=hpcc", f"LOG={logs}/hpcc-1.5.0-openmpi-2ranks.txt",
                         "WORKLOAD=sized", "VARS=n_ranks=2"], cwd=ROOT, capture_output=True, text=True)
    assert ok.returncode == 0 and "Summary=Summary HPL_Tflops\t0.0509536\tTflops" in ok.stdout.splitlines()
    bad = subprocess.run(["make", "-s", "foms", "APP=hpcc", f"LOG={logs}/hpcc-1.5.0-openmpi-2ranks-grid-3x1-fallback.txt",
                          "WORKLOAD=sized", "VARS=n_ranks=2 hpl_q=3"], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode != 0 and "does not meet hpcc's success criteria" in bad.stderr
    usage = subprocess.run(["make", "-s", "foms", "APP=hpcc"], cwd=ROOT, capture_output=True, text=True)
    assert usage.returncode != 0 and "usage: make foms" in usage.stderr
