"""Commands run as a user runs them (bash, after `. ./setup-env.sh`), timed: wall seconds, the
CPU seconds of the command and its children (on a shared machine the CPU time is the steadier
figure; the wall time is what a user waits), and when each of the project's `[hpcaas] ...`
progress lines appeared (so a slow command says which of its steps was slow)."""

import resource
import subprocess
import time
from dataclasses import dataclass, field

from hpcaas.paths import ROOT


@dataclass
class Timed:
    wall: float
    cpu: float
    output: str
    rc: int = 0
    marks: list = field(default_factory=list)  # (seconds since the start, '[hpcaas] ...' line)

    def steps(self) -> list:
        """(step, seconds): from the start to the first progress line, then from each line to
        the next (the step that line announced), the last to the end."""
        points = [(0.0, "(start: environment, checks)")] + self.marks + [(self.wall, "")]
        return [(text, t2 - t1) for (t1, text), (t2, _) in zip(points, points[1:])]


def run(script: str, cwd=ROOT, env=None, setup_env=True, log=None, check=True) -> Timed:
    """Run a bash script (after setup-env.sh unless told not to); a failure raises with its
    output's tail, unless check is false (then Timed.rc says it)."""
    prelude = f". {ROOT}/setup-env.sh && " if setup_env else ""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    lines, marks = [], []
    with subprocess.Popen(
        ["bash", "-c", "set -euo pipefail; " + prelude + script],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    ) as proc:
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("[hpcaas] "):
                marks.append((time.perf_counter() - t0, line[len("[hpcaas] ") :].strip()))
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    output = "".join(lines)
    if log is not None:
        log.write_text(output)
    if check and proc.returncode != 0:
        tail = "\n".join(output.splitlines()[-15:])
        raise RuntimeError(f"`{script}` failed (exit {proc.returncode}) in {cwd}:\n{tail}")
    return Timed(wall, cpu, output, rc=proc.returncode, marks=marks)
