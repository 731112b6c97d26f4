"""`rpeak`: theoretical peak per node from system facts, and results normalised by it.

R_peak per node = cores x clock (GHz) x DP FLOP/cycle (+ the GPUs' GFLOP/s), as PASC'19 Table 1
(ThunderX2: 64 x 2.2 x 8 = 1126.4 GFLOP/s). A run on N nodes has N x R_peak. Per metric:
  - a FLOP rate  -> percent_of_peak = rate / (N x R_peak) x 100 (HPCG: 2.7 % on ThunderX2);
  - a time       -> rpeak_x_time_pflop = time x N x R_peak: the peak work the nodes could have
                    done meanwhile (lower is better; compares time-to-solution across machines);
  - anything else -> per_rpeak_tflops = value / (N x R_peak in TFLOP/s)."""

from pathlib import Path

import numpy as np
import pandas as pd

from analysis import frame, units
from analysis.errors import InputError

# Trait columns that hold each fact, as configs, papers and hand-written CSVs name them.
CLOCK = ["base_clock_ghz", "clock_ghz", "processor_clock_speed", "cpu_frequency"]
CORES = ["cores_per_node", "cpu_cores"]
SOCKETS, CORES_PER_SOCKET = ["sockets"], ["cores_per_socket", "cores_per_processor"]
FLOPS = ["dp_flops_per_cycle"]
GPU = ["gpu_gflops"]
GIVEN = ["rpeak_node_gflops"]


def _column(table, names):
    for name in names:
        if name in table.columns:
            return pd.to_numeric(table[name].replace("", np.nan), errors="coerce")
    return None


def from_traits(traits, file) -> pd.DataFrame:
    """system, rpeak_node_gflops from a traits table (see CLOCK, CORES, FLOPS, GPU above)."""
    given = _column(traits, GIVEN)
    cores = _column(traits, CORES)
    if cores is None and _column(traits, SOCKETS) is not None and _column(traits, CORES_PER_SOCKET) is not None:
        cores = _column(traits, SOCKETS) * _column(traits, CORES_PER_SOCKET)
    clock, flops = _column(traits, CLOCK), _column(traits, FLOPS)
    if given is None:
        for found, names in ((cores, CORES + ["sockets x cores_per_socket"]), (clock, CLOCK), (flops, FLOPS)):
            if found is None:
                raise InputError(
                    file, names[0], f"a column of facts for R_peak (any of: {', '.join(names)}), " f"or {GIVEN[0]}"
                )
    known = cores is not None and clock is not None and flops is not None
    computed = cores * clock * flops if known else pd.Series(np.nan, index=traits.index)
    gpu = _column(traits, GPU)
    if gpu is not None:
        computed = computed + gpu.fillna(0)
    rpeak = given.fillna(computed) if given is not None else computed
    return pd.DataFrame({"system": traits["system"].astype(str), "rpeak_node_gflops": rpeak.astype(float)})


def from_configs(configs_dir, names=None, gpu="dp") -> pd.DataFrame:
    """R_peak per node of configs/<name>/system.yaml for the given system names (those with a
    folder), or of every system when names is None."""
    from hpcaas import systems  # lazily: it needs jsonschema and the configs tree

    if names is None:
        docs = systems.load_all(configs_dir)
    else:
        docs = {
            n: systems.load_system(Path(configs_dir) / n)
            for n in names
            if (Path(configs_dir) / n / "system.yaml").is_file()
        }
    rows = []
    for name, doc in docs.items():
        peak = systems.rpeak_per_node_gflops(doc) if gpu == "dp" else systems.rpeak_per_node_gflops(doc, gpu=gpu)
        rows.append({"system": name, "rpeak_node_gflops": float(peak)})
    return pd.DataFrame(rows, columns=["system", "rpeak_node_gflops"])


def rpeak(df, metric, peaks, file) -> pd.DataFrame:
    frame.require(df, ["system"], file, "R_peak is looked up by system")
    rows = frame.select_metric(df, metric, file)
    keys = frame.keys(rows, frame.varying(rows, frame.dimensions(rows)))
    agg = frame.aggregate(rows, keys, file)
    out = agg.assign(system=agg["system"].astype(str)).merge(peaks, on="system", how="left")
    nodes = out["nodes"].astype(float).fillna(1.0) if "nodes" in out.columns else 1.0
    out["rpeak_gflops"] = out["rpeak_node_gflops"] * nodes
    unit = str(out["unit"].iloc[0]) if len(out) else ""
    fam = units.family(unit)
    if fam == "flops":
        out["percent_of_peak"] = out["value"] * units.factor(unit, "gflops") / out["rpeak_gflops"] * 100
    elif fam == "time":
        out["rpeak_x_time_pflop"] = units.to_base(out["value"], unit, "s") * out["rpeak_gflops"] / 1e6
    else:
        out["per_rpeak_tflops"] = out["value"] / (out["rpeak_gflops"] / 1000)
    missing = out["rpeak_node_gflops"].isna()
    out.loc[missing, "note"] = "no R_peak facts for system " + out.loc[missing, "system"]
    return frame.sort_natural(out, [k for k in keys if frame.is_varying(out, k)], rows).reset_index(drop=True)
