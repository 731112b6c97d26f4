"""What a person sees while a run goes: the step, each package Spack builds with its count, each
Slurm job as it ends; everything else Spack and Ramble print stays in the run's log (run.log)."""

import re
import sys
import threading
import time
from pathlib import Path

# Spack v0.23: "==> Installing hpcc-1.5.0-abcdefg [12/12]" as each build starts.
INSTALLING = re.compile(r"==> Installing (\S+?)-(\d[\w.-]*)-([a-z0-9]{7,}) \[(\d+)/(\d+)\]")
# ... and how a build or fetch fails (its own lines, then Spack's summary of the install).
FAILURE = re.compile(r"(==> Error|Error: |FetchError|All fetchers failed|No such file or directory: .*mirror)")


def say(text: str):
    print(f"[hpcaas] {text}", flush=True)


def warn(text: str):
    print(f"[hpcaas] {text}", file=sys.stderr, flush=True)


class Install:
    """Spack install output -> one line per package built, and the lines that say why a build or
    a fetch failed (at most a few: the rest is in the log)."""

    MAX_ERRORS = 6

    def __init__(self, env: str):
        self.env, self.errors, self.started = env, 0, time.monotonic()

    def __call__(self, line: str):
        m = INSTALLING.search(line)
        if m:
            name, version, _, k, n = m.groups()
            say(f"  {self.env}: building {name}@{version} ({k}/{n})")
        elif FAILURE.search(line) and self.errors < self.MAX_ERRORS:
            self.errors += 1
            warn(f"  {self.env}: {line.strip()[:300]}")


def quiet(_line: str):
    """Ramble's own output (phases, per-experiment progress bars): the log keeps it."""


class Experiments(threading.Thread):
    """While `ramble on` runs experiments in place (no scheduler), one line per experiment as it
    starts: Ramble opens each experiment's <name>.out in its run folder first."""

    def __init__(self, workspace: Path, since: float, every: float = 2.0):
        super().__init__(daemon=True)
        self.scripts = sorted(Path(workspace).glob("experiments/*/*/*/execute_experiment"))
        self.since, self.every, self.seen, self.done = since, every, set(), threading.Event()

    def poll(self):
        for script in self.scripts:
            out = script.parent / f"{script.parent.name}.out"
            if script not in self.seen and out.exists() and out.stat().st_mtime >= self.since:
                self.seen.add(script)
                app, workload, name = script.parent.parts[-3:]
                say(f"  [{len(self.seen)}/{len(self.scripts)}] {app}.{workload}.{name}")

    def run(self):
        while not self.done.wait(self.every):
            self.poll()

    def stop(self):
        self.done.set()
        self.join()
        self.poll()
