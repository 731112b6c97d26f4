"""System descriptions (configs/<system>/): load and validate them, derive what follows from
their facts (Ramble variables, the job script), compute R_peak and price.

    hpcaas systems [--configs DIR] validate [PATH ...]   # OK <file>, or <file>: <key>: <expected>
    hpcaas systems [--configs DIR] table                 # what `make systems` prints
    hpcaas systems [--configs DIR] diff A B [--markdown] # what differs between two systems, fact by fact

A system folder holds only facts a person writes: system.yaml (each fact {value, source}),
spack/ (compilers, packages, definitions) and ramble/ (launchers and other variables, fabrics,
environment). What follows from them (cores per node, the fabric environments, the submit
command, the job script of the scheduler) is derived here, never written in the folder (see
configs/README.md). Bad input raises InputError(file, key, expected); the CLI prints it on one
line and exits 2.
"""

import datetime
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import jsonschema
import yaml

from analysis.errors import InputError
from hpcaas import toolchain
from hpcaas.paths import CONFIGS
from hpcaas.paths import SCHEDULERS as TEMPLATES

SCHEMA_FILE = CONFIGS / "schema" / "system.schema.json"
TARGETS_FILE = CONFIGS / "schema" / "archspec-targets.json"

#: Folders of configs/ that are not systems (the schema, the job script of each scheduler, the
#: expected fractions of the hardware limits per processor family, the
#: documented shape of `local`).
NOT_SYSTEMS = {"schema", "schedulers", "expected", "local.example"}

#: Files every system folder has besides system.yaml (ramble/env_vars.yaml is optional).
SYSTEM_FILES = ["spack/compilers.yaml", "spack/packages.yaml", "ramble/variables.yaml", "ramble/fabrics.yaml"]

#: How an experiment's job script is submitted, per scheduler; configs/schedulers/<name>.tpl is
#: that script. A system whose scheduler is not published (null) runs its scripts in place.
SUBMIT = {
    "slurm": "sbatch {execute_experiment}",
    "pbs": "qsub {execute_experiment}",
    "local": "{execute_experiment}",
}

#: Ramble variables derived from a system's facts: never written in its ramble/variables.yaml.
DERIVED = (
    "system",
    "target",
    "cores_per_node",
    "processes_per_node",
    "n_threads",
    "mpi_command",
    "batch_submit",
    "last_level_cache_bytes",
    "build_target",
)

#: How a GPU counts towards R_peak: its DP peak (default), half its SP peak (Desmos IJHPCA'19), or not.
GPU_RULES = ("dp", "half_sp", "none")

_schema_cache = {}


def _schema():
    if "schema" not in _schema_cache:
        _schema_cache["schema"] = json.loads(SCHEMA_FILE.read_text())
        _schema_cache["targets"] = json.loads(TARGETS_FILE.read_text())["targets"]
    return _schema_cache["schema"], _schema_cache["targets"]


# --------------------------------------------------------------------------- reading files


def read_yaml(file: Path):
    try:
        text = file.read_text()
    except OSError as err:
        raise InputError(file, "(file)", f"a readable file ({err.strerror})") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        key = f"line {mark.line + 1}" if mark else "(yaml)"
        problem = getattr(err, "problem", None) or "a syntax error"
        raise InputError(file, key, f"valid YAML ({problem})") from None


def _dates_as_text(node):
    """YAML reads an unquoted 2024-05-01 as a date; the schema wants the text as written."""
    if isinstance(node, dict):
        return {k: _dates_as_text(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_dates_as_text(v) for v in node]
    return node.isoformat() if isinstance(node, (datetime.date, datetime.datetime)) else node


def _system_file(path) -> Path:
    path = Path(path)
    return path / "system.yaml" if path.is_dir() else path


# --------------------------------------------------------------------------- schema errors


def _resolve(schema, root):
    while isinstance(schema, dict) and "$ref" in schema:
        node = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def _dotted(path) -> str:
    return ".".join(str(p) for p in path)


def _render_schema_error(err, root):
    """(key, expected) for the most relevant jsonschema error, in the words of the schema."""
    path = list(err.absolute_path)
    if err.validator == "required":
        missing = re.match(r"'([^']+)'", err.message).group(1)
        parent = _resolve(err.schema, root)
        # A conditional requirement (if kind is cloud, then ...) names a top-level property.
        props = parent.get("properties") or (root["properties"] if not path else {})
        prop = _resolve(props.get(missing, {}), root)
        expected = prop.get("description", "a value")
        if path == [] and missing == "price_per_node_hour":
            expected += " (required when kind is cloud)"
        return _dotted(path + [missing]), f"missing; expected {expected}"
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        allowed = sorted(_resolve(err.schema, root).get("properties", {}))
        extra = sorted(set(err.instance) - set(allowed))
        key = _dotted(path + extra[:1])
        if allowed:
            return key, f"not a known key; expected one of {', '.join(allowed)}"
        return key, "not allowed here"
    if err.validator == "propertyNames":
        return _dotted(path + [err.instance]), "a lower-case key (letters, digits, '.', '_', '-')"
    # The value of a fact ({value, source}) is reported at the fact's own key.
    key_path = path[:-1] if path and path[-1] == "value" else path
    schema = _resolve(err.schema, root)
    if err.validator == "anyOf":  # nullable facts: explain the non-null alternative
        schema = _resolve(err.schema["anyOf"][0], root)
    expected = schema.get("description") or err.message
    return _dotted(key_path) or "(top level)", f"{expected}; got {err.instance!r}"


def _validate_schema(doc, file: Path):
    schema, _ = _schema()
    validator = jsonschema.Draft202012Validator(schema)
    errors = list(validator.iter_errors(doc))
    if errors:
        best = jsonschema.exceptions.best_match(errors)
        key, expected = _render_schema_error(best, schema)
        raise InputError(file, key, expected)


# --------------------------------------------------------------------------- semantic checks


def _facts(node, path=()):
    """(dotted key, fact) for every {value, source} fact in a system document."""
    if isinstance(node, dict):
        if "value" in node and "source" in node:
            yield _dotted(path), node
            return
        for key, child in node.items():
            if key != "sources":
                yield from _facts(child, path + (key,))
    elif isinstance(node, list):
        for i, child in enumerate(node):
            yield from _facts(child, path + (i,))


def _check_semantics(doc, file: Path):
    """Checks the schema cannot express: cross references and physical plausibility."""
    if file.name == "system.yaml" and doc["name"] != file.parent.name:
        raise InputError(file, "name", f"the folder name '{file.parent.name}'; got {doc['name']!r}")
    for key, fact in _facts(doc):
        if fact["source"] not in doc["sources"]:
            raise InputError(
                file, f"{key}.source", f"a key of sources ({', '.join(sorted(doc['sources']))}); got {fact['source']!r}"
            )
    price = doc.get("price_per_node_hour")
    if price and price["source"] not in doc["sources"]:
        raise InputError(
            file,
            "price_per_node_hour.source",
            f"a key of sources ({', '.join(sorted(doc['sources']))}); got {price['source']!r}",
        )
    _, targets = _schema()
    target, arch = value(doc, "processor.target"), value(doc, "processor.architecture")
    if targets[target]["family"] != arch:
        raise InputError(
            file,
            "processor.target",
            f"an archspec target of family {arch} (processor.architecture); "
            f"{target!r} is an {targets[target]['family']} target",
        )
    width, flops = value(doc, "vector_width_bits"), value(doc, "dp_flops_per_cycle")
    if flops > 4 * width / 64:
        raise InputError(
            file,
            "dp_flops_per_cycle",
            f"at most {4 * width // 64} (two FMA pipes of vector_width_bits={width}); got {flops}",
        )
    for i, gpu in enumerate(doc["gpus"]):
        dp, sp = gpu["dp_gflops"]["value"], gpu["sp_gflops"]["value"]
        if dp is not None and sp is not None and dp > sp:
            raise InputError(file, f"gpus.{i}.dp_gflops", "a DP peak not above the SP peak (sp_gflops)")
    if price:
        date = datetime.date.fromisoformat((price["date"] + "-01-01")[:10])
        if date > datetime.date.today():
            raise InputError(file, "price_per_node_hour.date", f"a date not in the future; got {price['date']!r}")


def load_system(path) -> dict:
    """Read and validate configs/<system>/system.yaml (or the folder); return the document."""
    file = _system_file(path)
    if not file.is_file():
        raise InputError(file, "(file)", "an existing system.yaml")
    doc = _dates_as_text(read_yaml(file))
    if not isinstance(doc, dict):
        raise InputError(file, "(top level)", "a mapping of system facts (configs/schema/system.schema.json)")
    _validate_schema(doc, file)
    _check_semantics(doc, file)
    return doc


# --------------------------------------------------------------------------- the folder around it


def fabric_env_line(env: dict) -> str:
    """The shell form of a fabric's env vars, as ramble/variables.yaml carries it (fabric_env_<name>)."""
    return " ".join(f"{k}={shlex.quote(str(v))}" for k, v in env.items())


def _mapping(file: Path, top: str):
    doc = read_yaml(file)
    if not isinstance(doc, dict) or not isinstance(doc.get(top), (dict, list)):
        raise InputError(file, top, f"a top-level '{top}:' section")
    return doc[top]


def check_system_dir(folder, doc=None) -> dict:
    """Validate system.yaml and the Spack/Ramble files beside it; return the system document."""
    folder = Path(folder)
    doc = doc or load_system(folder)
    for rel in SYSTEM_FILES:
        if not (folder / rel).is_file():
            raise InputError(folder / rel, "(file)", "present in every system folder (configs/README.md)")
    arch = value(doc, "processor.architecture")
    compilers = _mapping(folder / "spack/compilers.yaml", "compilers")
    for i, entry in enumerate(compilers):
        comp = entry.get("compiler", {}) if isinstance(entry, dict) else {}
        for field in ("spec", "paths", "operating_system", "modules"):
            if field not in comp:
                raise InputError(
                    folder / "spack/compilers.yaml",
                    f"compilers.{i}.compiler.{field}",
                    "present (Spack v0.23.1 compilers.yaml)",
                )
        # `any`: Spack's word for a compiler of any target (what lets an x86_64 machine solve a
        # foreign system's exact targets, configs/hpe-apollo70-thunderx2-edr).
        if comp.get("target") not in (arch, "any"):
            raise InputError(
                folder / "spack/compilers.yaml",
                f"compilers.{i}.compiler.target",
                f"{arch} (processor.architecture) or any; got {comp.get('target')!r}",
            )
    packages = _mapping(folder / "spack/packages.yaml", "packages")
    # The target is a fact of system.yaml; packages.yaml's preference restates it for Spack.
    preferred = (packages.get("all") or {}).get("target") if isinstance(packages.get("all"), dict) else None
    target = value(doc, "processor.target")
    if preferred and preferred[0] != target:
        raise InputError(
            folder / "spack/packages.yaml",
            "packages.all.target",
            f"[{target}] first, the processor's target (system.yaml processor.target); got {preferred}",
        )
    _check_image(folder, doc, compilers, packages)

    ramble_config(folder, doc)
    return doc


def _check_image(folder: Path, doc: dict, compilers: list, packages: dict):
    """The image's compiler, MPIs and fabric libraries (system.yaml `image`, with sources) are
    what the Spack files register: written once with their source, checked here."""
    image = doc.get("image")
    if not image:
        return
    specs = {c["compiler"]["spec"].replace("@=", "@") for c in compilers if isinstance(c, dict)}
    compiler = image["compiler"]["value"]
    if compiler not in specs:
        raise InputError(
            folder / "spack/compilers.yaml",
            "compilers",
            f"an entry for {compiler} (image.compiler of system.yaml); has {', '.join(sorted(specs))}",
        )
    externals = {
        e["spec"].split()[0].replace("@=", "@")
        for conf in packages.values()
        if isinstance(conf, dict)
        for e in conf.get("externals", [])
    }
    for key in ("mpis", "fabric"):
        for spec in image[key]["value"]:
            if spec not in externals:
                raise InputError(
                    folder / "spack/packages.yaml",
                    f"packages.{spec.split('@')[0]}",
                    f"an external {spec} (image.{key} of system.yaml)",
                )


def ramble_config(folder, doc=None) -> dict:
    """The system's Ramble side: {variables, env_vars, template}. variables are the hand-written
    ones of ramble/variables.yaml plus those derived from the facts (DERIVED, one
    fabric_env_<name> per set of ramble/fabrics.yaml); template is the job script of the
    system's scheduler (configs/schedulers/<scheduler>.tpl)."""
    folder = Path(folder)
    doc = doc or load_system(folder)
    # A compiler Spack would refuse for the system's target stops here, before any study is
    # rendered for the system (Spack's own archspec decides: hpcaas/toolchain.py).
    toolchain.check(folder, value(doc, "processor.target"))
    var_file, fab_file, env_file = (folder / "ramble" / f for f in ("variables.yaml", "fabrics.yaml", "env_vars.yaml"))
    variables = dict(_mapping(var_file, "variables"))
    fabrics = _mapping(fab_file, "fabrics")
    for name in DERIVED:
        if name in variables:
            raise InputError(
                var_file, f"variables.{name}", "absent: it is derived from system.yaml (configs/README.md)"
            )
    for name in ("launcher", "fabric", "batch_time"):
        if name not in variables:
            raise InputError(var_file, f"variables.{name}", "present (configs/README.md lists the variables)")
    for key in variables:
        if key.startswith("fabric_env_"):
            raise InputError(var_file, f"variables.{key}", f"absent: it is derived from {fab_file.name}")
    launcher = str(variables["launcher"])  # may itself be computed, e.g. '{mpi}' on local
    if "{" not in launcher and f"launcher_{launcher}" not in variables:
        raise InputError(var_file, "variables.launcher", "a name with a launcher_<name> variable")
    for name, env in fabrics.items():
        if not re.fullmatch(r"[a-z0-9_]+", str(name)):  # Ramble would read '-' in {fabric_env_a-b} as a minus
            raise InputError(fab_file, f"fabrics.{name}", "a name of lower-case letters, digits and '_'")
        if not isinstance(env, dict):
            raise InputError(fab_file, f"fabrics.{name}", "a mapping of environment variables ({} for none)")
    if "{" not in str(variables["fabric"]) and variables["fabric"] not in fabrics:
        raise InputError(var_file, "variables.fabric", f"one of {', '.join(fabrics)} (fabrics.yaml)")
    env_vars = _mapping(env_file, "env_vars") if env_file.exists() else {}

    scheduler = value(doc, "scheduler") or "local"
    template = TEMPLATES / f"{scheduler}.tpl"
    if scheduler not in SUBMIT or not template.is_file():
        raise InputError(_system_file(folder), "scheduler", f"one of {', '.join(sorted(SUBMIT))} (configs/schedulers/)")
    if scheduler == "pbs" and "pbs_resources" not in variables:
        # The site's request (whole nodes, or cores and memory): PBS sites differ.
        raise InputError(var_file, "variables.pbs_resources", "present on a PBS system (what #PBS -l asks for)")
    cores = cores_per_node(doc)
    derived = {
        "system": doc["name"],
        "target": value(doc, "processor.target"),
        # The target the system builds for by default: its definitions.yaml's (a site whose
        # compilers predate its CPU builds for an older one), else the processor's.
        "build_target": toolchain.targets(folder, value(doc, "processor.target"))[0],
        "cores_per_node": str(cores),
        "processes_per_node": str(cores),  # one rank per core; a study may set its own
        "n_threads": "1",
        **{f"fabric_env_{name}": fabric_env_line(env) for name, env in fabrics.items()},
        # The chosen fabric's variables are set for the launcher (srun exports them, mpirun
        # forwards OMPI_MCA_*; under a scheduler its daemons inherit the rest).
        "mpi_command": "env {fabric_env_{fabric}} {launcher_{launcher}}",
        "batch_submit": SUBMIT[scheduler],
    }
    llc = doc.get("last_level_cache_mib", {}).get("value")
    if llc:  # only where the facts give it: a preset sized from it needs it (needs.variables)
        derived["last_level_cache_bytes"] = str(int(llc * 2**20))
    # A system may add lines to its job scripts' header (slurm.tpl's {batch_directives}); none by default.
    defaults = {"batch_directives": ""}
    return {"variables": {**derived, **defaults, **variables}, "env_vars": env_vars, "template": template.read_text()}


def system_folders(configs_dir=CONFIGS) -> list:
    """Every folder of configs_dir that must be a system: all but NOT_SYSTEMS and hidden ones
    (make system's temporary .local.* folders)."""
    return sorted(
        p
        for p in Path(configs_dir).iterdir()
        if p.is_dir() and p.name not in NOT_SYSTEMS and not p.name.startswith(".")
    )


def committed(configs_dir=CONFIGS) -> list:
    """The systems git tracks (committed, or added to be): each has a solved validation lock
    (environments/validate/<system>/). A system just written by `make system` joins them once
    it is added; outside a git checkout, every system but make system's own of this machine."""
    from hpcaas.environments import GENERATED

    proc = subprocess.run(
        ["git", "ls-files", "--", "*/system.yaml"], cwd=configs_dir, capture_output=True, text=True, check=False
    )
    folders = [f.name for f in system_folders(configs_dir) if f.name not in GENERATED]
    if proc.returncode != 0:
        return folders
    tracked = {Path(line).parts[0] for line in proc.stdout.split()}
    return [name for name in folders if name in tracked]


def load_all(configs_dir=CONFIGS) -> dict:
    """Every system under configs_dir, by name; a folder without system.yaml is an error."""
    return {folder.name: check_system_dir(folder) for folder in system_folders(configs_dir)}


# --------------------------------------------------------------------------- derived numbers


def value(system: dict, key: str):
    """The value of a fact by dotted key, e.g. value(sys, 'processor.target')."""
    node = system
    for part in key.split("."):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node["value"] if isinstance(node, dict) and "value" in node else node


def target_family(target: str) -> str:
    """The generic target of an archspec target's family (zen3 -> x86_64)."""
    _, targets = _schema()
    return targets[target]["family"]


def cores_per_node(system: dict) -> int:
    return value(system, "sockets") * value(system, "cores_per_socket")


def rpeak_per_node_gflops(system: dict, gpu: str = "dp") -> float:
    """Theoretical DP peak of one node in GFLOP/s:

        sockets x cores_per_socket x base_clock_ghz x dp_flops_per_cycle  (+ GPUs)

    The CPU part is the PASC'19 Table 1 definition (ThunderX2: 2 x 32 x 2.2 x 8 = 1126.4). GPUs add
    count x dp_gflops (gpu="dp", default), count x 0.5 x sp_gflops (gpu="half_sp": the Desmos
    IJHPCA'19 convention, R_peak = CPU + 0.5 x GPU single-precision peak) or nothing (gpu="none").
    """
    if gpu not in GPU_RULES:
        raise InputError("rpeak_per_node_gflops", "gpu", f"one of {', '.join(GPU_RULES)}; got {gpu!r}")
    cpu = cores_per_node(system) * value(system, "base_clock_ghz") * value(system, "dp_flops_per_cycle")
    extra = 0.0
    for g in system["gpus"]:
        # A GPU whose peak is not known (a probed one) adds nothing: R_peak is then the CPU's.
        dp, sp = g["dp_gflops"]["value"] or 0.0, g["sp_gflops"]["value"] or 0.0
        per_gpu = {"dp": dp, "half_sp": 0.5 * sp, "none": 0.0}[gpu]
        extra += g["count"]["value"] * per_gpu
    return cpu + extra


def price_per_node_hour(system: dict):
    """{value, currency, date, source, verified, region} of the on-demand node-hour, or None."""
    price = system.get("price_per_node_hour")
    if not price:
        return None
    return {
        "value": price["value"],
        "currency": price["currency"],
        "date": price["date"],
        "source": system["sources"][price["source"]],
        "verified": price["verified"],
        "region": price.get("region"),
    }


def network_label(system: dict) -> str:
    kind = "IB " if value(system, "interconnect.kind") == "infiniband" else ""
    speed = value(system, "interconnect.speed_gbps")
    return f"{kind}{value(system, 'interconnect.name')}" + (f" {speed:g} Gb/s" if speed else "")


def _money(amount: float) -> str:
    text = f"{amount:.4f}".rstrip("0")
    return text + "0" * (2 - len(text.split(".")[1]))


def table_rows(systems: dict):
    rows = []
    for name, s in sorted(systems.items()):
        price = price_per_node_hour(s)
        rows.append(
            {
                "system": name,
                "cores/node": cores_per_node(s),
                "target": value(s, "processor.target"),
                "network": network_label(s),
                "R_peak GFLOP/s/node": f"{rpeak_per_node_gflops(s):.1f}",
                "price/node-hour": (
                    f"{_money(price['value'])} {price['currency']} ({price['date']})"
                    + ("" if price["verified"] else " *")
                )
                if price
                else "-",
            }
        )
    return rows


def format_table(rows) -> str:
    cols = list(rows[0]) if rows else ["system"]
    widths = {c: max([len(c)] + [len(str(r[c])) for r in rows]) for c in cols}
    right = {"cores/node", "R_peak GFLOP/s/node"}

    def fmt(c, v):
        return str(v).rjust(widths[c]) if c in right else str(v).ljust(widths[c])

    lines = ["  ".join(fmt(c, c) for c in cols).rstrip(), "  ".join("-" * widths[c] for c in cols)]
    lines += ["  ".join(fmt(c, r[c]) for c in cols).rstrip() for r in rows]
    return "\n".join(lines)


# --------------------------------------------------------------------------- CLI


def _validate_paths(paths, configs_dir) -> int:
    targets = [Path(p) for p in paths] or system_folders(configs_dir)
    status = 0
    for path in targets:
        try:
            if path.is_dir():
                check_system_dir(path)
            else:
                load_system(path)
            print(f"OK {_system_file(path)}")
        except InputError as err:
            print(err, file=sys.stderr)
            status = 2
    return status


def _table(configs_dir) -> int:
    systems, status = {}, 0
    for folder in system_folders(configs_dir):
        try:
            systems[folder.name] = check_system_dir(folder)
        except InputError as err:  # report it, still show every valid system
            print(err, file=sys.stderr)
            status = 2
    print(format_table(table_rows(systems)))
    if any(price_per_node_hour(s) and not price_per_node_hour(s)["verified"] for s in systems.values()):
        print("* price not verified against the provider's own page (see the system's price note)")
    print("R_peak = sockets x cores x base GHz x DP FLOP/cycle + GPU DP peak; price: on-demand, per node-hour")
    return status


def register(sub):
    """`hpcaas systems validate|table|diff`."""
    ap = sub.add_parser(
        "systems", help="validate the systems of configs/, or print their table", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--configs", default=str(CONFIGS), help="the configs/ folder (default: %(default)s)")
    cmds = ap.add_subparsers(dest="systems_command", required=True)
    val = cmds.add_parser("validate", help="validate system.yaml files or system folders (default: all)")
    val.add_argument("paths", nargs="*", help="system.yaml files or configs/<system> folders")
    cmds.add_parser("table", help="print cores/node, target, network, R_peak and price of every system")
    diff = cmds.add_parser("diff", help="what differs between two systems, fact by fact (hardware, then software)")
    diff.add_argument("a", help="a folder of configs/")
    diff.add_argument("b", help="a folder of configs/")
    diff.add_argument("--markdown", action="store_true", help="a Markdown table (what a report shows)")
    ap.set_defaults(func=_main)


def _main(args) -> int:
    if not Path(args.configs).is_dir():
        print(InputError(args.configs, "--configs", "an existing configs folder"), file=sys.stderr)
        return 2
    if args.systems_command == "validate":
        return _validate_paths(args.paths, args.configs)
    if args.systems_command == "diff":
        return _diff(args)
    return _table(args.configs)


def _diff(args) -> int:
    from hpcaas import systemdiff

    for name in (args.a, args.b):
        check_system_dir(Path(args.configs) / name)  # a bad system stops here, on one line
    table = systemdiff.rows(args.a, args.b, args.configs)
    print(systemdiff.markdown(table, args.a, args.b) if args.markdown else systemdiff.text(table, args.a, args.b))
    return 0
