"""The sensitivity table (bench/sensitivity.report) from a real bench's runs, judged again by this
tree's gates: which gate FAILed the faulty node under which fault, the false alarms of the
unchanged run and the loss each fault caused, as the bench printed them that day."""

from pathlib import Path

from analysis import files
from bench import sensitivity
from hpcaas.validate import judge

DATA = Path(__file__).parent / "data/sensitivity"


def checks(name, baseline):
    return judge.judge(sensitivity.SYSTEM, files.read_results(str(DATA / f"{name}.csv")), baseline)


def test_the_table_says_which_gate_caught_which_fault(project):
    baseline = files.read_results(str(DATA / "baseline.csv"))
    faults = {f: checks(f"fault-{f}", baseline) for f in sensitivity.FAULTS}
    text, figures = sensitivity.report(faults, [checks("unchanged-01", baseline)], "n2")
    lines = text.splitlines()
    assert "| peers | 0 of 1 | 1 of 1 | corunner50 | - | - | compute | compute | - | - |" in lines
    assert "| baseline | 0 of 1 | 1 of 1 | none | - | - | - | - | - | - |" in lines
    assert "| slowblas | 57 | 64.4 | -3.1 |" in lines
    assert "| corunner50 | 32.2 | 17.3 | 14.9 |" in lines
    assert [(f.name, f.value, f.unit) for f in figures] == [
        (f"validate {g} gate: false alarms in unchanged runs", 0, "of 1") for g in sensitivity.GATES
    ]
