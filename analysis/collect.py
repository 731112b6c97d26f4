"""`collect`: a Ramble workspace's results as tidy rows, one per figure of merit, with the
experiment's configuration and the provenance that makes each number traceable.

Reads <workspace>/results.latest.json, written by `ramble workspace analyze -f json` (Ramble
e2d88e88: workspace.dump_results, experiment_result.ExperimentResult.to_dict). Each experiment
has name, RAMBLE_STATUS, N_REPEATS, its key-level variables (n_nodes, application_name, ...) at
the top, the other expanded variables in RAMBLE_VARIABLES, and CONTEXTS of FOMs. Repeats of an
experiment are experiments named '<base>.<n>' (repeat_index n); the base carries only summary
statistics ('summary::mean', ...), which `repeats` recomputes from the repeats themselves.
"""

import datetime
import hashlib
import json
import math
import subprocess
from pathlib import Path

import pandas as pd

from analysis.errors import InputError
from analysis.frame import FAILED, SUCCESS
from analysis.schema import DIMENSIONS, EXTRA_COLUMNS, NUMERIC_DIMENSIONS, RESULT_COLUMNS

RESULTS_FILE = "results.latest.json"

#: Dimension <- the Ramble variable it comes from, where the names differ.
RAMBLE_NAMES = {
    "application": "application_name",
    "workload": "workload_name",
    "nodes": "n_nodes",
    "ranks": "n_ranks",
    "threads": "n_threads",
}

NULL_CONTEXT = "null"  # Ramble's context of FOMs that declare none
SUMMARY = "summary::"  # origin_type prefix of the statistics Ramble adds to a repeat base
COLUMNS = RESULT_COLUMNS + EXTRA_COLUMNS


# --------------------------------------------------------------------------- the JSON


def load(workspace):
    """(results document, its path) of a workspace folder."""
    ws = Path(workspace)
    if not ws.is_dir():
        raise InputError(ws, "(workspace)", "a Ramble workspace folder")
    file = ws / RESULTS_FILE
    if not file.is_file():
        raise InputError(file, "(file)", f"Ramble's results: run `ramble -D {ws} workspace analyze -f json` first")
    try:
        doc = json.loads(file.read_text())
    except json.JSONDecodeError as err:
        raise InputError(file, f"line {err.lineno}", f"valid JSON ({err.msg})") from None
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(file, "(file)", f"a readable UTF-8 file ({err})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("experiments"), list):
        raise InputError(file, "experiments", "a list of experiments (Ramble results JSON)")
    return doc, file


def _whole(value, file, key):
    if value in (None, ""):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number) or number != int(number):
        raise InputError(file, key, f"a whole number; got {value!r}")
    return int(number)


def _finite(value):
    """The FOM value as a float, or None when it is not a finite number."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


class _Experiment:
    """One entry of results['experiments'], validated and read."""

    def __init__(self, exp, index, file):
        where = f"experiments[{index}]"
        if not isinstance(exp, dict) or not isinstance(exp.get("name"), str):
            raise InputError(file, f"{where}.name", "the experiment's name (a string)")
        self.name = exp["name"]
        where = f"experiments[{index}] ({self.name})"
        if "RAMBLE_STATUS" not in exp:
            raise InputError(file, f"{where}.RAMBLE_STATUS", "the experiment's status (SUCCESS, FAILED, ...)")
        self.status = str(exp["RAMBLE_STATUS"])
        variables = exp.get("RAMBLE_VARIABLES") or {}
        if not isinstance(variables, dict):
            raise InputError(file, f"{where}.RAMBLE_VARIABLES", "a mapping of variable names to values")

        def lookup(var):
            return exp[var] if var in exp else variables.get(var)

        self.dims = {}
        for dim in DIMENSIONS:
            var = RAMBLE_NAMES.get(dim, dim)
            raw = lookup(var)
            if dim in NUMERIC_DIMENSIONS:
                self.dims[dim] = _whole(raw, file, f"{where}.{var}")
            else:
                self.dims[dim] = "" if raw is None else str(raw)
        self.repeat = _whole(lookup("repeat_index"), file, f"{where}.repeat_index") or 0
        self.n_repeats = _whole(exp.get("N_REPEATS", 0), file, f"{where}.N_REPEATS") or 0
        self.foms = list(self._foms(exp.get("CONTEXTS") or [], file, where))

    @staticmethod
    def _foms(contexts, file, where):
        """(context, metric, unit, raw value, origin_type) of every FOM."""
        if not isinstance(contexts, list):
            raise InputError(file, f"{where}.CONTEXTS", "a list of contexts")
        for c, context in enumerate(contexts):
            if not isinstance(context, dict) or not isinstance(context.get("foms", []), list):
                raise InputError(file, f"{where}.CONTEXTS[{c}]", "a context with a list of foms")
            name = str(context.get("name", NULL_CONTEXT))
            for f, fom in enumerate(context.get("foms", [])):
                if not isinstance(fom, dict) or "name" not in fom or "value" not in fom:
                    raise InputError(file, f"{where}.CONTEXTS[{c}].foms[{f}]", "a FOM with name and value")
                metric = str(fom["name"])
                if fom.get("origin_type") == "modifier":  # Ramble's own spelling in results.txt
                    metric = f"modifier::{fom.get('origin')}::{metric}"
                yield (
                    "" if name == NULL_CONTEXT else name,
                    metric,
                    str(fom.get("units", "") or ""),
                    fom["value"],
                    str(fom.get("origin_type", "")),
                )


# --------------------------------------------------------------------------- rows


def _measurements(exp, has_repeats):
    """(status, reason, [(context, metric, unit, value or None)]) of one experiment."""
    if exp.n_repeats > 0:
        if has_repeats:
            return None  # the repeats are in the file: `repeats` computes the statistics
        foms = [(c, m, u, v) for c, m, u, v, origin in exp.foms if origin == SUMMARY + "mean"]
        reason = f"mean of {exp.n_repeats} repeats (Ramble's summary; the repeats are not in the file)"
    else:
        foms = [(c, m, u, v) for c, m, u, v, origin in exp.foms if not origin.startswith(SUMMARY)]
        reason = ""
    status = exp.status
    if status == SUCCESS and not foms:
        status, reason = FAILED, "no figure of merit in Ramble's results"
    if status == SUCCESS:
        for _, metric, _, raw in foms:
            if _finite(raw) is None:
                status, reason = FAILED, f"figure of merit '{metric}' is not a finite number ({raw!r})"
                break
    if status != SUCCESS:
        why = ": success criteria not met or no figure of merit found" if exp.status == FAILED else ""
        reason = reason or f"Ramble status {exp.status}{why}"
        return FAILED, reason, [(c, m, u, None) for c, m, u, _ in foms]
    return SUCCESS, reason, [(c, m, u, _finite(v)) for c, m, u, v in foms]


def tidy(doc, file) -> pd.DataFrame:
    """Rows of a results document (no provenance yet). A failed experiment gets one row, with
    no value, per FOM its successful siblings (same application and workload) report, or one
    row with no metric when there are none to go by."""
    experiments = [_Experiment(e, i, file) for i, e in enumerate(doc["experiments"])]
    names = {e.name for e in experiments}
    measured = []
    expected = {}  # (application, workload) -> {(context, metric): unit}
    for exp in experiments:
        has_repeats = any(f"{exp.name}.{n}" in names for n in range(1, exp.n_repeats + 1))
        result = _measurements(exp, has_repeats)
        if result is None:
            continue
        measured.append((exp, result))
        if result[0] == SUCCESS:
            known = expected.setdefault((exp.dims["application"], exp.dims["workload"]), {})
            for context, metric, unit, _ in result[2]:
                known.setdefault((context, metric), unit)
    rows = []
    for exp, (status, reason, foms) in measured:
        if status != SUCCESS:
            seen = {(c, m) for c, m, _, _ in foms}
            siblings = expected.get((exp.dims["application"], exp.dims["workload"]), {})
            foms = foms + [(c, m, u, None) for (c, m), u in siblings.items() if (c, m) not in seen]
            foms = foms or [("", "", "", None)]
        for context, metric, unit, value in foms:
            rows.append(
                {
                    "experiment": exp.name,
                    **exp.dims,
                    "metric": metric,
                    "value": value,
                    "unit": unit,
                    "status": status,
                    "repeat": exp.repeat,
                    "context": context,
                    "status_reason": reason,
                }
            )
    df = pd.DataFrame(rows, columns=COLUMNS)
    for col in NUMERIC_DIMENSIONS + ["repeat"]:
        df[col] = df[col].astype("Int64")
    df["value"] = df["value"].astype(float)
    return df


# --------------------------------------------------------------------------- provenance


def spack_lock_hash(workspace) -> str:
    """sha256 of the workspace's Spack lock files (software/*/spack.lock, in sorted path order,
    concatenated); '' when the workspace has none."""
    files = sorted(Path(workspace).glob("software/*/spack.lock"))
    if not files:
        return ""
    digest = hashlib.sha256()
    for f in files:
        digest.update(f.read_bytes())
    return digest.hexdigest()


def project_commit(cwd=".") -> str:
    proc = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else ""


def spack_inputs_hash(configs_dir, system) -> str:
    """The hash of the system's Spack inputs (hpcaas.spack_inputs); '' without its folder."""
    from hpcaas.spack_inputs import inputs_hash  # lazily: the project tree, not the analysis

    if not system or not (Path(configs_dir) / system / "spack").is_dir():
        return ""
    return inputs_hash(system, configs=configs_dir)


def results_timestamp(file) -> str:
    """When Ramble wrote the results (the file's mtime), ISO-8601 UTC: collecting twice gives
    the same rows."""
    mtime = Path(file).stat().st_mtime
    return datetime.datetime.fromtimestamp(mtime, tz=datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


JOB_COLUMNS = ("name", "job_id", "state", "exit_code", "signal")


def failed_jobs(jobs_csv) -> dict:
    """{experiment: reason} for every job of a scheduler job-statistics CSV (slurm/wait-jobs.py
    --csv; the job name is the experiment's namespace) that did not end COMPLETED with exit 0.
    Ramble judges a run by its output only: a job killed after its last line, or exiting nonzero,
    would otherwise pass."""
    jobs = pd.read_csv(jobs_csv, dtype=str, keep_default_na=False)
    missing = [c for c in JOB_COLUMNS if c not in jobs.columns]
    if missing:
        raise InputError(jobs_csv, missing[0], "a column of slurm/wait-jobs.py --csv (job statistics)")
    bad = {}
    for job in jobs.itertuples():
        if job.state != "COMPLETED" or job.exit_code not in ("0", ""):
            bad[job.name] = (
                f"{job.name}: scheduler job {job.job_id} ended {job.state} "
                f"(exit {job.exit_code or '?'}, signal {job.signal or 0})"
            )
    return bad


def collect(
    workspace, configs_dir="configs", spack_lock=None, commit=None, inputs_hash=None, cwd=".", jobs=None
) -> pd.DataFrame:
    """The tidy CSV rows of a workspace, provenance included (given values win over computed).
    With `jobs` (a job-statistics CSV), experiments whose job failed are FAILED too."""
    doc, file = load(workspace)
    df = tidy(doc, file)
    if jobs is not None:
        for name, reason in failed_jobs(jobs).items():
            hit = df["experiment"] == name
            if hit.any() and (df.loc[hit, "status"] == SUCCESS).all():
                df.loc[hit, ["status", "status_reason", "value"]] = [FAILED, reason, float("nan")]
            elif hit.any():
                df.loc[hit, "status_reason"] = df.loc[hit, "status_reason"] + "; " + reason
    df["spack_lock_hash"] = spack_lock if spack_lock is not None else spack_lock_hash(workspace)
    df["project_commit"] = commit if commit is not None else project_commit(cwd)
    if inputs_hash is not None:
        df["spack_inputs_hash"] = inputs_hash
    else:
        hashes = {s: spack_inputs_hash(configs_dir, s) for s in df["system"].unique()}
        df["spack_inputs_hash"] = df["system"].map(hashes).fillna("")
    df["timestamp"] = results_timestamp(file)
    return df[COLUMNS]
