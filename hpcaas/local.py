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
import sys
from datetime import date
from pathlib import Path

import yaml

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


def lscpu():
    out = subprocess.run(["lscpu"], capture_output=True, text=True, env={**os.environ, "LC_ALL": "C"}).stdout
    return {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in out.splitlines())}


def cpu_flags():
    for line in open("/proc/cpuinfo"):
        if line.startswith(("flags", "Features")):
            return set(line.split(":", 1)[1].split())
    return set()


def base_clock(info):
    """GHz from the model name (Intel: '@ 2.10GHz'), else lscpu's max MHz, else the TSC rate
    a KVM guest reports as BogoMIPS / 2: each says where it came from."""
    named = re.search(r"@\s*([0-9.]+)\s*GHz", info.get("Model name", ""))
    if named:
        return float(named.group(1)), "from the model name"
    if info.get("CPU max MHz"):
        return round(float(info["CPU max MHz"]) / 1000, 3), "lscpu CPU max MHz"
    return round(
        float(info.get("BogoMIPS", 2000)) / 2000, 3
    ), "BogoMIPS / 2 (the TSC rate; a VM hides the nominal clock)"


def last_level_cache_mib(info):
    """The node's last-level cache, all instances: lscpu's 'L3 cache: 260 MiB (1 instance)' (its
    highest level present), None when lscpu does not say."""
    for level in ("L3 cache", "L2 cache"):
        match = re.match(r"([0-9.]+)\s*([KMG])i?B?\b", info.get(level, ""))
        if match:
            return float(match[1]) * {"K": 1 / 1024, "M": 1, "G": 1024}[match[2]]
    return None


def vector_facts(flags, info=None):
    """Widest DP SIMD and DP FLOP/cycle/core, assuming two FMA pipes (true of Zen 2-5 and of
    Intel server cores since Haswell); not verified against the vendor for this SKU. AMD's Zen 3
    and Zen 4 (family 25) run AVX-512 on 256-bit pipes: 16 DP FLOP/cycle, as AMD rates Genoa."""
    width = 512 if "avx512f" in flags else 256 if "avx2" in flags or "avx" in flags else 128
    fma = 2 if ("fma" in flags or "asimd" in flags) else 1
    info = info or {}
    pipes = 256 if info.get("Vendor ID") == "AuthenticAMD" and info.get("CPU family") == "25" else width
    return width, 2 * (min(width, pipes) // 64) * fma


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
    sockets = int(lscpu().get("Socket(s)", 1))
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


def system_facts(target, launchers):
    """configs/local/system.yaml in the schema's {value, source} form (configs/schema/)."""
    info, flags = lscpu(), cpu_flags()
    mem_kib = int(next(line.split()[1] for line in open("/proc/meminfo") if line.startswith("MemTotal")))
    ghz, clock_note = base_clock(info)
    width, flops = vector_facts(flags, info)
    channels, mts, memory_note = memory_configuration()
    today = date.today().isoformat()
    return {
        "name": "local",
        "description": f"This machine ({platform.node()}), described by make system on {today}",
        "kind": "on-premises",
        "studies": [],
        "sources": {
            "lscpu": f"lscpu and /proc/cpuinfo on {platform.node()}, {today}",
            "meminfo": f"/proc/meminfo on {platform.node()}, {today}",
            "spack-arch": "spack arch --target (archspec)",
            "make-system": (
                "hpcaas/local.py of this project (make system): one node, MPI over shared memory, no batch scheduler"
            ),
        },
        "site": fact("this machine", "make-system"),
        "integrator": fact("n/a (one machine)", "make-system"),
        "nodes": fact(1, "make-system"),
        "processor": {
            "vendor": fact(info.get("Vendor ID", "unknown"), "lscpu"),
            "model": fact(info.get("Model name", "unknown"), "lscpu"),
            "architecture": fact(platform.machine(), "lscpu"),
            "target": fact(target, "spack-arch"),
        },
        "sockets": fact(int(info.get("Socket(s)", 1)), "lscpu"),
        "cores_per_socket": fact(int(info.get("Core(s) per socket", os.cpu_count())), "lscpu"),
        "threads_per_core": fact(int(info.get("Thread(s) per core", 1)), "lscpu"),
        "base_clock_ghz": fact(ghz, "lscpu", clock_note, verified=False),
        "vector_width_bits": fact(width, "lscpu", "widest DP SIMD in the CPU flags"),
        "dp_flops_per_cycle": fact(
            flops, "lscpu", "2 FMA pipes x their width / 64 bit x 2 FLOP (assumed)", verified=False
        ),
        "memory_per_node_gib": fact(round(mem_kib / 2**20, 1), "meminfo"),
        "last_level_cache_mib": fact(last_level_cache_mib(info), "lscpu"),
        "memory_bandwidth": {
            "specified_gbs_per_node": fact(None, "make-system", "not known for this machine"),
            "measured_gbs_per_node": fact(None, "make-system", "run the stream study to measure it"),
            "channels_per_socket": fact(channels, "make-system", memory_note),
            "transfer_rate_mts": fact(mts, "make-system", memory_note),
        },
        "gpus": [],
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


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--spack-dir", type=Path, required=True, help="user scope written by spack")
    ap.add_argument("--target", required=True, help="archspec host target (spack arch --target)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    cache = Path(os.environ["HPCAAS_CACHE"])

    packages_file = args.spack_dir / "packages.yaml"
    packages = yaml.safe_load(packages_file.read_text())["packages"]
    launchers = {}
    for name in MPI_LAYOUT:
        ext = packages.get(name, {}).get("externals", [])
        if not ext:
            continue
        version = ext[0]["spec"].split("@")[1].split()[0].split("~")[0].split("+")[0]
        prefix = mpi_prefix(name, version, cache)
        ext[0]["prefix"] = str(prefix)
        launchers[name] = str(prefix / "bin" / "mpirun")
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
    compilers = yaml.safe_load((args.spack_dir / "compilers.yaml").read_text())["compilers"]
    compiler_specs = sorted("%" + c["compiler"]["spec"].replace("@=", "@") for c in compilers)
    mpis = sorted(
        f"^{name}@{packages[name]['externals'][0]['spec'].split('@')[1].split()[0].split('~')[0].split('+')[0]}"
        for name in launchers
    )
    gcc = [c for c in compiler_specs if c.startswith("%gcc")]
    definitions = [
        {"default_compiler": (gcc or compiler_specs)[-1:]},
        {"compilers": compiler_specs},
        {"default_mpi": [m for m in mpis if m.startswith("^openmpi")] or mpis[:1]},
        {"mpis": mpis},
        {"default_target": [f"target={args.target}"]},
        {"targets": [f"target={args.target}"]},
    ]
    (args.spack_dir / "definitions.yaml").write_text(
        "# Generated by `make system`: this machine's compilers, MPIs and target for environments/.\n"
        + yaml.safe_dump({"definitions": definitions}, sort_keys=False)
    )

    facts = system_facts(args.target, launchers)
    (args.out / "system.yaml").write_text(
        "# Generated by `make system` on this machine: do not commit (configs/local.example/ shows the shape).\n"
        + yaml.safe_dump(facts, sort_keys=False)
    )

    write_ramble(args.out, launchers)
    write_local_slurm(args.out.parent / "local-slurm", facts)


def _dump(path: Path, header: str, doc: dict):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + yaml.safe_dump(doc, sort_keys=False))


def openblas_env() -> dict:
    """{OPENBLAS_CORETYPE: kernel} when OpenBLAS's own detection falls back to its generic
    Prescott kernels on a processor with wider vectors: OpenBLAS 0.3.21 (Debian 12) does so on
    processors it does not know (a Sapphire Rapids KVM guest), and runs DGEMM ~4x below what the
    core can (make validate measured 15 % of the peak against 65 % with SkylakeX). Empty when
    OpenBLAS is absent or its detection is right."""
    proc = subprocess.run(
        [sys.executable, "-c", "import ctypes; ctypes.CDLL('libopenblas.so.0')"],
        capture_output=True,
        text=True,
        env={**{k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}, "OPENBLAS_VERBOSE": "2"},
    )
    detected = re.search(r"Core:\s*(\S+)", proc.stdout + proc.stderr)
    if not detected or detected[1] != "Prescott":
        return {}
    flags = cpu_flags()
    kernel = "SkylakeX" if "avx512f" in flags else "Haswell" if "avx2" in flags else None
    return {"OPENBLAS_CORETYPE": kernel} if kernel else {}


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
    env = {"OMPI_MCA_btl_vader_single_copy_mechanism": "none", **openblas_env()}
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


def write_local_slurm(out: Path, local: dict):
    """configs/local-slurm: this machine behind slurm/up.sh's Slurm, as slurm_nodes() emulated
    nodes that share its cores out (up.sh's layout), talking over loopback."""
    cores = local["sockets"]["value"] * local["cores_per_socket"]["value"]
    nodes = slurm_nodes()
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
            "sockets": fact(1, "up-sh"),
            "cores_per_socket": fact(
                max(1, cores // nodes), "up-sh", f"{cores} cores of this machine shared out by CpuSpecList"
            ),
            # The emulated nodes run on one host: each has its share of its memory (a study sized
            # from a node's memory must not ask for all of the host's on every node at once).
            "memory_per_node_gib": fact(
                round(local["memory_per_node_gib"]["value"] / nodes, 1),
                "up-sh",
                f"{local['memory_per_node_gib']['value']} GiB of this machine shared by the {nodes} nodes",
            ),
            "interconnect": {
                "kind": fact("ethernet", "up-sh", "the loopback interface: the emulated nodes are one host"),
                "name": fact("loopback (lo)", "up-sh"),
                "speed_gbps": fact(None, "up-sh"),
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
    variables = {
        "batch_time": "00:10:00",
        "launcher": "srun",
        "cpu_bind": "cores",  # srun --cpu-bind=
        "distribution": "*:*",  # srun --distribution= ('*:*' is Slurm's default)
        # The PMI each MPI needs (slurm/mpi-flag.sh): with the wrong one MPICH runs N 1-rank
        # copies and exits 0, Open MPI aborts in MPI_Init. MpiDefault=none, so srun never guesses.
        "mpi": "openmpi",
        "slurm_mpi_openmpi": "pmix",
        "slurm_mpi_mpich": "pmi2",
        "slurm_mpi_plugin": "{slurm_mpi_{mpi}}",
        "launcher_srun": "srun --mpi={slurm_mpi_plugin} -N {n_nodes} -n {n_ranks} -c {n_threads} "
        "--cpu-bind={cpu_bind} --distribution='{distribution}'",
        "fabric": "loopback",
    }
    _dump(out / "ramble/variables.yaml", header, {"variables": variables})
    # Open MPI sees two nodes, so no shared memory between them, and its TCP transport skips lo
    # by default and would take eth0: keep it on loopback. MPICH finds the peer on the same host
    # and uses shared memory; it ignores these.
    _dump(
        out / "ramble/fabrics.yaml",
        header,
        {
            "fabrics": {
                "loopback": {"OMPI_MCA_pml": "ob1", "OMPI_MCA_btl": "self,tcp", "OMPI_MCA_btl_tcp_if_include": "lo"}
            }
        },
    )
    env = openblas_env()
    env_file = out / "ramble/env_vars.yaml"
    if env:
        _dump(env_file, header, {"env_vars": {"set": env}})
    elif env_file.exists():
        env_file.unlink()
    spack = out / "spack"
    if not spack.is_symlink():
        spack.symlink_to("../local/spack")


if __name__ == "__main__":
    main()
