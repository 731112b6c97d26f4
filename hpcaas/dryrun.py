"""What a generated workspace (`ramble workspace setup --dry-run`, scripts/dry-run.sh) holds, per
experiment: its script's lines, the environment it sets, and the Spack specs it activates.
Used by the fidelity check and the dry-run tests, so both read a workspace the same way."""

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
    for script in sorted((ws / "experiments").glob("*/*/*/execute_experiment")):
        app, workload, name = script.parent.relative_to(ws / "experiments").parts
        text = script.read_text()
        lines = [REDIRECT.sub("", line) for line in text.splitlines()]
        specs = []
        active = re.search(r"^spack env activate (\S+)$", text, re.M)
        if active and (Path(active.group(1)) / "spack.yaml").exists():
            specs = yaml.safe_load((Path(active.group(1)) / "spack.yaml").read_text())["spack"]["specs"]
        exp = Experiment(app, workload, name, text, lines, _env(lines), [str(s) for s in specs])
        out[exp.key] = exp
    return out
