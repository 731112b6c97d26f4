"""What is checked before a run submits anything: the variables a user sets, the scheduler, and
the pinned git sources the build will fetch. Each failure is one line naming the value and the fix
(InputError: exit 2), and nothing has run."""

import os
import re
import shutil
import subprocess

from analysis.errors import InputError
from hpcaas.paths import ROOT

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_sets(text: str, what: str = "SET") -> dict:
    """'name=value;name=value' (make's SET=) -> {name: value}."""
    out = {}
    for item in filter(None, (text or "").split(";")):
        name, sep, value = item.partition("=")
        if not sep or not NAME.fullmatch(name) or not value or any(c in value for c in " :"):
            raise InputError(what, item, "name=value, a Ramble variable of the study and a value without spaces or ':'")
        out[name] = value
    return out


def _variables(node, out: dict):
    """Every variable a rendered Ramble configuration defines (any `variables:` mapping)."""
    if isinstance(node, dict):
        for key, child in node.items():
            if key == "variables" and isinstance(child, dict):
                for name, value in child.items():
                    out.setdefault(name, []).append(value)
            else:
                _variables(child, out)
    elif isinstance(node, list):
        for child in node:
            _variables(child, out)
    return out


def check_sets(sets: dict, config: dict, study: str, system: str):
    """Each SET names a variable the study's workspace defines; where the study offers a choice
    through variables named <name>_<choice> ({pin_{pin}}), the value is one of the choices."""
    defined = _variables(config, {})
    for name, value in sets.items():
        if name not in defined:
            raise InputError(
                "SET",
                name,
                f"a Ramble variable of {study} on {system}; it has none named so "
                f"(hpcaas render {study} {system} writes them to the workspace's configs/ramble.yaml)",
            )
        choices = sorted(v.removeprefix(f"{name}_") for v in defined if v.startswith(f"{name}_"))
        if choices and value not in choices:
            raise InputError("SET", f"{name}={value}", f"{name} takes one of {', '.join(choices)}")


def scheduler_up(scheduler: str, system: str, env: dict):
    if scheduler == "slurm":
        if not shutil.which("sinfo", path=env.get("PATH")):
            raise InputError(f"configs/{system}/system.yaml", "scheduler", "slurm, whose sinfo is not on PATH here")
        proc = subprocess.run(["sinfo", "-h"], env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            hint = " on this machine run 'make slurm-up' first" if system == "local-slurm" else ""
            raise InputError(
                f"configs/{system}/system.yaml", "scheduler", f"slurm, but no Slurm answers (sinfo failed);{hint}"
            )
    elif scheduler != "local":
        raise InputError(
            f"configs/{system}/system.yaml",
            "scheduler",
            f"local or slurm to run here ({scheduler}: use 'make dry-run' to generate its job scripts)",
        )


def slurm_env(env: dict) -> dict:
    """The project's own Slurm (make slurm-up writes .slurm/env.sh) unless SLURM_CONF already
    names another cluster (a test's)."""
    conf = ROOT / ".slurm" / "env.sh"
    if env.get("SLURM_CONF") or not conf.is_file():
        return env
    exports = (re.fullmatch(r"export (\w+)=(.*)", line.strip()) for line in conf.read_text().splitlines())
    return {**env, **{m.group(1): m.group(2).strip("'\"") for m in exports if m}}


def unreachable(urls: dict) -> list:
    """{git url: (package, commit)} -> one line per url git cannot reach, with the mapping that fixes it."""
    out = []
    for url, (package, commit) in sorted(urls.items()):
        proc = subprocess.run(
            ["git", "ls-remote", "--exit-code", url, "HEAD"],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "GIT_TERMINAL_PROMPT": "0"},
        )
        if proc.returncode != 0:
            out.append(
                f"{package}: cannot reach {url} (commit {commit}); offline, map it to a mirror: "
                f"git config --global url.<mirror>.insteadOf {url}"
            )
    return out
