"""Finish configs/local/ (and configs/local-slurm/) after `spack compiler find` and
`spack external find`: `make system` runs `python -m hpcaas.local`.

Debian installs MPI under /usr, but `prefix: /usr` is wrong for Spack: /usr/bin/mpicc is an
alternatives link to one MPI and mpi.h is not in /usr/include. So each MPI (and OpenBLAS) gets
a small Spack-shaped prefix in the cache (a stable path, so cached builds keep their hashes):
bin/ holds wrapper scripts (not symlinks: Open MPI's wrappers dispatch on argv[0]), include/
and lib/ point at the Debian directories.
"""

import argparse
import os
import platform
import re
import shutil
import subprocess
from datetime import date
from pathlib import Path

import yaml

from hpcaas import openblas, probe
from hpcaas.paths import ROOT

MULTIARCH = subprocess.run(["gcc", "-print-multiarch"], capture_output=True, text=True).stdout.strip()
LIBDIR = Path("/usr/lib") / MULTIARCH

# name -> (suffix of the Debian alternatives in /usr/bin, include dir, {lib name: Debian lib})
MPI_LAYOUT = {
    "openmpi": (".openmpi", LIBDIR / "openmpi/include", {"": LIBDIR / "openmpi/lib"}),
    "mpich": (
        ".mpich",
        Path("/usr/include") / MULTIARCH / "mpich",
        {
            "libmpich.so": LIBDIR / "libmpich.so",
            "libmpi.so": LIBDIR / "libmpich.so",
            "libmpicxx.so": LIBDIR / "libmpichcxx.so",
            "libmpifort.so": LIBDIR / "libmpichfort.so",
        },
    ),
}
#: The MPI packages `make system` registers as found (spack external find), beside Debian's two.
MPI_PACKAGES = ("openmpi", "mpich", "mvapich2", "mvapich", "intel-oneapi-mpi", "hpcx-mpi")
MPI_TOOLS = ["mpicc", "mpicxx", "mpic++", "mpif77", "mpif90", "mpifort", "mpirun", "mpiexec"]


def link(dst: Path, src: Path):
    dst.parent.mkdir(parents=True, exist_ok=True)
    if dst.is_symlink() or dst.exists():
        dst.unlink()
    dst.symlink_to(src)


def mpi_prefix(name, version, cache: Path) -> Path:
    suffix, include, libs = MPI_LAYOUT[name]
    prefix = cache / "externals" / f"{name}-{version}"
    (prefix / "bin").mkdir(parents=True, exist_ok=True)
    for tool in MPI_TOOLS:
        real = Path("/usr/bin") / (tool + suffix)
        if not real.exists() and tool == "mpic++":
            # Debian's MPICH has mpicxx.mpich only; Spack's mpich recipe names bin/mpic++.
            real = Path("/usr/bin") / ("mpicxx" + suffix)
        if real.exists():
            script = prefix / "bin" / tool
            script.write_text(f'#!/bin/sh\nexec {real} "$@"\n')
            script.chmod(0o755)
    link(prefix / "include", include)
    for lib, target in libs.items():
        link(prefix / "lib" / lib if lib else prefix / "lib", target)
    return prefix


def deb_version(package):
    """The upstream part of an installed package's Debian version, without the epoch
    ("1:4.9.0-3+b1" -> "4.9.0") and, for a "+really" version (a downgrade packaged as a higher
    version), the version really packaged ("4.6.0+really4.5.4+ds-3" -> "4.5.4")."""
    out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    version = out.stdout.split(":", 1)[-1].split("+really")[-1]
    return version.split("+")[0].split("-")[0]


def openblas_external(cache: Path):
    version = deb_version("libopenblas-dev")
    if not version:
        return None
    prefix = cache / "externals" / f"openblas-{version}"
    link(prefix / "lib" / "libopenblas.so", LIBDIR / "libopenblas.so")
    link(prefix / "include", Path("/usr/include") / MULTIARCH)
    return {"externals": [{"spec": f"openblas@{version}", "prefix": str(prefix)}], "buildable": False}


DEBIAN_EXTERNALS = ROOT / "scripts/debian-externals.tsv"


def debian_externals(table=DEBIAN_EXTERNALS):
    """Spack externals of the installed Debian packages listed in debian-externals.tsv."""
    found = {}
    for line in table.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, debs, prefix, upstream, buildable = line.split("\t")
        version = deb_version(debs.split(",")[0])
        if not version:
            continue
        version = re.match(upstream, version).group(0)
        found[name] = {
            "externals": [{"spec": f"{name}@{version}", "prefix": prefix.format(version=version)}],
            "buildable": buildable == "true",
        }
    return found


def memory_configuration():
    """(channels per socket, MT/s, note) from the firmware's memory devices (dmidecode -t 17:
    populated DIMMs, one per channel assumed, and their configured speed); (None, None, why)
    where the machine does not show them (a VM without DMI, dmidecode missing or not root)."""
    proc = (
        subprocess.run(["dmidecode", "-t", "17"], capture_output=True, text=True) if shutil.which("dmidecode") else None
    )
    if proc is None or proc.returncode != 0:
        return None, None, "the memory's configuration is not visible here (no dmidecode -t 17)"
    devices = [d for d in proc.stdout.split("Memory Device")[1:] if re.search(r"^\s*Size:\s*[0-9]", d, re.M)]
    speeds = {m for d in devices for m in re.findall(r"Configured (?:Memory|Clock) Speed:\s*([0-9]+) MT/s", d)}
    sockets = int(probe.lscpu().get("Socket(s)", 1))
    if not devices or len(speeds) != 1:
        return None, None, "dmidecode -t 17 lists no populated DIMM with one configured speed"
    return (
        len(devices) // sockets,
        int(speeds.pop()),
        "dmidecode -t 17: populated DIMMs per socket, one per channel assumed",
    )


def fact(value, source, note=None, verified=None):
    out = {"value": value, "source": source}
    if note:
        out["note"] = note
    if verified is not None:
        out["verified"] = verified
    return out


def hardware_facts(node: dict, target: str, src: str) -> dict:
    """The schema's hardware facts of one node (hpcaas.probe.node_facts), each citing `src`:
    written by the same code for this machine, its emulated Slurm nodes and a probed cluster,
    so that two descriptions of the same hardware are equal (hpcaas systems diff)."""
    facts = {
        "processor": {
            "vendor": fact(node["vendor"], src),
            "model": fact(node["model"], src),
            "architecture": fact(node["architecture"], src),
            "target": fact(target, src, "spack arch --target (archspec)"),
        },
        "sockets": fact(node["sockets"], src),
        "cores_per_socket": fact(node["cores_per_socket"], src, "the cores a job may use (its CPU affinity)"),
        "threads_per_core": fact(node["threads_per_core"], src),
        "base_clock_ghz": fact(node["base_clock_ghz"], src, node["clock_note"], verified=False),
        "vector_width_bits": fact(node["vector_width_bits"], src, "widest DP SIMD in the CPU flags"),
        "dp_flops_per_cycle": fact(
            node["dp_flops_per_cycle"], src, "2 FMA pipes x SIMD width / 64 bit x 2 FLOP (assumed)", verified=False
        ),
        "memory_per_node_gib": fact(node["memory_gib"], src, node.get("memory_note")),
        "last_level_cache_mib": fact(node["llc_mib"], src),
        "l1d_cache_kib": fact(node["l1d_kib"], src),
        "l2_cache_kib": fact(node["l2_kib"], src),
        "gpus": [
            {
                "model": fact(g["model"], src),
                "count": fact(g["count"], src),
                "dp_gflops": fact(None, src, "not probed: the vendor's data sheet gives it"),
                "sp_gflops": fact(None, src, "not probed: the vendor's data sheet gives it"),
                "memory_gib": fact(g["memory_gib"], src),
            }
            for g in node["gpus"]
        ],
        "os": fact(node["os"], src),
        "kernel": fact(node["kernel"], src),
    }
    if node["numa_nodes"]:
        facts["numa_nodes"] = fact(node["numa_nodes"], src)
    return facts


def system_facts(target, launchers, node):
    """configs/local/system.yaml in the schema's {value, source} form (configs/schema/)."""
    channels, mts, memory_note = memory_configuration()
    today = date.today().isoformat()
    return {
        "name": "local",
        "description": f"This machine ({platform.node()}), described by make system on {today}",
        "kind": "on-premises",
        "studies": [],
        "sources": {
            "probe": f"probed on {platform.node()}, {today} (hpcaas/probe.py: lscpu, /sys/devices/system, spack arch)",
            "make-system": (
                "hpcaas/local.py of this project (make system): one node, MPI over shared memory, no batch scheduler"
            ),
        },
        "site": fact("this machine", "make-system"),
        "integrator": fact("n/a (one machine)", "make-system"),
        "nodes": fact(1, "make-system"),
        **hardware_facts(node, target, "probe"),
        "memory_bandwidth": {
            "specified_gbs_per_node": fact(None, "make-system", "not known for this machine"),
            "measured_gbs_per_node": fact(None, "make-system", "run the stream study to measure it"),
            "channels_per_socket": fact(channels, "make-system", memory_note),
            "transfer_rate_mts": fact(mts, "make-system", memory_note),
        },
        "interconnect": {
            "kind": fact("ethernet", "make-system", "one node: ranks talk over shared memory"),
            "name": fact("none (single node)", "make-system"),
            "speed_gbps": fact(None, "make-system"),
            "topology": fact(None, "make-system"),
        },
        "filesystems": fact(
            sorted({line.split()[2] for line in open("/proc/mounts") if line.split()[1] == "/"}),
            "make-system",
            "the root file system",
        ),
        "scheduler": fact("local", "make-system"),
        "launcher": {
            "command": fact("mpirun", "make-system", "each MPI's own mpirun: " + ", ".join(sorted(launchers))),
            "binding": fact("--bind-to core (Open MPI), -bind-to core (MPICH)", "make-system"),
        },
    }


def spack_config(spack_dir: Path, target: str, cache: Path) -> dict:
    """Finish the Spack config `spack compiler find` and `spack external find` wrote to
    spack_dir (packages.yaml: Debian's MPIs in Spack-shaped prefixes, OpenBLAS and the Debian
    externals; definitions.yaml: the compilers, MPIs and target the studies take); return
    {mpi: its mpirun}."""
    packages_file = spack_dir / "packages.yaml"
    packages = yaml.safe_load(packages_file.read_text())["packages"] if packages_file.exists() else {}
    launchers = {}
    for name in MPI_LAYOUT:
        ext = packages.get(name, {}).get("externals", [])
        if not ext:
            continue
        version = ext[0]["spec"].split("@")[1].split()[0].split("~")[0].split("+")[0]
        if ext[0].get("prefix") == "/usr":  # Debian's layout; a site's MPI prefix is kept as found
            ext[0]["prefix"] = str(mpi_prefix(name, version, cache))
        launchers[name] = str(Path(ext[0]["prefix"]) / "bin" / "mpirun")
    blas = openblas_external(cache)
    if blas:
        packages["openblas"] = blas
    packages.update(debian_externals())
    # Spack prefers zlib-ng for zlib-api and would build it (from a download); Debian's zlib is
    # the system's, as Debian's MPIs are for mpi.
    if "zlib" in packages:
        packages["zlib-api"] = {"buildable": False}
    # Sorted: `spack external find` lists in no fixed order, and the lock cache hashes this file.
    packages_file.write_text(yaml.safe_dump({"packages": dict(sorted(packages.items()))}, sort_keys=False))

    # The axes environments/ take from a system (environments/README.md).
    compilers = yaml.safe_load((spack_dir / "compilers.yaml").read_text())["compilers"]
    compiler_specs = sorted("%" + c["compiler"]["spec"].replace("@=", "@") for c in compilers)
    mpis = sorted(
        f"^{name}@{packages[name]['externals'][0]['spec'].split('@')[1].split()[0].split('~')[0].split('+')[0]}"
        for name in MPI_PACKAGES
        if packages.get(name, {}).get("externals")
    )
    gcc = [c for c in compiler_specs if c.startswith("%gcc")]
    definitions = [
        {"default_compiler": (gcc or compiler_specs)[-1:]},
        {"compilers": compiler_specs},
        {"default_mpi": [m for m in mpis if m.startswith("^openmpi")] or mpis[:1]},
        {"mpis": mpis},
        {"default_target": [f"target={target}"]},
        {"targets": [f"target={target}"]},
    ]
    (spack_dir / "definitions.yaml").write_text(
        "# Generated by `make system`: the compilers, MPIs and target for environments/.\n"
        + yaml.safe_dump({"definitions": definitions}, sort_keys=False)
    )
    return launchers


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--spack-dir", type=Path, required=True, help="user scope written by spack")
    ap.add_argument("--target", required=True, help="archspec host target (spack arch --target)")
    ap.add_argument("--out", type=Path, help="write the system here (else only finish --spack-dir: a probed node)")
    args = ap.parse_args()
    cache = Path(os.environ["HPCAAS_CACHE"])
    if not args.out:  # a probed node: its C library too (a site's solve reads it: environments/README.md)
        libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
        if libc.startswith("glibc "):
            file = args.spack_dir / "packages.yaml"
            doc = yaml.safe_load(file.read_text()) if file.exists() else {"packages": {}}
            doc["packages"]["glibc"] = {
                "externals": [{"spec": f"glibc@{libc.split()[1]}", "prefix": "/usr"}],
                "buildable": False,
            }
            file.write_text(yaml.safe_dump(doc, sort_keys=False))
        spack_config(args.spack_dir, args.target, cache)
        return
    launchers = spack_config(args.spack_dir, args.target, cache)
    facts = system_facts(args.target, launchers, probe.node_facts())
    (args.out / "system.yaml").write_text(
        "# Generated by `make system` on this machine: do not commit (configs/local.example/ shows the shape).\n"
        + yaml.safe_dump(facts, sort_keys=False)
    )
    write_ramble(args.out, launchers)
    write_local_slurm(args.out.parent / "local-slurm", facts, args.target, launchers)


def _dump(path: Path, header: str, doc: dict):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + yaml.safe_dump(doc, sort_keys=False))


def write_ramble(out: Path, launchers: dict):
    """configs/local/ramble: each MPI's own mpirun, run in place (no scheduler), shared memory."""
    variables = {
        "batch_time": "00:30:00",
        # The default MPI (studies sweep `mpi`); an experiment's launcher follows it:
        # launcher_openmpi or launcher_mpich.
        "mpi": "openmpi" if "openmpi" in launchers else min(launchers, default="none"),
        "launcher": "{mpi}",
        **{f"launcher_{name}": f"{path} -n {{n_ranks}}" for name, path in launchers.items()},
        # Kept for studies that name the MPI's mpirun directly.
        **{f"{name}_mpirun": path for name, path in launchers.items()},
        "fabric": "shm",
    }
    env = {"OMPI_MCA_btl_vader_single_copy_mechanism": "none", **openblas.openblas_env()}
    if os.geteuid() == 0:  # Open MPI refuses to run as root without both of these.
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    _dump(
        out / "ramble/variables.yaml",
        "# Generated by `make system`: Ramble variables of this machine.\n",
        {"variables": variables},
    )
    _dump(
        out / "ramble/env_vars.yaml",
        "# Generated by `make system`: environment every experiment here gets.\n",
        {"env_vars": {"set": env}},
    )
    _dump(
        out / "ramble/fabrics.yaml",
        "# Generated by `make system`: one node, so MPI uses shared memory and there is no fabric to choose.\n",
        {"fabrics": {"shm": {}}},
    )


def slurm_nodes(up_sh=ROOT / "slurm/up.sh") -> int:
    """The number of emulated nodes slurm/up.sh starts by default (HPCAAS_SLURM_NODES)."""
    return int(
        os.environ.get("HPCAAS_SLURM_NODES") or re.search(r"HPCAAS_SLURM_NODES:-(\d+)", up_sh.read_text()).group(1)
    )


def share_gib(nodes: int) -> float:
    """Each emulated node's memory in GiB: the RealMemory slurm/up.sh gives it (MemTotal in MiB
    divided among the nodes), as a job on it reads it back (probe.memory_gib)."""
    return round(probe.memory_mib() // nodes / 1024, 1)


def emulated_cpus(node: int, nodes: int) -> set:
    """The CPUs slurm/up.sh gives emulated node `node` (1-based) of `nodes`: its share of the
    cores, with their hardware threads (up.sh's CpuSpecList layout)."""
    info = probe.lscpu()
    threads = int(info.get("Thread(s) per core", 1))
    cores = os.cpu_count() // threads
    per_node = cores // nodes if cores >= nodes else 1
    first = ((node - 1) * per_node) % cores
    return {c * threads + t for c in range(first, first + per_node) for t in range(threads)}


# The srun --mpi= plugin each MPI needs (slurm/mpi-flag.sh; slurm/README.md measured why): with
# the wrong one MPICH runs N 1-rank copies and exits 0, Open MPI aborts in MPI_Init.
SLURM_MPI = {"openmpi": ("pmix", "pmix_v4", "pmix_v3", "pmix_v2"), "mpich": ("pmi2",)}


def slurm_variables(mpis, plugins, fabric: str, default_mpi: str = "openmpi") -> dict:
    """Ramble variables of a Slurm system: srun with the PMI plugin each MPI needs, among the
    plugins this Slurm has (srun --mpi=list)."""
    variables = {
        "batch_time": "00:10:00",
        "launcher": "srun",
        "cpu_bind": "cores",  # srun --cpu-bind=
        "distribution": "*:*",  # srun --distribution= ('*:*' is Slurm's default)
        # MpiDefault=none on local-slurm, so srun never guesses: each MPI names its plugin.
        # A study's {mpi} is the package without '-' (hpcaas/render.py).
        "mpi": default_mpi if default_mpi in mpis else sorted(mpis)[0].replace("-", ""),
    }
    for mpi in sorted(mpis):
        wanted = SLURM_MPI.get(mpi, ("pmix", "pmi2"))
        variables[f"slurm_mpi_{mpi.replace('-', '')}"] = next((p for p in wanted if p in plugins), wanted[0])
    variables.update(
        {
            "slurm_mpi_plugin": "{slurm_mpi_{mpi}}",
            "launcher_srun": "srun --mpi={slurm_mpi_plugin} -N {n_nodes} -n {n_ranks} -c {n_threads} "
            "--cpu-bind={cpu_bind} --distribution='{distribution}'",
            "fabric": fabric,
        }
    )
    return variables


def fabrics_for(interconnect: dict, iface) -> dict:
    """The fabrics of a Slurm system from its interconnect: InfiniBand through UCX, EFA through
    libfabric, else TCP on the interface that reaches the other nodes. Open MPI sees the nodes as
    separate hosts, and its TCP transport skips lo by default: on loopback (the emulated nodes are
    one host) it is kept there. MPICH finds the peer on the same host and ignores these."""
    tcp_name = "loopback" if iface == "lo" else "tcp"
    tcp = {"OMPI_MCA_pml": "ob1", "OMPI_MCA_btl": "self,tcp"}
    if iface:
        tcp["OMPI_MCA_btl_tcp_if_include"] = iface
    out = {}
    if interconnect["kind"] == "infiniband":
        out["ucx"] = {"OMPI_MCA_pml": "ucx"}
    elif interconnect["kind"] == "efa":
        out["efa"] = {"FI_PROVIDER": "efa"}
    out[tcp_name] = tcp
    return out


def write_slurm_ramble(out: Path, header: str, mpis, plugins, interconnect: dict, iface):
    """ramble/ of a Slurm system: variables, fabrics, and the environment OpenBLAS needs here."""
    fabrics = fabrics_for(interconnect, iface)
    _dump(out / "ramble/variables.yaml", header, {"variables": slurm_variables(mpis, plugins, next(iter(fabrics)))})
    _dump(out / "ramble/fabrics.yaml", header, {"fabrics": fabrics})
    env = openblas.openblas_env()
    env_file = out / "ramble/env_vars.yaml"
    if env:
        _dump(env_file, header, {"env_vars": {"set": env}})
    elif env_file.exists():
        env_file.unlink()


def write_local_slurm(out: Path, local: dict, target: str, launchers: dict):
    """configs/local-slurm: this machine behind slurm/up.sh's Slurm, as slurm_nodes() emulated
    nodes that share its cores out (up.sh's layout), talking over loopback. A node's facts are
    those the probe of `make system SCHEDULER=slurm` finds on it (its CPUs, the loopback)."""
    nodes = slurm_nodes()
    node = probe.node_facts(cpus=emulated_cpus(1, nodes), peers=["127.0.0.1"])
    link = probe.interconnect(node["fabric"])
    facts = dict(local)
    facts.update(
        {
            "name": "local-slurm",
            "description": f"This machine behind slurm/up.sh's Slurm: {nodes} emulated nodes over loopback",
            "sources": {
                **local["sources"],
                "up-sh": "slurm/up.sh and slurm/README.md of this project: node layout, slurm.conf, plugins",
            },
            "site": fact("this machine", "up-sh"),
            "integrator": fact("hpcaas-bench slurm/up.sh (emulated nodes)", "up-sh"),
            "nodes": fact(nodes, "up-sh", "HPCAAS_SLURM_NODES; each node gets its own share of the cores"),
            **hardware_facts(node, target, "up-sh"),
            # The emulated nodes run on one host: each has its share of its memory (a study sized
            # from a node's memory must not ask for all of the host's on every node at once).
            "memory_per_node_gib": fact(
                share_gib(nodes),
                "up-sh",
                f"Slurm's RealMemory: this machine's {local['memory_per_node_gib']['value']} GiB"
                f" shared by the {nodes} nodes",
            ),
            "interconnect": {
                "kind": fact(link["kind"], "up-sh", "the loopback interface: the emulated nodes are one host"),
                "name": fact(link["name"], "up-sh"),
                "speed_gbps": fact(link["speed_gbps"], "up-sh"),
                "topology": fact(None, "up-sh"),
            },
            "scheduler": fact("slurm", "up-sh", "Slurm 22.05 (Debian bookworm), select/cons_tres CR_Core, no slurmdbd"),
            "launcher": {
                "command": fact("srun", "up-sh", "srun --mpi=pmix for Open MPI, --mpi=pmi2 for MPICH"),
                "binding": fact("--cpu-bind=cores", "up-sh"),
            },
        }
    )
    header = "# Generated by `make system` from configs/local: do not commit.\n"
    _dump(out / "system.yaml", header, facts)
    # From what this run found: configs/local/ is still being written (make-system.sh moves it in whole).
    write_slurm_ramble(
        out, header, [m for m in MPI_LAYOUT if m in launchers], ["pmix", "pmi2"], link, node["fabric"]["iface"]
    )
    spack = out / "spack"
    if not spack.is_symlink():
        spack.symlink_to("../local/spack")


if __name__ == "__main__":
    main()
