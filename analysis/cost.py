"""`cost`: performance per dollar from a dated price per node-hour, or per node bought.

For a time: a run costs price x nodes x hours, and performance per dollar is 1 / cost. For a
rate (ns/day, GFLOP/s): performance per dollar is rate / (price x nodes), per currency-hour.
A purchase price (price_per_node, IJHPCA'19 Fig. 11: 'The cost is multiplied by the
corresponding number of nodes') prices a rate only: cost = price x nodes, in the currency.
A prices file with a `variant` column prices each build of a system (a node with or without its
GPU) on its own.
perf_per_dollar is normalised so the best row of each group is 1. Each row carries the price it
used, with the price's currency, date and source, so a reader can tell how old the answer is."""

from pathlib import Path

import pandas as pd

from analysis import files, frame, units
from analysis.directions import LOWER
from analysis.errors import InputError

PRICE_COLUMNS = ["system", "price_per_node_hour", "currency", "date", "source"]
HOURLY, PURCHASE = "price_per_node_hour", "price_per_node"


def prices_from_csv(path) -> pd.DataFrame:
    """system,price_per_node_hour,currency,date,source: one row per system (per system and
    variant with a `variant` column); price_per_node instead for a node's purchase price."""
    prices = files.read_plain(path, required=["system", "currency", "date", "source"])
    name = "<stdin>" if str(path) == "-" else str(path)
    kinds = [c for c in (HOURLY, PURCHASE) if c in prices.columns]
    if len(kinds) != 1:
        raise InputError(name, HOURLY, f"one price column: {HOURLY} (a node-hour) or {PURCHASE} (a node bought)")
    price = kinds[0]
    prices[price] = files.numbers(prices, price, name, allow_empty=False)
    if (prices[price] <= 0).any():
        line = int((prices[price] <= 0).to_numpy().argmax()) + 2
        raise InputError(name, price, f"a price above zero; line {line} is not")
    on = ["system"] + (["variant"] if "variant" in prices.columns else [])
    if prices.duplicated(on).any():
        dup = prices.loc[prices.duplicated(on), on].iloc[0].tolist()
        raise InputError(name, on[-1], f"one price per {' and '.join(on)}; {dup!r} appears more than once")
    return prices[on + [price, "currency", "date", "source"]]


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

    price = HOURLY if HOURLY in prices.columns else PURCHASE
    if price == PURCHASE and is_time:
        raise InputError(prices_file, PURCHASE, f"a price per node-hour for a time ('{metric}' is in '{unit}')")
    on = ["system"] + (["variant"] if "variant" in prices.columns else [])
    frame.require(agg, on, file, "the columns the prices are given for")
    priced = agg.assign(**{c: agg[c].astype(str) for c in on}).merge(
        prices.astype({c: str for c in on}).rename(columns={"date": "price_date", "source": "price_source"}),
        on=on,
        how="left",
    )
    used = priced.loc[priced[price].notna(), "currency"].unique()
    if len(used) > 1:
        raise InputError(prices_file, "currency", f"one currency for the systems compared; got {', '.join(used)}")
    nodes = priced["nodes"].astype(float)
    per_hour = priced[price] * nodes
    if price == PURCHASE:
        priced["cost"] = per_hour
        priced["cost_unit"] = priced["currency"]
        perf = priced["value"] / per_hour
    elif is_time:
        priced["cost"] = per_hour * units.to_base(priced["value"], unit, "h")
        priced["cost_unit"] = priced["currency"]
        perf = 1.0 / priced["cost"]
    else:
        priced["cost"] = per_hour
        priced["cost_unit"] = priced["currency"] + "/h"
        perf = priced["value"] / per_hour
    best = frame.group(priced.assign(_perf=perf), by)["_perf"].transform("max")
    priced["perf_per_dollar"] = perf / best
    missing = priced[price].isna()
    priced.loc[missing, "note"] = priced.loc[missing, on].apply(
        lambda r: "no price for " + " ".join(f"{c} {r[c]}" for c in on), axis=1
    )
    front = keys + ["metric", "value", "unit", "n", "status"]
    out = priced[
        front
        + [
            price,
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
