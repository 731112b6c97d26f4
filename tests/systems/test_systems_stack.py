"""The systems' Spack and Ramble files as the pinned Spack v0.23.1 and Ramble read them: Spack's
own schemas accept them, and a Ramble workspace with each system's variables (its own and the
derived ones) renders every launcher x fabric into a complete job script."""

import re

import pytest
import yaml
from test_systems import CONFIGS, SYSTEMS
from testkit import run

from hpcaas.systems import ramble_config

SPACK_CHECK = """
import sys
import spack.config, spack.schema.compilers, spack.schema.packages
import spack.util.spack_yaml as syaml
for f in sys.argv[1:]:
    schema = spack.schema.compilers.schema if f.endswith("compilers.yaml") else spack.schema.packages.schema
    spack.config.validate(syaml.load_config(open(f).read()), schema)
    print("OK", f)
"""

RAMBLE_CHECK = """
import sys, yaml
import ramble.config, ramble.schema.variables
for f in sys.argv[1:]:
    ramble.config.validate(yaml.safe_load(open(f)), ramble.schema.variables.schema)
    print("OK", f)
"""


def test_spack_v0231_accepts_every_compilers_and_packages_file(project, tmp_path):
    files = [str(CONFIGS / s / "spack" / f) for s in SYSTEMS for f in ("compilers.yaml", "packages.yaml")]
    (tmp_path / "check.py").write_text(SPACK_CHECK)
    out = run(f"spack python {tmp_path / 'check.py'} {' '.join(files)}").stdout
    assert out.count("OK ") == len(files)


def test_ramble_accepts_every_variables_file(project, tmp_path):
    files = [str(CONFIGS / s / "ramble" / "variables.yaml") for s in SYSTEMS]
    (tmp_path / "check.py").write_text(RAMBLE_CHECK)
    out = run(f"ramble python {tmp_path / 'check.py'} {' '.join(files)}").stdout
    assert out.count("OK ") == len(files)


def launcher_program(variables, launcher):
    """The program a launcher runs, through aliases such as launcher_mpt_other_node: '{launcher_mpt}'."""
    word = variables[f"launcher_{launcher}"].split()[0]
    while alias := re.fullmatch(r"\{(\w+)\}", word):
        word = variables[alias.group(1)].split()[0]
    return word


@pytest.mark.parametrize("name", SYSTEMS)
def test_ramble_renders_each_launcher_and_fabric(project, tmp_path, name):
    conf = ramble_config(CONFIGS / name)
    variables = conf["variables"]
    fabrics = yaml.safe_load((CONFIGS / name / "ramble/fabrics.yaml").read_text())["fabrics"]
    # launcher_for_<mpi> names an MPI's launcher; it is not a launcher command itself.
    launchers = [
        k[len("launcher_") :] for k in variables if k.startswith("launcher_") and not k.startswith("launcher_for_")
    ]
    ws = tmp_path / "ws"
    (ws / "configs").mkdir(parents=True)
    (ws / "configs/execute_experiment.tpl").write_text(conf["template"])
    (ws / "configs/ramble.yaml").write_text(
        yaml.safe_dump(
            {
                "ramble": {
                    "variables": {**variables, "n_nodes": "2"},
                    "applications": {
                        "hostname": {
                            "workloads": {
                                "parallel": {
                                    "experiments": {
                                        "h-{launcher}-{fabric}": {
                                            "variables": {"launcher": launchers, "fabric": list(fabrics)},
                                            "matrix": ["launcher", "fabric"],
                                        }
                                    }
                                }
                            }
                        }
                    },
                    "software": {"packages": {}, "environments": {}},
                }
            }
        )
    )
    run(f"ramble -D {ws} workspace setup --dry-run")
    for launcher in launchers:
        for fabric, env in fabrics.items():
            script = (ws / f"experiments/hostname/parallel/h-{launcher}-{fabric}/execute_experiment").read_text()
            assert not re.search(r"\{[a-z_]+\}", script), f"unexpanded variable in\n{script}"
            command = next(line for line in script.splitlines() if " hostname >> " in line)
            assert command.startswith("env "), command
            for var in env:
                assert f" {var}=" in f" {command}", command
            assert launcher_program(variables, launcher) in command
