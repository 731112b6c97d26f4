"""`cost`: performance per dollar from a dated price per node-hour.

For a time: a run costs price x nodes x hours, and performance per dollar is 1 / cost. For a
rate (ns/day, GFLOP/s): performance per dollar is rate / (price x nodes), per currency-hour.
perf_per_dollar is normalised so the best row of each group is 1. Each row carries the price it
used, with the price's currency, date and source, so a reader can tell how old the answer is."""

from pathlib import Path

import pandas as pd

from analysis import files, frame, units
from analysis.directions import LOWER
from analysis.errors import InputError

PRICE_COLUMNS = ["system", "price_per_node_hour", "currency", "date", "source"]


def prices_from_csv(path) -> pd.DataFrame:
    """system,price_per_node_hour,currency,date,source: one row per system."""
    prices = files.read_plain(path, required=PRICE_COLUMNS)
    name = "<stdin>" if str(path) == "-" else str(path)
    prices["price_per_node_hour"] = files.numbers(prices, "price_per_node_hour", name, allow_empty=False)
    if (prices["price_per_node_hour"] <= 0).any():
        line = int((prices["price_per_node_hour"] <= 0).to_numpy().argmax()) + 2
        raise InputError(name, "price_per_node_hour", f"a price above zero; line {line} is not")
    if prices["system"].duplicated().any():
        dup = prices.loc[prices["system"].duplicated(), "system"].iloc[0]
        raise InputError(name, "system", f"one price per system; {dup!r} appears more than once")
    return prices[PRICE_COLUMNS]


def prices_from_configs(configs_dir, names) -> pd.DataFrame:
    """The price_per_node_hour of configs/<name>/system.yaml for each system name that has a
    folder (only those: an unrelated broken system does not stop the costing)."""
    from hpcaas import systems  # lazily: it needs jsonschema and the configs tree

    rows = []
    for name in names:
        if not (Path(configs_dir) / name / "system.yaml").is_file():
            continue
        price = systems.price_per_node_hour(systems.load_system(Path(configs_dir) / name))
        if price:
            rows.append(
                {
                    "system": name,
                    "price_per_node_hour": float(price["value"]),
                    "currency": price["currency"],
                    "date": str(price["date"]),
                    "source": str(price["source"]),
                }
            )
    return pd.DataFrame(rows, columns=PRICE_COLUMNS)


def cost(df, metric, prices, direction, file, prices_file, by=()) -> pd.DataFrame:
    frame.require(df, ["system", "nodes"], file, "cost needs the system (for its price) and the node count")
    rows = frame.select_metric(df, metric, file)
    by = list(by)
    frame.require(rows, by, file, "a --by column")
    keys = frame.keys(rows, frame.varying(rows, frame.dimensions(rows)))
    agg = frame.aggregate(rows, keys, file)
    unit = agg["unit"].iloc[0]
    is_time = units.family(unit) == "time"
    if direction == LOWER and not is_time:
        raise InputError(
            file, "unit", f"a time (s, min, h, ...) or a higher-is-better rate for cost; " f"'{metric}' is in '{unit}'"
        )

    priced = agg.assign(system=agg["system"].astype(str)).merge(
        prices.rename(columns={"date": "price_date", "source": "price_source"}), on="system", how="left"
    )
    used = priced.loc[priced["price_per_node_hour"].notna(), "currency"].unique()
    if len(used) > 1:
        raise InputError(prices_file, "currency", f"one currency for the systems compared; got {', '.join(used)}")
    nodes = priced["nodes"].astype(float)
    per_hour = priced["price_per_node_hour"] * nodes
    if is_time:
        priced["cost"] = per_hour * units.to_base(priced["value"], unit, "h")
        priced["cost_unit"] = priced["currency"]
        perf = 1.0 / priced["cost"]
    else:
        priced["cost"] = per_hour
        priced["cost_unit"] = priced["currency"] + "/h"
        perf = priced["value"] / per_hour
    best = frame.group(priced.assign(_perf=perf), by)["_perf"].transform("max")
    priced["perf_per_dollar"] = perf / best
    missing = priced["price_per_node_hour"].isna()
    priced.loc[missing, "note"] = "no price for system " + priced.loc[missing, "system"]
    front = keys + ["metric", "value", "unit", "n", "status"]
    out = priced[
        front
        + [
            "price_per_node_hour",
            "currency",
            "price_date",
            "price_source",
            "cost",
            "cost_unit",
            "perf_per_dollar",
            "note",
        ]
    ]
    return frame.sort_natural(out, by + [k for k in keys if k not in by], rows).reset_index(drop=True)
