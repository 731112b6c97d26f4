"""make system: configs/local/ describes this machine with Spack's own findings."""

import os
import subprocess

import pytest
import yaml
from testkit import ROOT, run

from hpcaas.local import slurm_nodes
from hpcaas.systems import ramble_config


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
    assert ramble_config(ROOT / "configs/local")["variables"]["target"] == host


def test_launcher_per_mpi(project):
    variables = ramble_config(ROOT / "configs/local")["variables"]
    assert variables["mpi_command"] == "env {fabric_env_{fabric}} {launcher_{launcher}}"
    assert variables["fabric_env_shm"] == ""  # one node: no fabric settings
    assert variables["launcher"] == "{mpi}"
    for name in ("openmpi", "mpich"):
        launcher = variables[f"{name}_mpirun"]
        assert f"/{name}-" in launcher and os.access(launcher, os.X_OK), launcher
        assert variables[f"launcher_{name}"] == launcher + " -n {n_ranks}"


def test_generated_systems_pass_the_schema(project):
    """configs/local and configs/local-slurm are checked like every committed system."""
    for name in ("local", "local-slurm"):
        out = run(f".venv/bin/hpcaas systems validate configs/{name}").stdout
        assert out.strip() == f"OK configs/{name}/system.yaml"
    cores = load("system.yaml")["cores_per_socket"]["value"] * load("system.yaml")["sockets"]["value"]
    assert cores == os.cpu_count()


def test_local_slurm_is_this_machine_shared_out_over_the_emulated_nodes(project):
    local, emulated = load("system.yaml"), yaml.safe_load((ROOT / "configs/local-slurm/system.yaml").read_text())
    nodes = emulated["nodes"]["value"]
    assert nodes == slurm_nodes()  # what slurm/up.sh starts
    cores = local["sockets"]["value"] * local["cores_per_socket"]["value"]
    assert emulated["sockets"]["value"] * emulated["cores_per_socket"]["value"] == max(1, cores // nodes)
    # Each emulated node has its share of the host's memory (up.sh's RealMemory), not all of it:
    # the share times the nodes is the host's, within the two roundings to 0.1 GiB.
    share = emulated["memory_per_node_gib"]["value"]
    assert abs(share * nodes - local["memory_per_node_gib"]["value"]) <= 0.05 * (nodes + 1)
    for fact in ("target", "model", "vendor"):
        assert emulated["processor"][fact]["value"] == local["processor"][fact]["value"]
    assert emulated["scheduler"]["value"] == "slurm"
    assert (
        ramble_config(ROOT / "configs/local-slurm")["template"] == (ROOT / "configs/schedulers/slurm.tpl").read_text()
    )


def test_local_and_local_slurm_are_what_the_probe_finds(project):
    """make system describes this machine with hpcaas/probe.py, and local-slurm's nodes with the
    CPUs slurm/up.sh gives each: they differ from each other in cores, memory, network and scheduler only."""
    from hpcaas import probe, systemdiff
    from hpcaas.local import emulated_cpus

    local = load("system.yaml")
    node = probe.node_facts(cpus=emulated_cpus(1, slurm_nodes()))
    emulated = yaml.safe_load((ROOT / "configs/local-slurm/system.yaml").read_text())
    for fact, key in (
        ("cores_per_socket", "cores_per_socket"),
        ("numa_nodes", "numa_nodes"),
        ("l2_cache_kib", "l2_kib"),
    ):
        assert emulated[fact]["value"] == node[key], fact
    assert local["os"]["value"] == probe.os_release() and local["kernel"]["value"] == os.uname().release
    differ = {r["fact"] for r in systemdiff.rows("local", "local-slurm") if r["status"] == "differs"}
    # Memory too: each emulated node has its share of the host's (test above).
    assert differ <= {"cores per node", "memory per node", "network", "scheduler"}, differ


@pytest.mark.parametrize(
    "vendor, family, flags, want",
    [
        ("GenuineIntel", "6", {"avx512f", "fma", "avx2"}, (512, 32)),  # two 512-bit FMA pipes
        ("AuthenticAMD", "25", {"avx512f", "fma", "avx2"}, (512, 16)),  # Zen 4: AVX-512 on 256-bit pipes
        ("AuthenticAMD", "26", {"avx512f", "fma", "avx2"}, (512, 32)),  # Zen 5: 512-bit pipes
        ("AuthenticAMD", "23", {"fma", "avx2"}, (256, 16)),  # Zen 2
        ("ARM", "", {"asimd"}, (128, 8)),
    ],
)
def test_dp_flops_per_cycle_follow_the_fma_pipes(vendor, family, flags, want):
    from hpcaas.probe import vector_facts

    assert vector_facts(flags, {"Vendor ID": vendor, "CPU family": family}) == want
