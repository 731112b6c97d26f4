"""make system: configs/local/ describes this machine with Spack's own findings."""

import os
import subprocess

import yaml

from testkit import ROOT, run


def load(rel):
    return yaml.safe_load((ROOT / "configs/local" / rel).read_text())


def test_compiler_found_by_spack(project):
    compilers = load("spack/compilers.yaml")["compilers"]
    gcc = [c["compiler"] for c in compilers if c["compiler"]["spec"].startswith("gcc@")]
    assert gcc and gcc[0]["paths"]["cc"].endswith("gcc")


def test_mpi_externals_have_spack_shaped_prefixes_that_work(project):
    packages = load("spack/packages.yaml")["packages"]
    assert packages["mpi"]["buildable"] is False
    for name, probe in (("openmpi", "--showme:version"), ("mpich", "-v")):
        ext = packages[name]["externals"][0]
        prefix = ext["prefix"]
        assert prefix != "/usr", f"{name}: /usr is not a usable MPI prefix for Spack"
        out = subprocess.run([f"{prefix}/bin/mpicc", probe], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        assert os.path.exists(f"{prefix}/include/mpi.h")
        assert packages[name]["buildable"] is False


def test_target_is_the_archspec_host(project):
    host = run("spack arch --target").stdout.strip()
    assert load("system.yaml")["processor"]["target"]["value"] == host
    assert load("ramble/variables.yaml")["variables"]["target"] == host


def test_launcher_per_mpi(project):
    variables = load("ramble/variables.yaml")["variables"]
    assert variables["mpi_command"] == "{launcher_{launcher}}"
    assert variables["launcher"] == "{mpi}"
    for name in ("openmpi", "mpich"):
        launcher = variables[f"{name}_mpirun"]
        assert f"/{name}-" in launcher and os.access(launcher, os.X_OK), launcher
        assert variables[f"launcher_{name}"] == launcher + " -n {n_ranks}"


def test_generated_system_passes_the_schema(project):
    """configs/local is checked like every committed system (schema, variables, fabrics, template)."""
    doc = run(".venv/bin/python -m analysis.systems validate").stdout
    assert "local" in doc
    cores = load("system.yaml")["cores_per_socket"]["value"] * load("system.yaml")["sockets"]["value"]
    assert cores == os.cpu_count()
