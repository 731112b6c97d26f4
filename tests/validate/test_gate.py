"""analysis/gate.py, the one rule of every validation verdict: the tolerance comes from the
reference's spread (capped), never from the judged run's; a run too noisy to judge is UNSTABLE,
never PASS; a clear regression FAILs however noisy; a baseline of another system, application
or suite is refused naming both. Cases made-up where the rule's arithmetic is the point, and
the real repeats of make validate on this machine where the noise is."""

import io
import subprocess

import numpy as np
import pandas as pd
import pytest
from testkit import ROOT

from analysis import directions, files, gate

HEADER = "experiment,system,application,metric,value,unit,status,repeat\n"


def results(
    tmp_path,
    name,
    values,
    system="a",
    application="hpcc",
    experiment="hpcc.sized.validate-{s}",
    metric="HPL_Tflops",
    unit="Tflops",
):
    rows = "".join(
        f"{experiment.format(s=system)}.{i},{system},{application},{metric},{v},{unit},SUCCESS,{i}\n"
        for i, v in enumerate(values, 1)
    )
    path = tmp_path / name
    path.write_text(HEADER + rows)
    return path


def cli(*args):
    return subprocess.run(
        [str(ROOT / ".venv/bin/hpcaas-analyze"), "gate", *map(str, args)], capture_output=True, text=True, cwd=ROOT
    )


def verdict(tmp_path, base_values, run_values, **kw):
    base, run = results(tmp_path, "b.csv", base_values), results(tmp_path, "r.csv", run_values)
    out = gate.gate(files.read_results(run), files.read_results(base), run, base, **kw)
    return out.iloc[0]


BASE = [0.0300, 0.0305, 0.0298, 0.0302, 0.0307]


def test_a_noisy_60_percent_drop_fails(tmp_path):
    # The made-up case: a 60 % drop whose repeats spread from 0.006 to 0.020. Under the
    # old rule the run's own spread widened the tolerance past the drop and it PASSed.
    row = verdict(tmp_path, BASE, [0.006, 0.010, 0.012, 0.015, 0.020])
    assert row["verdict"] == gate.FAIL, row["reason"]
    assert row["tolerance_pct"] == pytest.approx(gate.tolerance(np.std(BASE, ddof=1) / np.mean(BASE), 5) * 100)
    assert row["change_pct"] == pytest.approx((np.mean([0.006, 0.010, 0.012, 0.015, 0.020]) / np.mean(BASE) - 1) * 100)


def test_an_unchanged_run_passes_and_a_steady_20_percent_drop_fails(tmp_path):
    assert verdict(tmp_path, BASE, [0.0301, 0.0299, 0.0304, 0.0303, 0.0300])["verdict"] == gate.PASS
    assert verdict(tmp_path, BASE, [v * 0.8 for v in BASE])["verdict"] == gate.FAIL


def test_the_run_s_own_spread_never_widens_the_tolerance(tmp_path):
    """Two runs of the same mean, one steady and one noisy: the same tolerance; the noisy one
    is UNSTABLE (not judged), never a PASS the steady one would not get."""
    steady = verdict(tmp_path, BASE, [0.0301, 0.0299, 0.0304, 0.0303, 0.0300])
    noisy = verdict(tmp_path, BASE, [0.030, 0.022, 0.039, 0.028, 0.032])
    assert noisy["tolerance_pct"] == steady["tolerance_pct"]
    assert noisy["verdict"] == gate.UNSTABLE and "repeats spread" in noisy["reason"]
    assert "more repeats or a quieter machine" in noisy["reason"]


def test_the_tolerance_is_capped_and_floored():
    assert gate.tolerance(0.2, 5) == gate.CAP  # a noisy baseline cannot widen it past the cap
    assert gate.tolerance(0.001, 5) == gate.FLOOR
    assert gate.tolerance(0.01, 5) == pytest.approx(gate.SIGMA * 0.01)
    assert gate.tolerance(0.2, 1) == gate.FLOOR  # one repeat: no spread to go by


def test_judge_is_symmetric_for_latencies():
    # A latency 30 % up is 30 % worse; 30 % down is better and PASSes.
    worse = gate.judge([13.0, 13.0, 13.1], 10.0, 0.05, directions.LOWER)
    better = gate.judge([7.0, 7.0, 7.1], 10.0, 0.05, directions.LOWER)
    assert (worse["verdict"], better["verdict"]) == (gate.FAIL, gate.PASS)


def test_a_single_repeat_is_judged_with_the_reference_s_spread():
    j = gate.judge([0.5], 1.0, 0.05, directions.HIGHER, 0.01, 5)
    assert j["verdict"] == gate.FAIL
    assert j["margin"] == pytest.approx(gate.CONFIDENCE * np.hypot(0.01, 0.01 / np.sqrt(5)))
    unknown = gate.judge([1.0], 1.0, 0.05, directions.HIGHER)
    assert unknown["verdict"] == gate.UNSTABLE and "one repeat" in unknown["reason"]


def test_a_noisy_reference_makes_the_verdict_unstable_not_wider():
    """The reference's own spread counts in how sure the verdict is: a steady run 5 % below a
    reference whose 3 repeats spread 40 % is UNSTABLE (the reference's mean is not known well
    enough), and the tolerance stays capped."""
    j = gate.judge([95, 95.5, 94.5], 100, gate.tolerance(0.2, 3), directions.HIGHER, 0.2, 3)
    assert gate.tolerance(0.2, 3) == gate.CAP
    assert j["verdict"] == gate.UNSTABLE and "the reference's CV 20.0 %" in j["reason"]
    clear = gate.judge([40, 41, 39], 100, gate.tolerance(0.2, 3), directions.HIGHER, 0.2, 3)
    assert clear["verdict"] == gate.FAIL


def test_real_repeats_of_this_machine(tmp_path):
    """HPCC's MaxPingPongLatency_usec on local-slurm (2026-11-27): the baseline's five repeats,
    one of them 25 % faster than the rest, and the next run's on the unchanged machine. The
    tolerance is the baseline's spread, capped at 10 %; the run is steady and +4.9 % from the
    baseline's mean, but that mean is known only to +-5 % (CV 12 % over 5 repeats): UNSTABLE,
    never the FAIL the run's own steadiness gave under the first rule, nor a PASS."""
    base = results(tmp_path, "b.csv", [6.26106, 8.34625, 8.44512, 8.38819, 8.0995], metric="lat", unit="usec")
    run = results(tmp_path, "r.csv", [8.20156, 8.38375, 8.36938, 8.24413, 8.28425], metric="lat", unit="usec")
    row = gate.gate(files.read_results(run), files.read_results(base), run, base).iloc[0]
    assert row["tolerance_pct"] == pytest.approx(gate.CAP * 100)
    assert row["change_pct"] == pytest.approx(4.91, abs=0.01) and row["verdict"] == gate.UNSTABLE


def test_a_baseline_of_another_system_is_refused_naming_both(tmp_path):
    base = results(tmp_path, "b.csv", BASE, system="aws-hpc7a-efa")
    run = results(tmp_path, "r.csv", BASE, system="local-slurm")
    proc = cli(run, "--baseline", base)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    line = proc.stderr.strip()
    assert "system local-slurm" in line and "system aws-hpc7a-efa" in line and str(base) in line


def test_a_baseline_of_another_application_or_suite_is_refused(tmp_path):
    run = results(tmp_path, "r.csv", BASE)
    other_app = results(tmp_path, "b1.csv", BASE, application="hpl")
    other_suite = results(tmp_path, "b2.csv", BASE, experiment="hpcc.sized.smoke-{s}-openmpi")
    app = cli(run, "--baseline", other_app)
    suite = cli(run, "--baseline", other_suite)
    assert app.returncode == 2 and "application hpcc" in app.stderr and "application hpl" in app.stderr
    assert suite.returncode == 2 and "hpcc.sized.validate-{system}" in suite.stderr
    assert "hpcc.sized.smoke-{system}-openmpi" in suite.stderr


def test_cli_exit_status_and_table(tmp_path):
    base = results(tmp_path, "b.csv", BASE)
    same = cli(results(tmp_path, "same.csv", [0.0301, 0.0299, 0.0304, 0.0303, 0.0300]), "--baseline", base)
    assert same.returncode == 0 and "all 1 FOMs PASS" in same.stderr
    assert set(pd.read_csv(io.StringIO(same.stdout))["verdict"]) == {gate.PASS}
    noisy = cli(results(tmp_path, "noisy.csv", [0.030, 0.022, 0.039, 0.028, 0.032]), "--baseline", base)
    assert noisy.returncode == 1 and "1 UNSTABLE of 1 FOMs" in noisy.stderr
    drop = cli(results(tmp_path, "drop.csv", [0.006, 0.010, 0.012, 0.015, 0.020]), "--baseline", base)
    assert drop.returncode == 1 and "HPL_Tflops: FAIL" in drop.stderr
