"""Every paper workspace, generated on its paper system with `make dry-run` (Ramble's
`workspace setup --dry-run`: nothing built or run), expands to exactly the paper's matrix.

tests/studies/<study>.yaml holds, per paper system, what the generated workspace must contain:
    <system>:
      count: number of experiments
      experiments: [<app>/<workload>/<experiment name>, ...]   (optional: the exact set)
      scripts:
        <app>/<workload>/<experiment name>:
          command: a line of its execute_experiment, as written before the output redirection,
                   the generated workspace's path as {ws} (or a list of such lines: every one must be there)
          env: {VARIABLE: value}   exported by the script or set on the launch line
          spec: the Spack spec of the environment the script activates
"""

import re
from pathlib import Path

import pytest
import yaml

from testkit import ROOT, run

EXPECTED = {p.stem: yaml.safe_load(p.read_text()) for p in sorted((ROOT / "tests/studies").glob("*.yaml"))}
CASES = [(study, system) for study, systems in EXPECTED.items() for system in systems]
# Studies at the paper's scale: those naming a paper system and not scaled down from another.
PAPER_STUDIES = sorted(p.parent.name for p in (ROOT / "ramble-workspaces").glob("*/study.yaml")
                       if "paper_system" in (doc := yaml.safe_load(p.read_text())) and "scaled_from" not in doc)


def dry_run(study, system):
    proc = run(f"scripts/dry-run.sh {study} {system}")
    return Path(proc.stdout.strip().splitlines()[-1])


def command_lines(script, ws):
    """The script's lines, each without Ramble's `>> "<out>" 2>&1` redirection, with the generated
    workspace's path written {ws} (and the project's {root}), as the expectations have them."""
    script = script.replace(str(ws), "{ws}").replace(str(ROOT), "{root}")
    return [re.sub(r'\s*>>?\s*"[^"]*"\s*2>&1\s*$', "", line) for line in script.splitlines()]


def test_every_paper_study_has_dry_run_expectations():
    assert len(PAPER_STUDIES) == 20 and set(PAPER_STUDIES) == set(EXPECTED), sorted(set(PAPER_STUDIES) ^ set(EXPECTED))


def test_each_paper_study_names_its_paper_systems():
    for study in PAPER_STUDIES:
        doc = yaml.safe_load((ROOT / "ramble-workspaces" / study / "study.yaml").read_text())
        systems = doc["paper_system"] if isinstance(doc["paper_system"], list) else [doc["paper_system"]]
        assert sorted(systems) == sorted(EXPECTED[study]), study


@pytest.mark.parametrize("study,system", CASES, ids=[f"{s}@{y}" for s, y in CASES])
def test_dry_run_gives_the_papers_matrix(project, study, system):
    want = EXPECTED[study][system]
    ws = dry_run(study, system)
    scripts = {str(p.parent.relative_to(ws / "experiments")): p
               for p in (ws / "experiments").glob("*/*/*/execute_experiment")}
    assert len(scripts) == want["count"], sorted(scripts)
    if "experiments" in want:
        assert sorted(scripts) == sorted(want["experiments"])
    for name, checks in want.get("scripts", {}).items():
        assert name in scripts, f"{name} not generated; got {sorted(scripts)[:10]}"
        text = scripts[name].read_text()
        lines = command_lines(text, ws)
        commands = checks.get("command", [])
        for command in [commands] if isinstance(commands, str) else commands:
            assert command in lines, f"{name}: no line\n  {command}\nin\n" + "\n".join(lines)
        for var, value in checks.get("env", {}).items():
            pattern = rf'(^|\s|;)(export\s+)?{re.escape(var)}=["\']?{re.escape(str(value))}["\']?(;|\s|$)'
            assert re.search(pattern, text, re.M), f"{name}: {var}={value} not set in\n{text}"
        if "spec" in checks:
            env_dir = re.search(r"^spack env activate (\S+)$", text, re.M).group(1)
            specs = yaml.safe_load((Path(env_dir) / "spack.yaml").read_text())["spack"]["specs"]
            assert checks["spec"] in specs, f"{name}: {checks['spec']!r} not in {specs}"
