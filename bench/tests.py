"""`make test` on this checkout (a warm machine: setup finds everything done) and where its time
goes: the wall time against issue 32's 10 minutes, and the slowest tests by pytest's own
`--durations` (pyproject.toml asks every pytest run for its 30 slowest phases; a test's setup,
call and teardown are added up, over both of scripts/test.sh's runs).

`python -m bench --only test --tests tests/<folder>` times part of the suite instead
(scripts/test.sh with those arguments; no target)."""

import re
from collections import defaultdict
from pathlib import Path

from bench import shell
from bench.clone import _env
from bench.record import Figure
from hpcaas.paths import ROOT

LIMIT_MIN = 10.0  # issue 32: make test on a warm machine
SHOWN = 15
# pytest's durations lines: "12.34s call     tests/x/test_y.py::test_z[case]"
DURATION = re.compile(r"^\s*([0-9.]+)s (setup|call|teardown)\s+(\S.*?)\s*$")


def slowest(output: str) -> list:
    """(test id, seconds) from pytest's durations sections, slowest first."""
    per_test = defaultdict(float)
    for line in output.splitlines():
        match = DURATION.match(line)
        if match:
            test = re.sub(r"@[\w-]+$", "", match.group(3))  # pytest-xdist's @<group> of --dist loadgroup
            per_test[test] += float(match.group(1))
    return sorted(per_test.items(), key=lambda item: -item[1])


def measure(logs: Path, tests=None) -> list:
    """The figures; the run's output is in logs/make-test.log."""
    logs.mkdir(parents=True, exist_ok=True)
    command = f"scripts/test.sh {' '.join(tests)}" if tests else "make test"
    timed = shell.run(command, cwd=ROOT, env=_env(), setup_env=False, log=logs / "make-test.log", check=False)
    # pytest's closing line of each run: "== 161 passed, 14 warnings in 201.58s (0:03:21) =="
    closing = "\n".join(line for line in timed.output.splitlines() if re.search(r" in [0-9.]+s\b", line))
    outcome = {
        word: sum(int(n) for n in re.findall(rf"(\d+) {word}", closing)) for word in ("passed", "failed", "error")
    }
    figures = [
        Figure(f"{command}: wall", timed.wall / 60, "min", None if tests else LIMIT_MIN, command),
        Figure(f"{command}: CPU of it and its children", timed.cpu / 60, "min", None, command),
        Figure(f"{command}: tests passed", outcome["passed"], "", None, command),
        Figure(f"{command}: tests failed or in error", outcome["failed"] + outcome["error"], "", 0, command),
        Figure(f"{command}: exit status", timed.rc, "", 0, command),
    ]
    for test, seconds in slowest(timed.output)[:SHOWN]:  # the slowest, as pytest measured them
        figures.append(Figure(f"    {test}", seconds, "s", None, command))
    return figures
