"""What a generated workspace (`ramble workspace setup --dry-run`, hpcaas dry-run) holds, per
experiment: its script's lines, the environment it sets, the Spack specs it activates, and the
line of the workspace's all_experiments that submits it (`batch_submit`: sbatch and its options).
Used by the fidelity check and the dry-run tests, so both read a workspace the same way."""

import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REDIRECT = re.compile(r'\s*>>?\s*"[^"]*"\s*2>&1\s*$')


@dataclass
class Experiment:
    application: str
    workload: str
    name: str
    script: str
    lines: list = field(default_factory=list)  # script lines without Ramble's output redirection
    env: dict = field(default_factory=dict)  # exported, or set with `env A=B` on a launch line
    specs: list = field(default_factory=list)  # the activated Spack environment's specs
    submit: str = ""  # the all_experiments line that submits (or runs) the script

    @property
    def key(self) -> str:
        return f"{self.application}/{self.workload}/{self.name}"


def _env(lines) -> dict:
    env = {}
    for line in lines:
        try:
            words = shlex.split(line)
        except ValueError:
            continue
        if words[:1] == ["export"]:
            words = words[1:]
        elif words[:1] == ["env"]:
            words = words[1:]
        else:
            continue
        for word in words:
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", word):
                break
            key, _, value = word.partition("=")
            env[key] = value[:-1] if value.endswith(";") else value  # Ramble writes `export A=b;`
            if value.endswith(";"):
                break
    return env


def read(ws) -> dict:
    """{<app>/<workload>/<name>: Experiment} of a generated workspace."""
    ws = Path(ws)
    out = {}
    runs = ws / "all_experiments"
    submits = runs.read_text().splitlines() if runs.is_file() else []
    for script in sorted((ws / "experiments").glob("*/*/*/execute_experiment")):
        app, workload, name = script.parent.relative_to(ws / "experiments").parts
        text = script.read_text()
        lines = [REDIRECT.sub("", line) for line in text.splitlines()]
        specs = []
        active = re.search(r"^spack env activate (\S+)$", text, re.M)
        if active and (Path(active.group(1)) / "spack.yaml").exists():
            specs = yaml.safe_load((Path(active.group(1)) / "spack.yaml").read_text())["spack"]["specs"]
        tail = f"/experiments/{app}/{workload}/{name}/execute_experiment"
        submit = next((line for line in submits if line.endswith(tail)), "")
        exp = Experiment(app, workload, name, text, lines, _env(lines), [str(s) for s in specs], submit)
        out[exp.key] = exp
    return out


# --------------------------------------------------------------------------- the cache
# A dry-run is a pure function of the files below (the study, the system, the job scripts, our
# Ramble applications and the code that renders them, the pinned Ramble and Spack): the same
# inputs give the same workspace (its Spack environments seeded from the pair's committed lock).
# hpcaas/run/dryrun.py keeps each generated workspace under
# $HPCAAS_CACHE/dry-runs/<key>/ with the project's path written as a placeholder, and restores it
# for identical inputs instead of running Ramble again (HPCAAS_DRYRUN_CACHE=0: always run it).
INPUTS = (
    "pins.env",
    "requirements.txt",
    "pyproject.toml",
    "configs/schedulers",
    "configs/schema",
    "spack-config",
    "ramble-repo",
    # The programs Spack and Ramble run for us, and the Ramble config configure.sh writes.
    "hpcaas/ramble_python",
    "hpcaas/spack_python",
    "scripts/configure.sh",
)
#: Of the project's own Python, only what the dry-run imports (a change to validation or to the
#: probe must not regenerate every study's dry-run): the modules hpcaas.run.dryrun reaches.
ENTRY = "hpcaas.run.dryrun"
PACKAGES = ("hpcaas", "analysis")
PLACEHOLDER = "@HPCAAS_ROOT@"


def _files(root: Path, rel: str):
    path = root / rel
    if path.is_file():
        yield path
    for p in sorted(path.rglob("*")) if path.is_dir() else ():
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc":
            yield p


def _module_file(root: Path, name: str):
    base = root.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def imported_files(root: Path, entry: str = ENTRY) -> list:
    """The files of the project's modules `entry` imports, directly or through others (every
    import statement counts, also those inside functions), with their packages' __init__.py."""
    import ast

    seen, todo, files = set(), [entry], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        path = _module_file(root, name)
        if path is None:
            continue
        files.add(path)
        parts = name.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]
        package = name if path.name == "__init__.py" else ".".join(parts[:-1])
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                todo += [a.name for a in node.names if a.name.split(".")[0] in PACKAGES]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                    module = f"{base}.{node.module}" if node.module else base
                else:
                    module = node.module or ""
                if module.split(".")[0] in PACKAGES:
                    todo += [module, *(f"{module}.{a.name}" for a in node.names)]
    return sorted(files)


def cache_key(study: str, system: str, scale: str, root: Path, cache: str) -> str:
    import hashlib

    digest = hashlib.sha256(f"{study}\0{system}\0{scale}\0{cache}\0".encode())
    for rel in (
        *INPUTS,
        *(str(f.relative_to(root)) for f in imported_files(root)),
        f"ramble-workspaces/{study}/study.yaml",
        f"configs/{system}",
        f"environments/{study}/{system}",
    ):
        for f in _files(root, rel):
            digest.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    return digest.hexdigest()[:32]


def _copy(src: Path, dst: Path, old: str, new: str):
    """Copy the tree src to dst, writing `new` for `old` in every text file."""
    import shutil

    for p in sorted(src.rglob("*")):
        target = dst / p.relative_to(src)
        if p.is_symlink():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(os.readlink(p).replace(old, new))
        elif p.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            data = p.read_bytes()
            try:
                target.write_text(data.decode().replace(old, new))
            except UnicodeDecodeError:
                shutil.copyfile(p, target)


def store(ws: Path, entry: Path, root: Path):
    import shutil
    import tempfile

    entry.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=entry.parent, prefix=".tmp-"))
    _copy(ws, tmp / "ws", str(root), PLACEHOLDER)
    (tmp / "ws" / ".complete").write_text("")
    try:
        (tmp / "ws").rename(entry)
    except OSError:  # another run stored the same inputs meanwhile
        pass
    shutil.rmtree(tmp, ignore_errors=True)


def restore(entry: Path, ws: Path, root: Path) -> bool:
    if not (entry / ".complete").is_file():
        return False
    _copy(entry, ws, PLACEHOLDER, str(root))
    (ws / ".complete").unlink()
    return True


def register(sub):
    """`hpcaas dry-run-cache key|store|restore`, for scripts/dry-run.sh."""
    from hpcaas.paths import ROOT

    ap = sub.add_parser("dry-run-cache", help="the cache of generated dry-run workspaces (scripts/dry-run.sh)")
    cmds = ap.add_subparsers(dest="cache_command", required=True)
    p = cmds.add_parser("key", help="the key of a dry-run's inputs")
    for name in ("study", "system", "scale"):
        p.add_argument(name)
    for name in ("store", "restore"):
        p = cmds.add_parser(name, help=f"{name} a workspace (restore: exit 1 when the cache has none)")
        p.add_argument("key")
        p.add_argument("workspace")

    def run(args):
        cache = Path(os.environ.get("HPCAAS_CACHE", Path.home() / ".cache/hpcaas-bench"))
        if args.cache_command == "key":
            print(cache_key(args.study, args.system, args.scale, ROOT, str(cache)))
            return 0
        entry, ws = cache / "dry-runs" / args.key, Path(args.workspace)
        if args.cache_command == "store":
            store(ws, entry, ROOT)
            return 0
        return 0 if restore(entry, ws, ROOT) else 1

    ap.set_defaults(func=run)
