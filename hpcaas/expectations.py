"""tests/studies/<study>.yaml, regenerated from the studies' dry-runs on their paper systems.

Each file says, per paper system, what the generated workspace must contain (tests/studies/
test_dry_run.py reads it): the experiment count, optionally every experiment's name, and for the
experiments the author picked, launch lines, environment and Spack spec. After a deliberate change
to a study, `make expectations` writes what the dry-runs now generate for the same picks and prints
the difference, to read before committing; `make expectations CHECK=1` only prints it (exit 1 when
a file would change).

    hpcaas study expectations [--write] [STUDY ...]
"""

import contextlib
import difflib
import sys
from pathlib import Path

import yaml

from hpcaas import dryrun
from hpcaas.paths import ROOT

FOLDER = ROOT / "tests" / "studies"


def _placeholders(text: str, ws: Path) -> str:
    return text.replace(str(ws), "{ws}").replace(str(ROOT), "{root}")


def _closest(old: str, candidates: list) -> str:
    """The candidate most like the old value (the line or spec that took its place)."""
    return max(candidates, key=lambda c: difflib.SequenceMatcher(None, old, c).ratio()) if candidates else old


def _script(checks: dict, exp, ws: Path) -> dict:
    lines = [_placeholders(line, ws) for line in exp.lines]
    out = {}
    for key, want in checks.items():
        if key == "command":
            found = [_closest(c, lines) for c in (want if isinstance(want, list) else [want])]
            out[key] = found if isinstance(want, list) else found[0]
        elif key == "env":
            out[key] = {var: exp.env[var] for var in want if var in exp.env}
        elif key == "spec":
            out[key] = _closest(want, exp.specs)
        elif key == "submit":
            out[key] = _placeholders(exp.submit, ws)
    return out


def regenerate(study: str, generate=None) -> str:
    """The text tests/studies/<study>.yaml should have now (its header comment kept)."""
    generate = generate or (lambda s, y: __import__("hpcaas.run.dryrun", fromlist=["generate"]).generate(s, y))
    file = FOLDER / f"{study}.yaml"
    text = file.read_text()
    header = "".join(line + "\n" for line in text.splitlines() if line.startswith("#"))
    new = {}
    for system, want in (yaml.safe_load(text) or {}).items():
        ws = generate(study, system)
        exps = dryrun.read(ws)
        entry = {"count": len(exps)}
        if "experiments" in want:
            entry["experiments"] = sorted(exps)
        if "scripts" in want:
            entry["scripts"] = {n: _script(c, exps[n], ws) for n, c in want["scripts"].items() if n in exps}
        new[system] = entry
    return header + yaml.safe_dump(new, sort_keys=False, width=1000)


def main(studies: list, write: bool) -> int:
    changed = 0
    for study in studies or sorted(p.stem for p in FOLDER.glob("*.yaml")):
        file = FOLDER / f"{study}.yaml"
        with contextlib.redirect_stdout(sys.stderr):  # the dry-runs' progress; stdout is the difference
            new = regenerate(study)
        old = file.read_text()
        if yaml.safe_load(old) == yaml.safe_load(new):
            continue
        changed += 1
        rel = str(file.relative_to(ROOT))
        sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True), rel, rel + " (now)"))
        if write:
            file.write_text(new)
    print(f"{changed} expectation file(s) {'rewritten' if write else 'would change'}", file=sys.stderr)
    return 1 if changed and not write else 0
