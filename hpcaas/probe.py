"""What one node is, as a job on it sees it: run on the node itself (Python's standard library
only, so any node's python3 runs it), under the scheduler or on this machine.

    python -m hpcaas.probe [--peers ADDR ...]      JSON of the node's facts on stdout

The cores are those the process may run on (its CPU affinity: under Slurm, the node's CPUs a job
gets), counted from the kernel's topology (/sys/devices/system/cpu), so a node that hides cores
from jobs (Slurm's CpuSpecList, local-slurm's emulated nodes) is described as a job finds it.
`make system` (hpcaas/local.py) describes this machine with the same functions, and
`make system SCHEDULER=slurm` (hpcaas/probed.py) runs this on every compute node.
"""

import argparse
import json
import os
import platform
import re
import shutil
import socket
import subprocess
from pathlib import Path

SYS_CPU = Path("/sys/devices/system/cpu")
SYS_NODE = Path("/sys/devices/system/node")
SYS_IB = Path("/sys/class/infiniband")


def _run(*cmd, timeout=60) -> str:
    """A tool's stdout, or '' when it is absent or fails (a node without it)."""
    if not shutil.which(cmd[0]):
        return ""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env={**os.environ, "LC_ALL": "C"})
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return proc.stdout if proc.returncode == 0 else ""


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def cpu_list(text: str) -> set:
    """'0-3,8' -> {0, 1, 2, 3, 8}."""
    out = set()
    for part in filter(None, text.replace(" ", "").split(",")):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def lscpu() -> dict:
    return {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in _run("lscpu").splitlines())}


def cpu_flags() -> set:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def base_clock(info: dict) -> tuple:
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


def vector_facts(flags: set, info=None) -> tuple:
    """Widest DP SIMD and DP FLOP/cycle/core, assuming two FMA pipes (true of Zen 2-5 and of
    Intel server cores since Haswell); not verified against the vendor for this SKU. AMD's Zen 3
    and Zen 4 (family 25) run AVX-512 on 256-bit pipes: 16 DP FLOP/cycle, as AMD rates Genoa."""
    width = 512 if "avx512f" in flags else 256 if "avx2" in flags or "avx" in flags else 128
    fma = 2 if ("fma" in flags or "asimd" in flags) else 1
    info = info or {}
    pipes = 256 if info.get("Vendor ID") == "AuthenticAMD" and info.get("CPU family") == "25" else width
    return width, 2 * (min(width, pipes) // 64) * fma


def topology(cpus: set, info: dict) -> dict:
    """{sockets, cores_per_socket, threads_per_core} of the CPUs `cpus` (the kernel's topology;
    lscpu's counts where /sys lacks it)."""
    cores = {}
    for cpu in cpus:
        pkg = _read(SYS_CPU / f"cpu{cpu}/topology/physical_package_id")
        core = _read(SYS_CPU / f"cpu{cpu}/topology/core_id")
        if not pkg or not core:
            return {
                "sockets": int(info.get("Socket(s)", 1)),
                "cores_per_socket": int(info.get("Core(s) per socket", len(cpus))),
                "threads_per_core": int(info.get("Thread(s) per core", 1)),
            }
        cores.setdefault((pkg, core), set()).add(cpu)
    sockets = len({pkg for pkg, _ in cores})
    return {
        "sockets": sockets,
        "cores_per_socket": max(1, len(cores) // sockets),
        "threads_per_core": max(len(threads) for threads in cores.values()),
    }


def numa_nodes(cpus: set, info: dict):
    """The NUMA nodes holding any of `cpus`."""
    nodes = [n for n in SYS_NODE.glob("node[0-9]*") if cpu_list(_read(n / "cpulist")) & cpus]
    if nodes:
        return len(nodes)
    return int(info["NUMA node(s)"]) if info.get("NUMA node(s)", "").isdigit() else None


def _kib(size: str):
    match = re.fullmatch(r"([0-9.]+)\s*([KMG]?)", size.strip().rstrip("B").rstrip("i"))
    return float(match[1]) * {"": 1 / 1024, "K": 1, "M": 1024, "G": 1024**2}[match[2]] if match else None


def caches(cpus: set) -> dict:
    """{l1d_kib, l2_kib} per core and {llc_mib} of the node: every instance of the last level
    that serves one of `cpus` (the kernel's cache topology)."""
    first = min(cpus)
    out, instances = {"l1d_kib": None, "l2_kib": None, "llc_mib": None}, {}
    top = 0
    for index in sorted((SYS_CPU / f"cpu{first}/cache").glob("index[0-9]*")):
        level, kind = int(_read(index / "level") or 0), _read(index / "type")
        size, shared = _kib(_read(index / "size")), cpu_list(_read(index / "shared_cpu_list") or str(first))
        if size is None or kind == "Instruction":
            continue
        cores_sharing = (
            len(
                {
                    _read(SYS_CPU / f"cpu{c}/topology/core_id")
                    + "/"
                    + _read(SYS_CPU / f"cpu{c}/topology/physical_package_id")
                    for c in shared
                }
            )
            or 1
        )
        if level == 1 and kind == "Data":
            out["l1d_kib"] = size / cores_sharing
        elif level == 2:
            out["l2_kib"] = size / cores_sharing
        top = max(top, level)
    for cpu in sorted(cpus):  # the last level: each distinct instance once
        for index in (SYS_CPU / f"cpu{cpu}/cache").glob("index[0-9]*"):
            if int(_read(index / "level") or 0) == top and _read(index / "type") != "Instruction":
                shared = _read(index / "shared_cpu_list") or str(cpu)
                instances[shared] = _kib(_read(index / "size"))
    if instances and top >= 2:
        out["llc_mib"] = sum(instances.values()) / 1024
    return out


def memory_mib():
    """MemTotal of /proc/meminfo in MiB, or None."""
    try:
        with open("/proc/meminfo") as f:
            kib = next(int(line.split()[1]) for line in f if line.startswith("MemTotal"))
    except (OSError, StopIteration):
        return None
    return kib // 1024


def memory_gib():
    """(GiB, note): what a job on this node may use. Under Slurm, the node's RealMemory where it
    is below MemTotal (what the scheduler gives jobs, and what a study sized from a node's memory
    may ask for; on local-slurm each emulated node's share of the host)."""
    mib = memory_mib()
    if mib is None:
        return None, "no /proc/meminfo"
    node = os.environ.get("SLURMD_NODENAME")
    real = re.search(r"\bRealMemory=([0-9]+)", _run("scontrol", "show", "node", "-o", node)) if node else None
    # RealMemory=1 is Slurm's default when slurm.conf does not set it: then MemTotal is all we know.
    if real and 1 < int(real.group(1)) < mib:
        return round(int(real.group(1)) / 1024, 1), (
            f"Slurm's RealMemory, what jobs on the node may use (MemTotal {round(mib / 1024, 1)} GiB)"
        )
    return round(mib / 1024, 1), "MemTotal of /proc/meminfo"


def gpus() -> list:
    """[{model, count, memory_gib}] from nvidia-smi or rocm-smi, where present."""
    found = {}
    for line in _run("nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader,nounits").splitlines():
        name, _, mib = (p.strip() for p in line.partition(","))
        key = (name, round(float(mib) / 1024, 1) if mib.replace(".", "").isdigit() else None)
        found[key] = found.get(key, 0) + 1
    for line in _run("rocm-smi", "--showproductname", "--csv").splitlines()[1:]:
        cells = [c.strip() for c in line.split(",")]
        if len(cells) > 1:
            found[(cells[1], None)] = found.get((cells[1], None), 0) + 1
    return [{"model": m, "count": n, "memory_gib": mem} for (m, mem), n in sorted(found.items())]


def _iface_to(addr: str):
    """The network interface this node reaches `addr` through (the kernel's route)."""
    route = _run("ip", "-o", "route", "get", addr)
    match = re.search(r"\bdev (\S+)", route)
    return match[1] if match else None


def fabric(peers=()) -> dict:
    """The node's RDMA devices (/sys/class/infiniband, ibv_devinfo), libfabric's providers
    (fi_info), UCX (ucx_info), and the interface to the other nodes (`peers`) with its speed."""
    devices = []
    for dev in sorted(SYS_IB.glob("*")):
        for port in sorted((dev / "ports").glob("*")):
            rate = re.match(r"([0-9.]+)\s*Gb/sec", _read(port / "rate"))
            devices.append(
                {
                    "device": dev.name,
                    "link_layer": _read(port / "link_layer") or None,
                    "state": _read(port / "state").split(":")[-1].strip() or None,
                    "rate_gbps": float(rate[1]) if rate else None,
                }
            )
    if not devices:  # a kernel that hides /sys/class/infiniband: ask ibverbs
        devices = [
            {"device": d, "link_layer": None, "state": None, "rate_gbps": None}
            for d in _run("ibv_devinfo", "-l").split()[1:]
        ]
    providers = sorted(set(re.findall(r"^([a-z][\w;-]*):\s*$", _run("fi_info", "-l"), re.M)) - {"fi_info"})
    ucx = re.search(r"Library version:\s*(\S+)|# Version\s+(\S+)", _run("ucx_info", "-v"))
    iface = next((i for i in (_iface_to(p) for p in peers) if i), None)
    speed = _read(Path("/sys/class/net") / iface / "speed") if iface else ""
    return {
        "rdma_devices": devices,
        "libfabric_providers": [p.split(";")[0] for p in providers],
        "ucx_version": (ucx[1] or ucx[2]) if ucx else None,
        "iface": iface,
        "iface_speed_gbps": int(speed) / 1000 if speed.lstrip("-").isdigit() and int(speed) > 0 else None,
    }


def interconnect(fab: dict) -> dict:
    """{kind, name, speed_gbps} of the schema from a node's fabric: InfiniBand where an RDMA
    device's link layer says so, EFA where libfabric has its provider, else the Ethernet
    interface that reaches the other nodes (loopback: the nodes are one host)."""
    ib = [d for d in fab["rdma_devices"] if d["link_layer"] == "InfiniBand" and d["state"] in (None, "ACTIVE")]
    if ib:
        rate = max((d["rate_gbps"] or 0) for d in ib) or None
        names = {100: "EDR", 200: "HDR", 400: "NDR", 800: "XDR", 56: "FDR", 40: "QDR"}
        return {
            "kind": "infiniband",
            "name": names.get(int(rate or 0), f"InfiniBand ({ib[0]['device']})"),
            "speed_gbps": rate,
        }
    if "efa" in fab["libfabric_providers"]:
        return {"kind": "efa", "name": "EFA", "speed_gbps": fab["iface_speed_gbps"]}
    iface = fab["iface"]
    name = "loopback (lo)" if iface == "lo" else f"Ethernet ({iface})" if iface else "none (single node)"
    return {"kind": "ethernet", "name": name, "speed_gbps": fab["iface_speed_gbps"]}


def os_release() -> str:
    text = _read(Path("/etc/os-release"))
    match = re.search(r'^PRETTY_NAME="?([^"\n]+)"?', text, re.M)
    return match[1] if match else platform.system()


def filesystems(paths=("/", ".")) -> list:
    """The file system types of `paths` (the root's and the working directory's: on a cluster,
    the shared one the project lives on)."""
    mounts = []
    try:
        with open("/proc/mounts") as f:
            mounts = [line.split()[1:3] for line in f]
    except OSError:
        pass
    out = set()
    for path in paths:
        real = os.path.realpath(path)
        best = max(
            (m for m in mounts if real == m[0] or real.startswith(m[0].rstrip("/") + "/")),
            key=lambda m: len(m[0]),
            default=None,
        )
        if best:
            out.add(best[1])
    return sorted(out)


def node_facts(cpus=None, peers=()) -> dict:
    """Every fact of this node a system description needs, for the CPUs `cpus` (default: the
    ones this process may run on)."""
    cpus = set(cpus) if cpus else os.sched_getaffinity(0)
    info, flags = lscpu(), cpu_flags()
    ghz, clock_note = base_clock(info)
    width, flops = vector_facts(flags, info)
    return {
        "node": os.environ.get("SLURMD_NODENAME") or platform.node(),
        "hostname": socket.gethostname(),
        "cpus": sorted(cpus),
        "vendor": info.get("Vendor ID", "unknown"),
        "model": info.get("Model name", "unknown"),
        "architecture": platform.machine(),
        **topology(cpus, info),
        "numa_nodes": numa_nodes(cpus, info),
        "base_clock_ghz": ghz,
        "clock_note": clock_note,
        "vector_width_bits": width,
        "dp_flops_per_cycle": flops,
        **dict(zip(("memory_gib", "memory_note"), memory_gib())),
        **caches(cpus),
        "gpus": gpus(),
        "fabric": fabric(peers),
        "filesystems": filesystems(),
        "os": os_release(),
        "kernel": platform.release(),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--peers", nargs="*", default=[], help="addresses of the other nodes (the fabric's interface)")
    args = ap.parse_args(argv)
    print(json.dumps(node_facts(peers=args.peers), indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
