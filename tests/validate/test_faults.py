"""The faults make validate injects (FAULT=<node>:<fault>), as suite.sh's `task` applies them to
each tool on the faulty node: run here on real commands, without a scheduler. Every fault the
command line accepts is one suite.sh knows."""

import resource
import subprocess
import time
from pathlib import Path

import pytest
from testkit import ROOT

from hpcaas.validate import cli

SUITE = ROOT / "ramble-repo/applications/node-validation/suite.sh"


def task(fault, *cmd, timeout=60):
    start = time.monotonic()
    proc = subprocess.run(["bash", str(SUITE), "task", fault, *cmd], capture_output=True, text=True, timeout=timeout)
    return proc, time.monotonic() - start


@pytest.mark.parametrize("fault", [f.replace("<percent>", "25") for f in cli.FAULTS] + ["none"])
def test_every_fault_is_one_suite_sh_knows(fault):
    proc, _ = task(fault, "true")
    assert proc.returncode == 0, proc.stderr
    assert "timing| real" in proc.stderr  # the tool is timed, its share of the cores follows


def test_an_unknown_fault_is_an_error():
    proc, _ = task("fast", "true")
    assert proc.returncode == 2 and "unknown fault 'fast'" in proc.stderr


def test_slowblas_and_tcp_change_what_the_tool_loads():
    blas, _ = task("slowblas", "env")
    tcp, _ = task("tcp", "env")
    clean, _ = task("none", "env")
    assert "OPENBLAS_CORETYPE=Prescott" in blas.stdout.splitlines()
    assert {"OMPI_MCA_btl=self,tcp", "MPIR_CVAR_NOLOCAL=1"} <= set(tcp.stdout.splitlines())
    assert "OPENBLAS_CORETYPE=Prescott" not in clean.stdout.splitlines()


def test_kill_ends_the_tool_after_three_seconds():
    proc, took = task("kill", "sleep", "30")
    assert proc.returncode == 137 and 2.5 < took < 20


def test_a_co_runner_takes_cpu_while_the_tool_runs_and_goes_with_it(tmp_path):
    """corunner50 beside a 2-second sleep: the co-runner used CPU time meanwhile (the task's
    children, waited for), and none is left once the task returned."""
    mark = f"HPCAAS_TEST_MARK={tmp_path.name}"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(
        ["env", mark, "bash", str(SUITE), "task", "corunner50", "sleep", "2"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert proc.returncode == 0, proc.stderr
    assert (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime) > 0.2
    left = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if mark.encode() in environ.read_bytes().split(b"\0"):
                left.append(environ.parent.name)
        except OSError:
            continue
    assert not left, f"co-runner(s) left running: {left}"
