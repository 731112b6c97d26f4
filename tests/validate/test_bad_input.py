"""`make validate` / `make baseline` with bad input: one line naming the file (or argument) and
the key, exit status 2, no traceback, and nothing run or written (the baseline is untouched, no
results appear). Bad system configs, study descriptions and result CSVs of the other commands
are covered in tests/systems, tests/reproduce and tests/analysis."""

import subprocess

import pytest
from testkit import ROOT

GOOD = (ROOT / "tests/validate/data/baseline-local-slurm.csv").read_text()
HEADER = GOOD.splitlines()[0]

CASES = {
    # name: (argv after scripts/validate.sh, SET, baseline text or None, words of the one line)
    "no system": ([], "", None, "usage: make validate SYSTEM=<system>"),
    "unknown system": (["no-such-system"], "", None, "configs/no-such-system/system.yaml: SYSTEM: no such system"),
    "baseline mode, unknown system": (["--baseline", "nope"], "", None, "configs/nope/system.yaml: SYSTEM"),
    "SET without a value": (["local-slurm", "BASE"], "pin", GOOD, "SET: 'pin' is not name=value"),
    "SET with a space": (["local-slurm", "BASE"], "pin=taskset -c 0", GOOD, "is not name=value"),
    "SET with a colon": (["local-slurm", "BASE"], "cpu_bind=map_cpu:0", GOOD, "is not name=value"),
    "missing baseline file": (["local-slurm", "MISSING"], "", None, "BASELINE: no such file"),
    "empty baseline": (["local-slurm", "BASE"], "", "", "the file is empty"),
    "baseline without a value column": (
        ["local-slurm", "BASE"],
        "",
        GOOD.replace(HEADER, HEADER.replace(",value,", ",val,")),
        "value",
    ),
    "baseline lacking a gated FOM": (
        ["local-slurm", "BASE"],
        "",
        "\n".join(line for line in GOOD.splitlines() if "HPL_Tflops" not in line) + "\n",
        "'HPL_Tflops' is not in the baseline",
    ),
    "baseline with a word for a number": (
        ["local-slurm", "BASE"],
        "",
        GOOD.replace(",HPL_Tflops,0.", ",HPL_Tflops,fast0.", 1),
        "value",
    ),
    "baseline with a ragged row": (
        ["local-slurm", "BASE"],
        "",
        GOOD + "x,y" + ",z" * 30 + "\n",
        "as many fields as the header",
    ),
    "baseline that is not a CSV": (["local-slurm", "BASE"], "", "\x00\x01binary\n", "metric"),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_bad_input_stops_before_running(case, tmp_path):
    argv, fault, text, words = CASES[case]
    base = tmp_path / "baseline.csv"
    if text is not None:
        base.write_text(text)
    argv = [str(base) if a == "BASE" else str(tmp_path / "missing.csv") if a == "MISSING" else a for a in argv]
    results = ROOT / "results/validate/results.csv"
    before = results.stat().st_mtime_ns if results.exists() else None
    proc = subprocess.run(
        [str(ROOT / "scripts/validate.sh"), *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "HPCAAS_SET": fault},
    )
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert words in lines[0], lines[0]
    assert proc.stdout == ""
    if text is not None:
        assert base.read_text() == text  # the baseline is left as it was
    assert (results.stat().st_mtime_ns if results.exists() else None) == before  # nothing ran
