"""environments/pairs.yaml against the systems: every system a study names is a pair, blocked or
builds nothing, and each pair's configs/<system>/spack/definitions.yaml only names what the
system's own Spack config has (compilers, OS, MPI externals). No Spack run: fast."""

import re

import pytest
import yaml

from testkit import ROOT

PAIRS = yaml.safe_load((ROOT / "environments/pairs.yaml").read_text())
CONCRETIZABLE = [(env, system) for env, systems in PAIRS["pairs"].items() for system in systems]
ENVIRONMENTS = sorted(p.parent.name for p in (ROOT / "environments").glob("*/spack.yaml"))


def load(system, name):
    return yaml.safe_load((ROOT / "configs" / system / "spack" / name).read_text())


def definitions(system):
    return {name: specs for item in load(system, "definitions.yaml")["definitions"] for name, specs in item.items()}


def test_every_study_system_is_listed_once():
    listed = [(env, system) for section in PAIRS.values() for env, systems in section.items() for system in systems]
    assert len(listed) == len(set(listed))
    named = {(study, p.parent.name) for p in (ROOT / "configs").glob("*/system.yaml")
             for study in yaml.safe_load(p.read_text()).get("studies", [])}
    assert set(listed) == named


def test_each_study_has_its_environment():
    assert ENVIRONMENTS == sorted(set(PAIRS["pairs"]) | set(PAIRS["blocked"]))


@pytest.mark.parametrize("env,system", CONCRETIZABLE)
def test_definitions_name_the_systems_compilers_os_and_mpis(env, system):
    defs = definitions(system)
    assert set(defs) == {"default_compiler", "compilers", "default_mpi", "mpis", "default_target", "targets"}
    assert set(defs["default_compiler"]) <= set(defs["compilers"])
    assert set(defs["default_mpi"]) <= set(defs["mpis"])
    assert set(defs["default_target"]) <= set(defs["targets"])
    compilers = {c["compiler"]["spec"].replace("@=", "@"): c["compiler"]["operating_system"]
                 for c in load(system, "compilers.yaml")["compilers"]}
    assert {c.lstrip("%") for c in defs["compilers"]} <= set(compilers)
    for target in defs["targets"]:
        assert re.fullmatch(r"os=(\S+) target=\w+", target).group(1) in set(compilers.values())
    packages = load(system, "packages.yaml")["packages"]
    for mpi in defs["mpis"]:
        name, version = re.fullmatch(r"\^([\w-]+)@([\d.]+)", mpi).groups()
        if packages.get(name, {}).get("buildable", True) is False:
            assert any(e["spec"].startswith(f"{name}@{version}") for e in packages[name]["externals"]), mpi
