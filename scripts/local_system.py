"""Finish configs/local/ after `spack compiler find` and `spack external find`.

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
import subprocess
from datetime import date
from pathlib import Path

import yaml

MULTIARCH = subprocess.run(["gcc", "-print-multiarch"], capture_output=True, text=True).stdout.strip()
LIBDIR = Path("/usr/lib") / MULTIARCH

# name -> (suffix of the Debian alternatives in /usr/bin, include dir, {lib name: Debian lib})
MPI_LAYOUT = {
    "openmpi": (".openmpi", LIBDIR / "openmpi/include", {"": LIBDIR / "openmpi/lib"}),
    "mpich": (".mpich", Path("/usr/include") / MULTIARCH / "mpich",
              {"libmpich.so": LIBDIR / "libmpich.so", "libmpi.so": LIBDIR / "libmpich.so",
               "libmpicxx.so": LIBDIR / "libmpichcxx.so", "libmpifort.so": LIBDIR / "libmpichfort.so"}),
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


DEBIAN_EXTERNALS = Path(__file__).with_name("debian-externals.tsv")


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
        found[name] = {"externals": [{"spec": f"{name}@{version}", "prefix": prefix.format(version=version)}],
                       "buildable": buildable == "true"}
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
    return round(float(info.get("BogoMIPS", 2000)) / 2000, 3), "BogoMIPS / 2 (the TSC rate; a VM hides the nominal clock)"


def vector_facts(flags):
    """Widest DP SIMD and DP FLOP/cycle/core, assuming two FMA pipes (true of Zen 2-4 and of
    Intel server cores since Haswell); not verified against the vendor for this SKU."""
    width = 512 if "avx512f" in flags else 256 if "avx2" in flags or "avx" in flags else 128
    fma = 2 if ("fma" in flags or "asimd" in flags) else 1
    return width, 2 * (width // 64) * fma


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
    mem_kib = int(next(l.split()[1] for l in open("/proc/meminfo") if l.startswith("MemTotal")))
    ghz, clock_note = base_clock(info)
    width, flops = vector_facts(flags)
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
            "make-system": "scripts/local_system.py of this project: one node, MPI over shared memory, no batch scheduler",
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
        "dp_flops_per_cycle": fact(flops, "lscpu", "2 FMA pipes x SIMD width / 64 bit x 2 FLOP (assumed)", verified=False),
        "memory_per_node_gib": fact(round(mem_kib / 2**20, 1), "meminfo"),
        "memory_bandwidth": {"specified_gbs_per_node": fact(None, "make-system", "not known for this machine"),
                             "measured_gbs_per_node": fact(None, "make-system", "run the stream study to measure it")},
        "gpus": [],
        "interconnect": {
            "kind": fact("ethernet", "make-system", "one node: ranks talk over shared memory"),
            "name": fact("none (single node)", "make-system"),
            "speed_gbps": fact(None, "make-system"),
            "topology": fact(None, "make-system"),
        },
        "filesystems": fact(sorted({line.split()[2] for line in open("/proc/mounts")
                                    if line.split()[1] == "/"}), "make-system", "the root file system"),
        "scheduler": fact("local", "make-system"),
        "launcher": {"command": fact("mpirun", "make-system", "each MPI's own mpirun: " + ", ".join(sorted(launchers))),
                     "binding": fact("--bind-to core (Open MPI), -bind-to core (MPICH)", "make-system")},
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
    mpis = sorted(f"^{name}@{packages[name]['externals'][0]['spec'].split('@')[1].split()[0].split('~')[0].split('+')[0]}"
                  for name in launchers)
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
        + yaml.safe_dump({"definitions": definitions}, sort_keys=False))

    facts = system_facts(args.target, launchers)
    (args.out / "system.yaml").write_text(
        "# Generated by `make system` on this machine: do not commit (configs/local.example/ shows the shape).\n"
        + yaml.safe_dump(facts, sort_keys=False))

    cores = facts["sockets"]["value"] * facts["cores_per_socket"]["value"]
    variables = {
        "system": "local",
        "target": args.target,
        "cores_per_node": str(cores),
        "processes_per_node": str(cores),
        "n_threads": "1",
        "batch_time": "00:30:00",
        # An experiment picks its launcher by its `mpi` variable: launcher_openmpi or launcher_mpich.
        # The default MPI (studies sweep `mpi`); an experiment's launcher follows it.
        "mpi": "openmpi" if "openmpi" in launchers else min(launchers, default="none"),
        "launcher": "{mpi}",
        **{f"launcher_{name}": f"{path} -n {{n_ranks}}" for name, path in launchers.items()},
        # Kept for studies that name the MPI's mpirun directly.
        **{f"{name}_mpirun": path for name, path in launchers.items()},
        "fabric": "shm",
        "fabric_env_shm": "",
        "mpi_command": "{launcher_{launcher}}",
        "batch_submit": "{execute_experiment}",
    }
    env = {"OMPI_MCA_btl_vader_single_copy_mechanism": "none"}
    if os.geteuid() == 0:  # Open MPI refuses to run as root without both of these.
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    (args.out / "ramble").mkdir(exist_ok=True)
    (args.out / "ramble" / "variables.yaml").write_text(
        "# Generated by `make system`: Ramble variables of this machine.\n"
        + yaml.safe_dump({"variables": variables}, sort_keys=False))
    (args.out / "ramble" / "env_vars.yaml").write_text(
        "# Generated by `make system`: environment every experiment on this machine gets.\n"
        + yaml.safe_dump({"env_vars": {"set": env}}, sort_keys=False))
    (args.out / "ramble" / "fabrics.yaml").write_text(
        "# Generated by `make system`: one node, so MPI uses shared memory and there is no fabric to choose.\n"
        + yaml.safe_dump({"fabrics": {"shm": {}}}, sort_keys=False))
    (args.out / "ramble" / "batch.tpl").write_text(
        "#!/bin/bash\n# Generated by `make system`: no scheduler here, so an experiment's script just runs.\n"
        "export OMP_NUM_THREADS={n_threads}\ncd \"{experiment_run_dir}\"\n{command}\n")


if __name__ == "__main__":
    main()
