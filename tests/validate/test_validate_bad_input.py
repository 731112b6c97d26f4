"""`make validate` / `make baseline` with bad input: one line naming the argument or the file and
the key, exit status 2, no traceback, and nothing run or written (the baseline is untouched, no
results appear). A baseline of another system, application or suite is refused before anything
runs, naming both. Bad system configs, study descriptions and result CSVs of the other
commands are covered in tests/systems, tests/reproduce and tests/analysis."""

import subprocess

import pytest
from testkit import ROOT

from hpcaas.run.place import runs_root

# A real baseline: make baseline SYSTEM=local-slurm on this machine (tests/validate/data/README.md).
GOOD = (ROOT / "tests/validate/data/local-slurm-healthy.csv").read_text()
HEADER = GOOD.splitlines()[0]


def replaced(old, new):
    return GOOD.replace(old, new)


CASES = {
    # name: (arguments after `python -m hpcaas.validate`, baseline text or None, words of the one line)
    "no system": ([], None, "usage: make validate SYSTEM=<system>"),
    "unknown system": (["no-such-system"], None, "configs/no-such-system/system.yaml: SYSTEM: an existing system"),
    "baseline mode, unknown system": (["--write-baseline", "nope"], None, "configs/nope/system.yaml: SYSTEM"),
    "FAULT without a node": (["local-slurm", "--fault", "slowblas"], None, "FAULT: <node>:<fault>"),
    "FAULT unknown": (["local-slurm", "--fault", "n2:fast"], None, "FAULT: a fault among slowblas"),
    "FAULT co-runner over 99 %": (["local-slurm", "--fault", "n2:corunner100"], None, "FAULT: a fault among"),
    "NODES a word": (["local-slurm", "--nodes", "three"], None, "NODES: all or a count of nodes"),
    "NODES zero": (["local-slurm", "--nodes", "0"], None, "NODES: all or a count of nodes"),
    "NODES above one without a scheduler": (["local", "--nodes", "2"], None, "NODES: all or 1: local has no scheduler"),
    "SET without a value": (["local-slurm", "--set", "pin"], None, "SET: pin: name=value"),
    "SET with a space": (["local-slurm", "--set", "pin=taskset -c 0"], None, "name=value"),
    "SET with a colon": (["local-slurm", "--set", "cpu_bind=map_cpu:0"], None, "name=value"),
    "missing baseline file": (["local-slurm", "--baseline", "MISSING"], None, "BASELINE: an existing file"),
    "empty baseline": (["local-slurm", "--baseline", "BASE"], "", "the file is empty"),
    "baseline without a value column": (
        ["local-slurm", "--baseline", "BASE"],
        replaced(HEADER, HEADER.replace(",value,", ",val,")),
        "value",
    ),
    "baseline of another system": (
        ["local-slurm", "--baseline", "BASE"],
        replaced(",local-slurm,", ",aws-hpc7a-efa,"),
        "system: a baseline of system local-slurm; it is of system aws-hpc7a-efa",
    ),
    "baseline of another application": (
        ["local-slurm", "--baseline", "BASE"],
        replaced(",node-validation,", ",hpcc,"),
        "application: a baseline of application node-validation; it is of hpcc",
    ),
    "baseline of another suite": (
        ["local-slurm", "--baseline", "BASE"],
        replaced("node-validation.suite.validate-local-slurm", "node-validation.suite.smoke-local-slurm"),
        "experiment: a baseline of the suite node-validation.suite.validate-{system}; it is of "
        "node-validation.suite.smoke-{system}",
    ),
    "baseline with a word for a number": (
        ["local-slurm", "--baseline", "BASE"],
        GOOD.replace(",HPL GFlops,", ",HPL GFlops,fast", 1),
        "value",
    ),
    "baseline with a ragged row": (
        ["local-slurm", "--baseline", "BASE"],
        GOOD + "x,y" + ",z" * 30 + "\n",
        "as many fields as the header",
    ),
    "baseline that is not a CSV": (["local-slurm", "--baseline", "BASE"], "\x00\x01binary\n", "metric"),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_bad_input_stops_before_running(case, tmp_path):
    argv, text, words = CASES[case]
    base = tmp_path / "baseline.csv"
    if text is not None:
        base.write_text(text)
    argv = [str(base) if a == "BASE" else str(tmp_path / "missing.csv") if a == "MISSING" else a for a in argv]
    runs = sorted(runs_root().glob("*/*/validate/*"))
    proc = subprocess.run(
        [str(ROOT / ".venv/bin/python"), "-m", "hpcaas.validate", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert words in lines[0], lines[0]
    assert proc.stdout == ""
    if text is not None:
        assert base.read_text() == text  # the baseline is left as it was
    assert sorted(runs_root().glob("*/*/validate/*")) == runs  # nothing ran: no run folder appeared
