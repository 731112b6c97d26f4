"""Spack and Ramble as the project's commands run them: the environment setup-env.sh makes
(pinned tools on PATH, Spack's and Ramble's configuration inside the project), each command's
output kept in the run's log and passed line by line to a progress printer.

Spack's user scope is left empty here: the system's Spack configuration reaches Spack through
the environment being solved (environments/<study>/<system>/spack.yaml includes it) or through
the Ramble workspace (`config:spack:global:flags: -C configs/<system>/spack`, hpcaas render),
never twice."""

import os
import subprocess
from functools import cache
from pathlib import Path

from hpcaas.paths import ROOT


class ToolError(RuntimeError):
    """A Spack or Ramble command failed; the message names it and where its output is."""


@cache
def _setup_env() -> dict:
    script = ROOT / "setup-env.sh"
    if not script.is_file():
        raise ToolError(f"{script} is missing: run 'make setup' first")
    proc = subprocess.run(
        ["bash", "-c", '. "$1" >/dev/null && env -0', "bash", str(script)],
        capture_output=True,
        env={k: v for k, v in os.environ.items() if k != "HPCAAS_SYSTEM"},
        check=False,
    )
    if proc.returncode != 0:
        raise ToolError(f"{script}: sourcing it failed: {proc.stderr.decode(errors='replace').strip()}")
    pairs = (item.split("=", 1) for item in proc.stdout.decode().split("\0") if "=" in item)
    return dict(pairs)


def environment(**extra) -> dict:
    """The environment for Spack and Ramble: setup-env.sh's, with no system's Spack scope."""
    env = dict(_setup_env())
    env["SPACK_USER_CONFIG_PATH"] = str(Path(env["HPCAAS_CACHE"]) / "spack" / "no-system")
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run(cmd: list, log=None, on_line=None, cwd=None, env=None, check=True) -> int:
    """Run cmd; its output goes to `log` (a file opened for appending) and, line by line, to
    on_line. Raises ToolError when check and it fails."""
    env = env or environment()
    if log is not None:
        log.write(f"$ {' '.join(map(str, cmd))}\n")
        log.flush()
    proc = subprocess.Popen(
        [str(c) for c in cmd],
        cwd=cwd or ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        bufsize=1,
    )
    for line in proc.stdout:
        if log is not None:
            log.write(line)
        if on_line is not None:
            on_line(line.rstrip("\n"))
    rc = proc.wait()
    if log is not None:
        log.flush()
    if check and rc != 0:
        where = f" (its output: {log.name})" if log is not None else ""
        raise ToolError(f"{' '.join(map(str, cmd[:4]))}... failed with exit status {rc}{where}")
    return rc


def output(cmd: list, env=None, cwd=None) -> str:
    """stdout of a short command (a query such as `ramble config get`); ToolError on failure."""
    proc = subprocess.run(
        [str(c) for c in cmd], cwd=cwd or ROOT, env=env or environment(), capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise ToolError(f"{' '.join(map(str, cmd))}: {(proc.stderr or proc.stdout).strip()[-2000:]}")
    return proc.stdout
