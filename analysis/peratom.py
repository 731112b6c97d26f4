"""`per-atom-step`: the seconds one MD step takes per atom, IJHPCA'19's time-to-solution metric
("a time for one MD integration step (for the whole MD model or per atom)", Section 6): Fig. 8's
"time per atom per timestep" (LAMMPS) and Fig. 10's "seconds per 1 atom for 1 MD step" against
the declared peak performance (GROMACS), from each run's own FOMs:

  - a time over the run's steps (LAMMPS' Loop time with its Steps and Atoms):
        time / (steps x atoms);
  - a rate of simulated time (GROMACS' ns/day with its time step in ps and Atoms):
        86400 s x time step (ns) / rate / atoms.

Each run's value comes from its own FOMs (the rows that share its configuration and repeat), then
repeats are averaged. With R_peak per node (rpeak.from_configs), the rows carry Fig. 10's x axis,
the peak of the nodes used: rpeak_gflops = nodes x R_peak per node."""

import numpy as np
import pandas as pd

from analysis import frame, units
from analysis.errors import InputError

METRIC, UNIT = "Seconds per atom per step", "s"
_SECONDS_PER_DAY = 86400.0


def _per_run(df, metric, file) -> tuple:
    """One metric's rows (categories as text, so two metrics' rows join), and the columns that
    key a run: its configuration and repeat."""
    rows = frame.select_metric(df, metric, file)
    config = [c for c in frame.dimensions(rows) if c != "context"]
    frame.check_duplicates(rows, config, file)
    keys = config + (["repeat"] if "repeat" in rows.columns else [])
    return frame.as_text(rows, keys), keys


def per_atom_step(df, metric, atoms, file, steps=None, timestep=None, peaks=None) -> pd.DataFrame:
    if (steps is None) == (timestep is None):
        raise InputError(
            file, "--steps/--timestep", "one of them: the run's step count (a time metric) or time step (ns/day)"
        )
    rows, keys = _per_run(df, metric, file)
    unit = str(rows["unit"].iloc[0])
    per, per_unit = (steps, None) if steps is not None else (timestep, "ps")
    if steps is not None and units.family(unit) != "time":
        raise InputError(file, "unit", f"a time for --metric with --steps (s, ms, ...); '{metric}' is in {unit}")
    if timestep is not None and unit.replace(" ", "").lower() != "ns/day":
        raise InputError(file, "unit", f"ns/day for --metric with --timestep; '{metric}' is in {unit}")
    run = rows[keys + ["value"] + (["status"] if "status" in rows.columns else [])].copy()
    for name, column, want in ((atoms, "_atoms", None), (per, "_per", per_unit)):
        other, _ = _per_run(df, name, file)
        if want is not None and str(other["unit"].iloc[0]).strip().lower() != want:
            raise InputError(file, "unit", f"{want} for '{name}'; it is in {other['unit'].iloc[0]}")
        good = other[frame.ok(other)]
        run = run.merge(good[keys + ["value"]].rename(columns={"value": column}), on=keys, how="left")
    if steps is not None:
        seconds = units.to_base(run["value"], unit, "s") / run["_per"]
    else:
        seconds = _SECONDS_PER_DAY * run["_per"] * 1e-3 / run["value"]
    run["value"] = (seconds / run["_atoms"]).replace([np.inf, -np.inf], np.nan)
    lacking = run["_atoms"].isna() | run["_per"].isna()
    run = run.drop(columns=["_atoms", "_per"]).assign(metric=METRIC, unit=UNIT)
    if "status" not in run.columns:
        run["status"] = ""
    run.loc[lacking & run["status"].isin([frame.SUCCESS, ""]), "status_reason"] = f"no {atoms} or {per} FOM"
    run.loc[lacking, "value"] = np.nan
    varying = frame.varying(run, [k for k in keys if k != "repeat"])
    out = frame.aggregate(run, frame.keys(run, varying), file)
    if peaks is not None:
        if "system" not in out.columns:
            raise InputError(file, "system", "a system column: R_peak is looked up by system")
        out = out.assign(system=out["system"].astype(str)).merge(peaks, on="system", how="left")
        nodes = out["nodes"].astype(float) if "nodes" in out.columns else 1.0
        out["rpeak_gflops"] = out["rpeak_node_gflops"] * nodes
        out = out.drop(columns="rpeak_node_gflops")
    return frame.sort_natural(out, [k for k in varying if frame.is_varying(out, k)], rows).reset_index(drop=True)
