"""Commands run as a user runs them (bash, after `. ./setup-env.sh`), timed: wall seconds and
the CPU seconds of the command and its children (on a shared machine the CPU time is the
steadier figure; the wall time is what a user waits)."""

import resource
import subprocess
import time
from dataclasses import dataclass

from hpcaas.paths import ROOT


@dataclass
class Timed:
    wall: float
    cpu: float
    output: str


def run(script: str, cwd=ROOT, env=None, setup_env=True, log=None) -> Timed:
    """Run a bash script (after setup-env.sh unless told not to); a failure raises with its output's tail."""
    prelude = f". {ROOT}/setup-env.sh && " if setup_env else ""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(
        ["bash", "-c", "set -euo pipefail; " + prelude + script],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if log is not None:
        log.write_text(done.stdout)
    if done.returncode != 0:
        tail = "\n".join(done.stdout.splitlines()[-15:])
        raise RuntimeError(f"`{script}` failed (exit {done.returncode}) in {cwd}:\n{tail}")
    return Timed(wall, cpu, done.stdout)
