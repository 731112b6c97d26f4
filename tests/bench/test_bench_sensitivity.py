"""The sensitivity table (bench/sensitivity.report) from a real bench's runs, judged again by this
tree's gates: which gate FAILed the faulty node under which fault, the false alarms of the
unchanged run and the loss each fault caused, as the bench printed them that day."""

import json
import subprocess
import sys
from pathlib import Path

from testkit import ROOT

DATA = Path(__file__).parent / "data/sensitivity"

# In the project's root, where `bench` is the package (here it would be this test folder).
REPORT = """
import json, sys
from pathlib import Path
from analysis import files
from bench import sensitivity
from hpcaas.validate import judge

data = Path(sys.argv[1])
baseline = files.read_results(str(data / "baseline.csv"))
checks = lambda name: judge.judge(sensitivity.SYSTEM, files.read_results(str(data / f"{name}.csv")), baseline)
faults = {f: checks(f"fault-{f}") for f in sensitivity.FAULTS}
text, figures = sensitivity.report(faults, [checks("unchanged-01")], "n2")
print(json.dumps({"text": text, "figures": [[f.name, f.value, f.unit] for f in figures], "gates": sensitivity.GATES}))
"""


def test_the_table_says_which_gate_caught_which_fault(project):
    proc = subprocess.run(
        [sys.executable, "-c", REPORT, str(DATA)], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout)
    lines = got["text"].splitlines()
    assert "| peers | 0 of 1 | 1 of 1 | corunner50 | - | - | compute | compute | - | - |" in lines
    assert "| baseline | 0 of 1 | 1 of 1 | none | - | - | - | - | - | - |" in lines
    assert "| slowblas | 57 | 64.4 | -3.1 |" in lines
    assert "| corunner50 | 32.2 | 17.3 | 14.9 |" in lines
    assert got["figures"] == [[f"validate {g} gate: false alarms in unchanged runs", 0, "of 1"] for g in got["gates"]]
