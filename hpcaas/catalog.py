"""The catalog: every application of ramble-repo/ built with our Spack recipes and run for real,
its smallest real workload (the one tagged `catalog`) at 1 and 2 ranks with each of the system's
MPIs (threads 1 and 2 for an OpenMP-only code; `catalog_ranks` on an application that needs
others, e.g. OSU's point-to-point tests run on 2 ranks only). It is a study generated from the tree, so adding
an application adds it here with nothing else to edit.

    hpcaas catalog study SYSTEM [--tier fast|all]    the generated study, as YAML
    hpcaas catalog table SYSTEM RESULTS_CSV OUT_CSV  one row per application (catalog.csv)

An application is built by Spack from its pinned source (tarball sha256 or git commit) unless the
system has it as a non-buildable external (a Debian binary: the Debian package version is the
source_ref), or it is licensed and its file is not in mirror/ (SKIPPED, with the file and
checksum to place there). `tags("slow-build")` on an application keeps it out of the fast tier
that `make test-long` runs (a cold build of more than ~5 minutes on a small machine), and so does
`tags("needs-internet")` (a source or input that no mirror here serves; `make catalog` tries it).
"""

import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from hpcaas.paths import CONFIGS, ROOT

TIERS = ("fast", "all")
# Tools the studies use besides the applications, each built from its Spack environment
# (environments/<tool>) in the slow tier: HPCToolkit, the profiler of `make reproduce PROFILE=`.
TOOLS = ("hpctoolkit",)

PROGRAMS = ROOT / "hpcaas"


def _tool(tool: str, program: str, data: dict) -> dict:
    """Run one of our programs under `spack python` or `ramble python` (hpcaas/<tool>_python/)
    with `data` as its JSON input; its JSON output."""
    from hpcaas.run import tools

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "in.json").write_text(json.dumps(data))
        out = Path(tmp) / "in.json" if tool == "ramble" else Path(tmp) / "in.json.out"
        proc = subprocess.run(
            [tool, "python", PROGRAMS / f"{tool}_python" / program, Path(tmp) / "in.json"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env=tools.environment(),
        )
        if proc.returncode != 0:
            sys.exit(f"hpcaas catalog: {tool} python {program} failed:\n{proc.stderr[-3000:]}")
        return json.loads(out.read_text())


def applications() -> dict:
    """{app: {workloads, mpi, specs, tags}} of ramble-repo/, from Ramble itself."""
    return _tool("ramble", "applications.py", {})


def _externals(system: str) -> dict:
    packages = yaml.safe_load((CONFIGS / system / "spack/packages.yaml").read_text())["packages"]
    return {
        name: conf["externals"][0]["spec"].split("@")[1].split()[0]
        for name, conf in packages.items()
        if conf.get("externals") and conf.get("buildable") is False
    }


def _main_spec(app: str, specs: dict) -> tuple:
    """(name, pkg_spec) of the application's own software spec: the one of its package, else the
    first. Its name may hold workload variables (stream's array size: a build per size)."""
    named = [(n, s) for n, s in specs.items() if s.split("@")[0].split()[0] == app]
    return (named or list(specs.items()) or [(app, "")])[0]


def _expand(named: tuple, defaults: dict) -> tuple:
    """A spec (and its name) with the catalog workload's variables at their defaults: the build
    is one, named concretely (stream-10000000-20)."""
    name, spec = named
    for var, value in defaults.items():
        name, spec = name.replace("{" + var + "}", value), spec.replace("{" + var + "}", value)
    return name, spec


def entries(system: str, tier: str = "all") -> list:
    """One entry per application: how the catalog builds and runs it on `system`."""
    apps, externals = applications(), _externals(system)
    named = {a: _expand(_main_spec(a, info["specs"]), info["defaults"]) for a, info in apps.items() if info["specs"]}
    specs = {a: spec for a, (_, spec) in named.items()}
    sources = _tool("spack", "versions.py", specs)
    mirror = ROOT / "mirror"
    out = []
    for app, info in sorted(apps.items()):
        spec = specs.get(app, "")
        src = sources.get(app, {})
        package = src.get("package", app)
        entry = {
            "application": app,
            "spec": spec,
            "package": named.get(app, (app,))[0],
            "ranks": info["ranks"],
            "git": src.get("git", "") if src.get("kind") == "git" else "",
            "workload": (info["workloads"] or [None])[0],
            "mpi": info["mpi"],
            "version": src.get("version", ""),
            "source_kind": src.get("kind", ""),
            "source_ref": src.get("ref", ""),
            "built_by": "spack",
            "status": "",
            "reason": "",
            "slow": "slow-build" in info["tags"],
            "online": "needs-internet" in info["tags"],
        }
        if package in externals:
            entry.update(
                built_by="debian",
                source_kind="external",
                version=externals[package],
                spec=f"{package}@{externals[package]}",
                source_ref=_debian_version(package),
            )
        if entry["source_kind"] == "licensed" and not list(mirror.rglob(src.get("file") or "-")):
            entry.update(status="SKIPPED", reason=f"licensed: put {src['file']} (sha256 {src['ref']}) into mirror/")
        elif not entry["workload"]:
            entry.update(status="SKIPPED", reason="no workload tagged catalog (ramble-repo/README.md item 8)")
        elif tier == "fast" and entry["slow"]:
            entry.update(status="SKIPPED", reason="slow tier (tags('slow-build')): make catalog builds it")
        elif tier == "fast" and entry["online"]:
            entry.update(
                status="SKIPPED",
                reason="needs a download (tags('needs-internet'), its application.py says what): make catalog tries it",
            )
        out.append(entry)
    return out


def _debian_version(package: str) -> str:
    from hpcaas.local import DEBIAN_EXTERNALS

    for line in DEBIAN_EXTERNALS.read_text().splitlines():
        if line and not line.startswith("#") and line.split("\t")[0] == package:
            deb = line.split("\t")[1].split(",")[0]
            proc = subprocess.run(["dpkg-query", "-W", "-f=${Version}", deb], capture_output=True, text=True)
            return f"{deb} {proc.stdout}" if proc.returncode == 0 else deb
    return ""


def study_doc(system: str, tier: str = "all") -> dict:
    """The catalog as a study (hpcaas/studies.py format), rendered like any other."""
    apps, packages, environments = {}, {}, {}
    for e in entries(system, tier):
        if e["status"] == "SKIPPED":
            continue
        app, spec = e["application"], e["spec"]
        if e["built_by"] == "spack":
            spec += " %{compiler_spec}" + (" ^{mpi_spec}" if e["mpi"] else "")
        if e["mpi"] and e["built_by"] == "debian":
            # A Debian binary is linked to one MPI (the system's default, Debian's own): no MPI axis.
            name, env = f"{app}-{{mpi}}-{{n_ranks}}ranks", e["package"]
            variables = {"n_ranks": e["ranks"], "n_threads": "1", "env_name": env}
            matrix = ["n_ranks"]
        elif e["mpi"]:
            name, env = f"{app}-{{mpi}}-{{n_ranks}}ranks", f"{e['package']}-{{mpi}}"
            variables = {"mpi": ["openmpi"], "n_ranks": e["ranks"], "n_threads": "1", "env_name": env}
            matrix = ["mpi", "n_ranks"]
        else:
            name, env = f"{app}-{{n_threads}}threads", e["package"]
            variables = {"n_ranks": "1", "n_threads": ["1", "2"], "env_name": env}
            matrix = ["n_threads"]
        apps[app] = {"workloads": {e["workload"]: {"experiments": {name: {"variables": variables, "matrix": matrix}}}}}
        packages[env] = {"pkg_spec": spec}
        environments[env] = {"packages": [env]}
    return {
        "question": "Does every application build from its pinned source and run its smallest real workload here?",
        "paper": "none (the catalog: ramble-repo/ x spack-repo/)",
        "software": {"sweep": ["mpi"]},
        "ramble": {
            "variants": {"package_manager": "spack"},
            "variables": {"n_nodes": "1"},
            "applications": apps,
            "software": {"packages": packages, "environments": environments},
        },
    }


def table(system: str, results_csv: str, out_csv: str, tier: str = "all", provenance=None) -> int:
    """catalog.csv: application, version, source_kind, source_ref, built_by, status, foms, build_s, reason."""
    rows = list(csv.DictReader(open(results_csv))) if Path(results_csv).exists() else []
    # The Spack environments the run could not build (hpcaas/run/study.py's provenance.json).
    prov = Path(provenance or Path(results_csv).parent / "provenance.json")
    failed_envs = json.loads(prov.read_text())["environments_not_built"] if prov.exists() else []
    build = _build_seconds([e for e in entries(system, tier) if e["built_by"] == "spack" and e["status"] != "SKIPPED"])
    out = []
    for e in entries(system, tier):
        mine = [r for r in rows if r["application"] == e["application"]]
        status = e["status"] or ("FAILED" if not mine or any(r["status"] != "SUCCESS" for r in mine) else "SUCCESS")
        reason = e["reason"] or "; ".join(
            sorted({r.get("status_reason", "") for r in mine if r["status"] != "SUCCESS"})
        )
        if any(env == e["package"] or env.startswith(e["package"] + "-") for env in failed_envs):
            status, reason = "FAILED", "the Spack build failed (see make catalog's messages)"
        elif not e["status"] and not mine:
            reason = "no experiment ran (see the run's messages)"
        out.append(
            {
                "application": e["application"],
                "version": e["version"],
                "source_kind": e["source_kind"],
                "source_ref": e["source_ref"],
                "built_by": e["built_by"],
                "status": status,
                "foms": len({r["metric"] for r in mine if r["status"] == "SUCCESS"}),
                "build_s": build.get(e["application"], ""),
                "reason": reason,
            }
        )
    out += [_tool_row(tool, system, tier) for tool in TOOLS]
    with open(out_csv, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(out[0]))
        writer.writeheader()
        writer.writerows(out)
    return 0 if all(r["status"] in ("SUCCESS", "SKIPPED") for r in out) else 1


def _tool_row(tool: str, system: str, tier: str) -> dict:
    """catalog.csv's row of a tool: built (SUCCESS) when its environment's root is installed."""
    env = ROOT / "environments" / tool
    source = _tool("spack", "versions.py", {tool: _environment_root(env)})[tool]
    row = {
        "application": tool,
        "version": source["version"],
        "source_kind": source["kind"],
        "source_ref": source["ref"],
        "built_by": "spack",
        "status": "SKIPPED",
        "foms": 0,
        "build_s": "",
        "reason": "slow tier: make catalog builds it",
    }
    if tier == "fast":
        return row
    from hpcaas.run import tools

    proc = subprocess.run(
        ["spack", "-e", env, "python", PROGRAMS / "spack_python" / "tool_build.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=tools.environment(HPCAAS_SYSTEM=system, SPACK_USER_CONFIG_PATH=CONFIGS / system / "spack"),
    )
    built = json.loads(proc.stdout or "{}") if proc.returncode == 0 else {}
    if built:
        row.update(status="SUCCESS", build_s=built["build_s"], reason=f"a tool: tests/{tool} runs it")
    else:
        row.update(status="FAILED", reason=f"not installed: spack -e environments/{tool} install failed")
    return row


def _environment_root(env: Path) -> str:
    """The one root spec of a tool's environment (its matrix's first row, without the system's
    compiler and target, which the definitions fill)."""
    specs = yaml.safe_load((env / "spack.yaml").read_text())["spack"]["specs"]
    first = specs[0]["matrix"][0][0] if isinstance(specs[0], dict) else specs[0]
    return first.split()[0]


def _build_seconds(entries_: list) -> dict:
    """Seconds Spack spent building each application (its install_times.json), first build."""
    from hpcaas.run import tools

    out = {}
    for e in entries_:
        proc = subprocess.run(
            ["spack", "find", "--format", "{prefix}", e["spec"].split()[0]],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env=tools.environment(),
        )
        times = [Path(p) / ".spack/install_times.json" for p in proc.stdout.split()]
        seconds = [json.loads(t.read_text())["total"] for t in times if t.exists()]
        if seconds:
            out[e["application"]] = round(max(seconds))
    return out


def unreachable(system: str, tier: str = "all") -> list:
    """The git repositories the catalog's builds need that git cannot reach from here, each with
    the one-line mapping that fixes it (a mirror, e.g. a snapshot of the repository)."""
    from hpcaas.run import checks

    return checks.unreachable(
        {
            e["git"]: (e["application"], e["source_ref"])
            for e in entries(system, tier)
            if e["git"] and e["built_by"] == "spack" and e["status"] != "SKIPPED"
        }
    )


def run(system: str, tier: str) -> int:
    """make catalog: the catalog study run on the system (hpcaas/run/study.py), then catalog.csv
    in the run's folder; in the `all` tier also the tools' environments."""
    from analysis.errors import InputError
    from hpcaas.run import finish, tools
    from hpcaas.run.progress import say
    from hpcaas.run.study import Run

    if tier not in TIERS:
        raise InputError("TIER", tier, f"one of {', '.join(TIERS)}")
    lines = unreachable(system, tier)
    if lines:
        print(*lines, sep="\n", file=sys.stderr)
        raise InputError("sources", lines[0].split(":")[0], "reachable (the mappings above), before anything builds")
    if tier != "fast":  # the inputs the mirror serves from pinned git commits
        tools.run(["scripts/mirror.sh"], env=tools.environment(HPCAAS_INPUTS_REQUIRED=1))
    outcome = Run("catalog", system, label=tier, extra_env={"HPCAAS_CATALOG_TIER": tier})()
    rc = outcome.rc
    if tier == "all":
        for tool in TOOLS:
            say(f"{tool}: spack -e environments/{tool} install (a cold build takes hours on a small machine)")
            env = tools.environment(HPCAAS_SYSTEM=system, SPACK_USER_CONFIG_PATH=CONFIGS / system / "spack")
            rc |= tools.run(
                ["spack", "-e", ROOT / "environments" / tool, "install", "--fail-fast"], env=env, check=False
            )
    out = outcome.run / "catalog.csv"
    rc |= table(system, str(outcome.results), str(out), tier, outcome.run / "provenance.json")
    with open(out) as f:
        for row in csv.DictReader(f):
            say(f"  {row['application']:<22} {row['status']:<8} {row['version']:<12} {row['reason'][:90]}")
    return finish(outcome, extra=[f"catalog: {out}"]) or rc


def register(sub):
    ap = sub.add_parser("catalog", help="the catalog study (every application), and its per-application table")
    cmds = ap.add_subparsers(dest="catalog_command", required=True)
    p = cmds.add_parser("sources", help="exit 1 naming each pinned git repository git cannot reach")
    p.add_argument("system")
    p.add_argument("--tier", default="all", choices=TIERS)
    p = cmds.add_parser("study", help="print the generated catalog study for SYSTEM")
    p.add_argument("system")
    p.add_argument("--tier", default="all", choices=TIERS)
    cmds.add_parser("tools", help="the tools built in the slow tier, one per line (environments/<tool>)")
    p = cmds.add_parser("run", help="build and run every application on SYSTEM (make catalog)")
    p.add_argument("system")
    p.add_argument("--tier", default="all")
    p = cmds.add_parser("table", help="write catalog.csv from the catalog run's results.csv")
    p.add_argument("system")
    p.add_argument("results_csv")
    p.add_argument("out_csv")
    p.add_argument("--tier", default="all", choices=TIERS)

    def main(args):
        if args.catalog_command == "sources":
            lines = unreachable(args.system, args.tier)
            print(*lines, sep="\n", file=sys.stderr) if lines else None
            return 1 if lines else 0
        if args.catalog_command == "run":
            return run(args.system, args.tier)
        if args.catalog_command == "tools":
            print(*TOOLS, sep="\n")
            return 0
        if args.catalog_command == "study":
            print(yaml.safe_dump(study_doc(args.system, args.tier), sort_keys=False))
            return 0
        return table(args.system, args.results_csv, args.out_csv, args.tier)

    ap.set_defaults(func=main)
