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
          submit: the all_experiments line that submits it ({ws} for the workspace's path)
"""

import json
from pathlib import Path

import pytest
import yaml
from testkit import ROOT, run

from hpcaas import dryrun, environments, fidelity, studies

EXPECTED = {p.stem: yaml.safe_load(p.read_text()) for p in sorted((ROOT / "tests/studies").glob("*.yaml"))}
CASES = [(study, system) for study, systems in EXPECTED.items() for system in systems]
# The paper studies: those naming the paper's system(s).
PAPER_STUDIES = sorted(
    p.parent.name
    for p in (ROOT / "ramble-workspaces").glob("*/study.yaml")
    if "paper_system" in yaml.safe_load(p.read_text())
)


def dry_run(study, system, scale="paper"):
    proc = run(f"hpcaas dry-run {study} {system} --scale {scale}")
    return Path(proc.stdout.strip().splitlines()[-1])


def with_placeholders(text, ws):
    """The generated workspace's path written {ws} (and the project's {root}), as the expectations
    have them."""
    return text.replace(str(ws), "{ws}").replace(str(ROOT), "{root}")


def test_every_paper_study_has_dry_run_expectations():
    assert PAPER_STUDIES and set(PAPER_STUDIES) == set(EXPECTED), sorted(set(PAPER_STUDIES) ^ set(EXPECTED))


def test_each_paper_study_names_its_paper_systems():
    for study in PAPER_STUDIES:
        doc = yaml.safe_load((ROOT / "ramble-workspaces" / study / "study.yaml").read_text())
        systems = doc["paper_system"] if isinstance(doc["paper_system"], list) else [doc["paper_system"]]
        assert sorted(systems) == sorted(EXPECTED[study]), study


@pytest.mark.parametrize("study,system", CASES, ids=[f"{s}@{y}" for s, y in CASES])
def test_dry_run_gives_the_papers_matrix(project, study, system):
    """The matrix of tests/studies/<study>.yaml, every row of the study's fidelity table, and the
    committed environment of the pair (the specs its lock was solved from)."""
    want = EXPECTED[study][system]
    ws = dry_run(study, system)
    experiments = dryrun.read(ws)
    assert len(experiments) == want["count"], sorted(experiments)
    if "experiments" in want:
        assert sorted(experiments) == sorted(want["experiments"])
    for name, checks in want.get("scripts", {}).items():
        assert name in experiments, f"{name} not generated; got {sorted(experiments)[:10]}"
        exp = experiments[name]
        lines = [with_placeholders(line, ws) for line in exp.lines]
        commands = checks.get("command", [])
        for command in [commands] if isinstance(commands, str) else commands:
            assert command in lines, f"{name}: no line\n  {command}\nin\n" + "\n".join(lines)
        for var, value in checks.get("env", {}).items():
            assert exp.env.get(var) == str(value), f"{name}: {var}={value} not set in\n{exp.script}"
        if "spec" in checks:
            assert checks["spec"] in exp.specs, f"{name}: {checks['spec']!r} not in {exp.specs}"
        if "submit" in checks:
            assert with_placeholders(exp.submit, ws) == checks["submit"], f"{name}: submitted by {exp.submit}"
    # The committed environment (and so its lock) is the one this study renders here,
    manifest = environments.folder(study, system) / "spack.yaml"
    committed = yaml.safe_load(manifest.read_text())["spack"]["specs"]
    rendered = [environments.with_site_os(system, s) for s in environments.specs_of(ws)]
    assert sorted(committed) == sorted(rendered), f"{manifest}: run make concretize SYSTEM={system} ENV={study}"
    # and each Ramble environment holds the lock's solve of its specs (its spack.lock, which Ramble
    # keeps and installs): together every root, but a system's binary (Ramble solves that itself).
    lock = json.loads((manifest.parent / "spack.lock").read_text())
    roots = {r["hash"] for r in lock["roots"] if "external" not in lock["concrete_specs"][r["hash"]]}
    seeded = {r["hash"] for f in ws.glob("software/*/spack.lock") for r in json.loads(f.read_text())["roots"]}
    assert seeded == roots, f"{ws}/software: {sorted(seeded ^ roots)}"
    failures = fidelity.check(studies.load(study)["fidelity"], system, experiments)
    assert not failures, "\n".join(failures)


def test_a_dry_run_from_the_cache_is_the_one_ramble_generates():
    """make dry-run restores a workspace generated before from identical inputs
    (hpcaas/dryrun.py): its scripts and environments are what Ramble writes now, paths and all."""
    generated = run("HPCAAS_DRYRUN_CACHE=0 hpcaas dry-run smoke local")
    ws = Path(generated.stdout.strip().splitlines()[-1])
    fresh = {k: (e.script, e.specs) for k, e in dryrun.read(ws).items()}
    cached = run("hpcaas dry-run smoke local")
    assert "generated before from identical inputs" in cached.stdout
    assert fresh and {k: (e.script, e.specs) for k, e in dryrun.read(ws).items()} == fresh
    assert str(ROOT) in next(iter(fresh.values()))[0]  # the project's own path, not the cache's placeholder
