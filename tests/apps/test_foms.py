"""Every application's FOM regexes against real output logs, through `make foms` (Ramble's
own definitions and matching). Each tests/apps/<app>/cases.yaml lists real logs, where they
came from, the exact values Ramble must extract, and whether the run must count as a success."""

import json
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


@pytest.fixture(scope="module")
def extracted(project, tmp_path_factory):
    """Every case through `scripts/foms.py --batch` (what `make foms` runs, one Ramble session
    for all logs instead of one per log), in CASES' order: [{"foms": {printed name: (value, units)},
    "statuses": [...]}, ...], a printed name as `make foms` prints it: `[<context>=<value> ]<fom>`."""
    tmp = tmp_path_factory.mktemp("foms")
    cases = [{"app": app, "log": str(ROOT / "tests/apps" / app / case["log"]),
              "workload": case.get("workload"), "vars": case.get("vars", {})} for app, case in CASES]
    (tmp / "cases.json").write_text(json.dumps(cases))
    run(f"ramble python scripts/foms.py --batch {tmp}/cases.json {tmp}/out.json", timeout=900)
    out = json.loads((tmp / "out.json").read_text())
    return [{"foms": {f"{c} {n}" if c else n: (v, u) for c, n, v, u in got["foms"]},
             "statuses": got["statuses"]} for got in out]


@pytest.mark.parametrize("i", range(len(CASES)), ids=[f"{a}:{Path(c['log']).name}" for a, c in CASES])
def test_foms_from_real_log(extracted, i):
    app, case = CASES[i]
    log = ROOT / "tests/apps" / app / case["log"]
    assert case.get("origin"), f"{log}: say where the log came from"
    got = extracted[i]
    foms, passed = got["foms"], "SUCCESS" in got["statuses"]
    if case["success"]:
        assert foms and passed, f"{log}: statuses {got['statuses']}, {len(foms)} FOMs"
    else:
        assert not (foms and passed), f"a failed run passed {app}'s success criteria: {log}"
    for key, expected in case.get("foms", {}).items():
        assert key in foms, f"{key} not extracted; got {sorted(foms)[:20]}"
        value, units = foms[key]
        exp_value, exp_units = expected
        assert float(value) == pytest.approx(float(exp_value), rel=1e-12), key
        assert units == exp_units, key
    if "count" in case:
        assert len(foms) == case["count"]


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
