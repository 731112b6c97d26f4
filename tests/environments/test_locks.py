"""The committed locks of environments/: every (study, paper system) pair has one, solved from
today's inputs (a cheap hash comparison: make test); plain Spack, in a shell where only
setup-env.sh was sourced, solves the committed environment to the same lock (make test-slow:
0.5-3 min a pair). That the study's dry-run on the system builds exactly the lock's specs is
checked with the dry-run itself (tests/studies/test_dry_run.py)."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from testkit import ROOT, run

from hpcaas import environments, spack_inputs, systems

PAIRS = environments.pairs()


def test_every_pair_has_a_lock_solved_from_todays_inputs():
    stale = environments.stale()
    assert not stale, "stale Spack locks:\n" + "\n".join(stale)


# A package's exact version in a manifest spec (name@1.2.3, ^name@=1.2.3; not a range, not %compiler).
VERSION = re.compile(r"(?:^|[\s^])([a-z0-9][\w-]*)@=?([\w.-]+)(?=\s|$)")


def test_each_version_a_study_names_is_the_version_its_lock_solved():
    """`npb@3.4` is a range that 3.4.1 satisfies: a lock must hold the version the study names."""
    wrong = []
    for study, system in PAIRS:
        env = environments.folder(study, system)
        solved = {}
        for spec in json.loads((env / "spack.lock").read_text())["concrete_specs"].values():
            solved.setdefault(spec["name"], set()).add(spec["version"])
        for spec in yaml.safe_load((env / "spack.yaml").read_text())["spack"]["specs"]:
            for name, version in VERSION.findall(spec):
                if name in solved and version not in solved[name]:
                    wrong.append(f"{study} on {system}: {name}@{version} asked, {sorted(solved[name])} solved")
    assert not wrong, "\n".join(wrong)


# A variant a manifest spec sets on a package: name=value (multi-valued: a,b). Flags and the
# architecture are not variants.
NOT_VARIANTS = {"target", "os", "arch", "platform", "cflags", "cxxflags", "fflags", "cppflags", "ldflags", "ldlibs"}


def _variants(segment):
    """(package name, {variant: [values]}) of one ^-separated part of a spec."""
    words = re.sub(r"'[^']*'|\"[^\"]*\"", "''", segment).split()  # quoted flags hold '=' too
    name = re.match(r"[a-z0-9][\w-]*", words[0]).group(0) if words and not words[0].startswith("%") else None
    settings = dict(w.split("=", 1) for w in words[1:] if "=" in w and not w.startswith(("%", "-")))
    return name, {k: v.split(",") for k, v in settings.items() if k not in NOT_VARIANTS}


def test_each_variant_a_study_names_is_the_variant_its_lock_solved():
    """`^cray-mpich netmod=ucx` (SC'23 Table 6's IB+CrayMpich+ucx) must solve to the UCX build, and
    `^openmpi@4.1.4 fabrics=ofi schedulers=slurm` to a Slurm-enabled Open MPI: a lock holds a
    package of that name with every variant value the manifest names."""
    wrong, checked = [], 0
    for study, system in PAIRS:
        env = environments.folder(study, system)
        solved = {}
        for spec in json.loads((env / "spack.lock").read_text())["concrete_specs"].values():
            solved.setdefault(spec["name"], []).append(spec["parameters"])
        for spec in yaml.safe_load((env / "spack.yaml").read_text())["spack"]["specs"]:
            for segment in re.split(r"\s\^", str(spec)):
                name, wanted = _variants(segment)
                if name not in solved or not wanted:
                    continue
                checked += 1

                def has(params, variant, values):
                    got = params.get(variant)
                    got = [str(g) for g in got] if isinstance(got, list) else [str(got)]
                    return set(values) <= set(got)

                if not any(all(has(p, k, v) for k, v in wanted.items()) for p in solved[name]):
                    wrong.append(f"{study} on {system}: {name} {wanted} asked, solved {solved[name]}")
    assert checked and not wrong, "\n".join(wrong)


def test_the_pairs_are_the_studies_paper_systems_and_the_validation_suite_on_every_system():
    committed = sorted(
        (p.parent.parent.name, p.parent.name)
        for p in (ROOT / "environments").glob("*/*/spack.lock")
        if p.parent.name not in environments.GENERATED
    )
    assert PAIRS and committed == sorted(PAIRS)
    tracked = subprocess.run(
        ["git", "ls-files", "configs/*/system.yaml"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert sorted(s for study, s in PAIRS if study == environments.VALIDATION) == sorted(
        Path(f).parent.name for f in tracked if Path(f).parent.name not in systems.NOT_SYSTEMS
    )


@pytest.mark.parametrize("system", [s for study, s in PAIRS if study == environments.VALIDATION])
def test_every_system_solves_the_validation_suite(system):
    """A system whose lock is missing fails here with the specs Spack could not solve for it
    (make concretize writes the manifest before it solves)."""
    env = environments.folder(environments.VALIDATION, system)
    manifest = env / "spack.yaml"
    specs = yaml.safe_load(manifest.read_text())["spack"]["specs"] if manifest.is_file() else ["(no manifest yet)"]
    fix = f"make concretize SYSTEM={system} ENV={environments.VALIDATION}"
    assert (env / "spack.lock").is_file(), f"{system}: the validation suite is not solved ({'; '.join(specs)}): {fix}"
    roots = json.loads((env / "spack.lock").read_text())["roots"]
    name = re.compile(r"^[\w-]+")
    assert sorted(name.match(r["spec"])[0] for r in roots) == sorted(
        name.match(s)[0] for s in specs
    ), f"{system}: its lock holds other roots than {specs}: {fix}"


@pytest.mark.parametrize("study,system", PAIRS[:1])
def test_a_changed_recipe_or_manifest_makes_the_pair_stale(study, system, tmp_path, monkeypatch):
    env = environments.folder(study, system)
    recorded = (env / "inputs.sha256").read_text().strip()
    packages = spack_inputs.lock_packages(env / "spack.lock")
    ours = sorted(p.name for p in (ROOT / "spack-repo/packages").iterdir() if p.name in packages)
    assert ours, f"no recipe of spack-repo/ in {env / 'spack.lock'}"
    repo = tmp_path / "spack-repo"
    shutil.copytree(ROOT / "spack-repo", repo)
    monkeypatch.setattr(spack_inputs, "REPO", repo)
    assert environments.inputs(study, system) == recorded
    recipe = repo / "packages" / ours[0] / "package.py"
    recipe.write_text(recipe.read_text() + "\n# a change\n")
    assert environments.inputs(study, system) != recorded
    assert any(
        line.startswith(f"{study} on {system}:") and f"make concretize SYSTEM={system} ENV={study}" in line
        for line in environments.stale()
    )


@pytest.mark.slow
@pytest.mark.parametrize("study,system", PAIRS, ids=[f"{s}@{y}" for s, y in PAIRS])
def test_plain_spack_solves_the_committed_environment_again(project, study, system, tmp_path):
    """`spack -e <copy> concretize -f` with nothing but setup-env.sh sourced (no system chosen):
    the environment brings its system's Spack config, and the solve gives the committed roots."""
    env = environments.folder(study, system)
    shutil.copy(env / "spack.yaml", tmp_path / "spack.yaml")
    run(f"spack -e {tmp_path} concretize -f", env={"HPCAAS_SYSTEM": ""}, timeout=1800)
    solved = json.loads((tmp_path / "spack.lock").read_text())["roots"]
    committed = json.loads((env / "spack.lock").read_text())["roots"]
    assert sorted(r["hash"] for r in solved) == sorted(r["hash"] for r in committed)
