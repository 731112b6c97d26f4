"""A study's fidelity table (study.yaml `fidelity:`): one row per parameter, the value the study
renders on its paper system, the paper's words (or `silent:` with the reason for the choice),
and where the dry-run shows the value, so a changed value without a changed row fails.

    - parameter: compiler            # what the row is about (PARAMETERS)
      system: <paper system>         # optional: the row holds on that system only
      application: <app>             # optional: ... for that application only
      experiment: <regex>            # optional: ... for the experiments whose name matches (-cce-)
      value: cce@15.0.1              # the value, as the paper would state it
      paper: "short quote"           # the paper's words, and where they stand:
      where: "Table 4"
      silent: "what we chose, why"   # instead of paper/where, when the paper says nothing
      substitute: "why"              # the paper's software cannot be built; this is the nearest
      renders:                       # where the dry-run shows it (every experiment the row covers):
        spec: "%cce@15.0.1"          #   a substring of a Spack spec the experiment activates
        command: "-n 8 "             #   a substring of a line of its script
        env: {FI_PROVIDER: cxi}      #   variables its script sets
        submit: "--switches=1"       #   a substring of the line that submits it (batch_submit)
        experiments: 4               #   how many experiments the row covers

`hpcaas study fidelity STUDY SYSTEM WORKSPACE` checks a dry-run workspace against the rows.
"""

import re

from analysis.errors import InputError, listed

PARAMETERS = (
    "application",
    "version",
    "input",
    "size",
    "steps",
    "nodes",
    "ranks per node",
    "threads",
    "binding",
    "distribution",
    "compiler",
    "flags",
    "libraries",
    "mpi",
    "fabric",
    "file system",
    "launcher",
    "repeats",
    "target",
    "metric",
)
RENDERS = ("spec", "command", "env", "submit", "experiments")


def validate(rows, file, systems=()) -> list:
    """The rows, or InputError naming the row and key that is wrong. A row's system must be one
    of SYSTEMS (the study's paper systems): the dry-run check runs there and nowhere else."""
    for key, row in listed(rows, file, "fidelity", "a list of rows (hpcaas/fidelity.py)"):
        if "system" in row and row["system"] not in systems:
            raise InputError(file, f"{key}.system", f"one of the study's paper systems ({', '.join(systems)})")
        if row.get("parameter") not in PARAMETERS:
            raise InputError(file, f"{key}.parameter", f"one of {', '.join(PARAMETERS)}; got {row.get('parameter')!r}")
        if "value" not in row:
            raise InputError(file, f"{key}.value", "the value the study renders")
        quoted, silent = bool(row.get("paper")) and bool(row.get("where")), bool(row.get("silent"))
        if quoted == silent:
            raise InputError(file, key, "either the paper's words (paper + where) or silent: <why>, not both")
        try:
            re.compile(row.get("experiment", ""))
        except re.error as err:
            raise InputError(file, f"{key}.experiment", f"a regular expression ({err})") from None
        renders = row.get("renders")
        if not isinstance(renders, dict) or not renders or set(renders) - set(RENDERS):
            raise InputError(file, f"{key}.renders", f"where the dry-run shows the value: some of {', '.join(RENDERS)}")
    return rows


def paper_systems(doc: dict) -> list:
    """The systems a study's fidelity table describes: its paper system(s)."""
    systems = doc.get("paper_system") or []
    return list(systems) if isinstance(systems, list) else [systems]


def on(row: dict, system: str) -> bool:
    """Whether the row holds on `system` (a row without `system:` holds on every paper system)."""
    return row.get("system") in (None, system)


def holds(row: dict, system: str, application: str, name: str) -> bool:
    """Whether the row describes experiment `name` (Ramble's experiment name, without the
    application and workload) of `application` on `system`."""
    return (
        on(row, system)
        and row.get("application") in (None, application)
        and re.search(row.get("experiment", ""), name) is not None
    )


def check(rows, system, experiments) -> list:
    """What the dry-run (hpcaas.dryrun.read) does not show of the rows that hold on `system`:
    one line per failed row."""
    failures = []
    for i, row in enumerate(rows):
        if not on(row, system):
            continue
        covered = [e for e in experiments.values() if holds(row, system, e.application, e.name)]
        label = f"fidelity.{i} ({row['parameter']} = {row['value']})"
        renders = row["renders"]
        if "experiments" in renders and len(covered) != renders["experiments"]:
            failures.append(f"{label}: {len(covered)} experiments, the row says {renders['experiments']}")
        if not covered:
            failures.append(f"{label}: no experiment of {row.get('application', 'the study')} on {system}")
        for exp in covered:
            if "spec" in renders and not any(renders["spec"] in s for s in exp.specs):
                failures.append(f"{label}: {exp.key}: no spec with {renders['spec']!r} in {exp.specs}")
            if "command" in renders and not any(renders["command"] in line for line in exp.lines):
                failures.append(f"{label}: {exp.key}: no line with {renders['command']!r}")
            if "submit" in renders and renders["submit"] not in exp.submit:
                failures.append(f"{label}: {exp.key}: submitted by {exp.submit!r}, not with {renders['submit']!r}")
            for var, val in (renders.get("env") or {}).items():
                if exp.env.get(var) != str(val):
                    failures.append(f"{label}: {exp.key}: {var}={exp.env.get(var)!r}, the row says {val!r}")
    return failures
