"""hpcaas render: a study written once, rendered for a system and a scale. The system's variables
(its own and those derived from its facts) come first, the study's next, then the software roles
(the paper's on a paper system, the system's own elsewhere), then the scale preset; a role or
preset value replaces the variable wherever the study sets it."""

import shutil

import pytest
import yaml

from analysis.errors import InputError
from hpcaas import render, systems
from hpcaas.paths import CONFIGS, WORKSPACES

PAPER_SYSTEM = "hpe-devcloud-milan-slingshot"
STUDY = {
    "question": "q",
    "paper": "p",
    "paper_system": PAPER_SYSTEM,
    "software": {
        "sweep": ["mpi"],
        "paper": {
            PAPER_SYSTEM: {
                "compiler": "cce@15.0.1",
                "mpi": ["cray-mpich@8.1.25", "openmpi@4.1.4"],
                "applications": {"hpl": {"compiler": "gcc@12.2.0"}},
            }
        },
    },
    # A study of a paper system loads only with its fidelity table (hpcaas/fidelity.py).
    "fidelity": [
        {"parameter": "nodes", "value": "1-4", "silent": "a test study", "renders": {"command": "-N "}},
    ],
    "scales": {
        "paper": {"variables": {"n_nodes": ["1", "2", "4"]}},
        "small": {"variables": {"n_nodes": ["1", "2"], "hpl_n": "2000"}},
    },
    "ramble": {
        "variables": {"hpl_n": "40000"},
        "applications": {
            "hpl": {
                "workloads": {
                    "standard": {
                        "experiments": {
                            "hpl-{compiler}-{mpi}-{n_nodes}": {
                                "variables": {"mpi": ["x"], "n_nodes": ["8"], "env_name": "hpl-{mpi}"},
                                "matrix": ["mpi", "n_nodes"],
                            }
                        }
                    }
                }
            },
            "hpcc": {"workloads": {"sized": {"experiments": {"hpcc-{compiler}": {"variables": {"n_ranks": "2"}}}}}},
        },
        "software": {
            "packages": {"hpl-{mpi}": {"pkg_spec": "hpl@2.3 %{compiler_spec} ^{mpi_spec}"}},
            "environments": {"hpl-{mpi}": {"packages": ["hpl-{mpi}"]}},
        },
    },
}


@pytest.fixture
def study():
    folder = WORKSPACES / "_test-render"
    folder.mkdir(exist_ok=True)
    (folder / "study.yaml").write_text(yaml.safe_dump(STUDY))
    yield folder.name
    shutil.rmtree(folder)


def experiment(doc, app):
    workloads = doc["ramble"]["applications"][app]["workloads"]
    return next(iter(next(iter(workloads.values()))["experiments"].values()))


def test_paper_system_gets_the_papers_software_and_scale(study):
    doc = render.workspace_config(study, PAPER_SYSTEM, "paper")["ramble.yaml"]
    variables = doc["ramble"]["variables"]
    hpl = experiment(doc, "hpl")["variables"]
    assert hpl["mpi"] == ["craympich", "openmpi"]  # names: the package without '-'
    assert hpl["n_nodes"] == ["1", "2", "4"]  # the preset replaced the study's value in place
    assert variables["mpi_spec_craympich"] == "cray-mpich@8.1.25" and variables["mpi_spec"] == "{mpi_spec_{mpi}}"
    assert variables["compiler"] == "cce" and variables["compiler_spec_cce"] == "cce@15.0.1"
    # Per application, where the paper gives it so: hpl's compiler is gcc, the rest keep cce.
    assert doc["ramble"]["applications"]["hpl"]["variables"]["compiler"] == "gcc"
    assert variables["compiler_spec_gcc"] == "gcc@12.2.0"
    assert variables["hpl_n"] == "40000"
    # The system's own and derived variables are there; the study's win over them.
    derived = systems.ramble_config(CONFIGS / PAPER_SYSTEM)["variables"]
    assert variables["cores_per_node"] == derived["cores_per_node"] and variables["system"] == PAPER_SYSTEM
    assert variables["mpi"] == "craympich"  # one value at the workspace level


def test_any_other_system_gets_its_own_software_in_the_same_roles(study):
    doc = render.workspace_config(study, "local", "small")["ramble.yaml"]
    variables = doc["ramble"]["variables"]
    definitions = {
        k: v
        for d in yaml.safe_load((CONFIGS / "local/spack/definitions.yaml").read_text())["definitions"]
        for k, v in d.items()
    }
    mpis = [m.lstrip("^") for m in definitions["mpis"]]
    default = definitions["default_mpi"][0].lstrip("^")
    hpl = experiment(doc, "hpl")["variables"]
    assert hpl["mpi"][0] == render._name(default) and sorted(hpl["mpi"]) == sorted(render._name(m) for m in mpis)
    assert hpl["n_nodes"] == ["1", "2"] and variables["hpl_n"] == "2000"
    assert variables["compiler_spec"] == "{compiler_spec_{compiler}}"
    assert variables[f"compiler_spec_{variables['compiler']}"] == definitions["default_compiler"][0].lstrip("%")
    assert "compiler" not in doc["ramble"]["applications"]["hpl"].get("variables", {})


def test_a_system_without_definitions_gives_its_compilers_and_mpi_providers(study):
    doc = render.workspace_config(study, "aws-hpc7a-efa", "small")["ramble.yaml"]
    compilers = yaml.safe_load((CONFIGS / "aws-hpc7a-efa/spack/compilers.yaml").read_text())["compilers"]
    first = compilers[0]["compiler"]["spec"].replace("@=", "@")
    variables = doc["ramble"]["variables"]
    assert variables[f"compiler_spec_{render._name(first)}"] == first
    assert experiment(doc, "hpl")["variables"]["mpi"] == ["openmpi"]
    assert variables["mpi_spec_openmpi"].startswith("openmpi@")


def test_the_job_script_is_the_schedulers(study):
    assert (
        render.workspace_config(study, PAPER_SYSTEM)["execute_experiment.tpl"]
        == (CONFIGS / "schedulers/slurm.tpl").read_text()
    )


def test_a_scale_the_study_lacks_is_named(study):
    (WORKSPACES / study / "study.yaml").write_text(yaml.safe_dump({**STUDY, "scales": {"paper": {}}}))
    with pytest.raises(InputError) as err:
        render.workspace_config(study, "local", "small")
    assert err.value.key == "scales.small"


def test_an_unknown_role_is_named(study):
    broken = {**STUDY, "software": {"sweep": ["network"]}}
    (WORKSPACES / study / "study.yaml").write_text(yaml.safe_dump(broken))
    with pytest.raises(InputError) as err:
        render.workspace_config(study, "local")
    assert err.value.key == "software.sweep" and "network" in err.value.expected
