"""Each command on small tidy CSVs whose answers are known exactly."""

import io

import numpy as np
import pandas as pd
import pytest
from analysis_testkit import ROOT, cli, write

from analysis import best, compare, correlate, cost, files, published, repeats, scaling, table
from analysis.directions import HIGHER, LOWER
from analysis.errors import InputError

# Two systems, strong scaling on 1-4 nodes (ranks follow nodes), two repeats, one failed run.
RUNS = """\
experiment,system,application,mpi,nodes,ranks,metric,value,unit,status,repeat
e1.1,a,app,openmpi,1,64,time,100,s,SUCCESS,1
e1.2,a,app,openmpi,1,64,time,102,s,SUCCESS,2
e2.1,a,app,openmpi,2,128,time,52,s,SUCCESS,1
e2.2,a,app,openmpi,2,128,time,50,s,SUCCESS,2
e3.1,a,app,openmpi,4,256,time,,s,FAILED,1
e3.2,a,app,openmpi,4,256,time,30,s,SUCCESS,2
e4.1,a,app,mpich,1,64,time,90,s,SUCCESS,1
e4.2,a,app,mpich,1,64,time,90,s,SUCCESS,2
e5.1,a,app,mpich,2,128,time,45,s,SUCCESS,1
e5.2,a,app,mpich,2,128,time,45,s,SUCCESS,2
e6.1,b,app,openmpi,2,128,time,40,s,SUCCESS,1
e6.2,b,app,openmpi,2,128,time,40,s,SUCCESS,2
e7.1,b,app,openmpi,4,256,time,,s,FAILED,1
e7.2,b,app,openmpi,4,256,time,,s,FAILED,2
e1.1,a,app,openmpi,1,64,rate,10,ns/day,SUCCESS,1
e1.2,a,app,openmpi,1,64,rate,10,ns/day,SUCCESS,2
e2.1,a,app,openmpi,2,128,rate,18,ns/day,SUCCESS,1
e2.2,a,app,openmpi,2,128,rate,18,ns/day,SUCCESS,2
"""


@pytest.fixture
def runs(tmp_path):
    path = write(tmp_path, "runs.csv", RUNS)
    return files.read_results(path), path


def row(df, **where):
    mask = np.ones(len(df), dtype=bool)
    for col, value in where.items():
        mask &= (df[col] == value).to_numpy()
    assert mask.sum() == 1, where
    return df[mask].iloc[0]


def test_read_types(runs):
    df, _ = runs
    assert df["nodes"].dtype.name == "Int64" and df["repeat"].dtype.name == "Int64"
    assert df["value"].dtype == float and df["value"].isna().sum() == 3


def test_scaling_relative_to_the_smallest_node_count_per_group(runs):
    df, path = runs
    out = scaling.scaling(df, "time", LOWER, path)
    assert "ranks" in out.columns  # follows nodes: carried, not a group
    a2 = row(out, system="a", mpi="openmpi", nodes=2)
    assert a2["value"] == 51 and a2["n"] == 2
    assert a2["speedup"] == pytest.approx(101 / 51)
    assert a2["parallel_efficiency"] == pytest.approx(101 / 51 / 2 * 100)
    a4 = row(out, system="a", mpi="openmpi", nodes=4)
    assert a4["value"] == 30 and a4["n"] == 1  # the failed repeat is not averaged
    assert a4["speedup"] == pytest.approx(101 / 30)
    b = row(out, system="b", nodes=2)  # b's smallest node count that ran is 2
    assert (b["base_nodes"], b["speedup"], b["parallel_efficiency"]) == (2, 1.0, 100.0)
    b4 = row(out, system="b", nodes=4)
    assert b4["status"] == "FAILED" and pd.isna(b4["speedup"]) and pd.isna(b4["value"])


def test_weak_scaling_and_rates(runs):
    df, path = runs
    weak = scaling.scaling(df, "time", LOWER, path, weak=True, by=["system", "mpi"])
    assert row(weak, system="a", mpi="openmpi", nodes=2)["parallel_efficiency"] == pytest.approx(101 / 51 * 100)
    assert row(weak, system="a", mpi="openmpi", nodes=2)["speedup"] == pytest.approx(101 / 51 * 2)
    rate = scaling.scaling(df, "rate", HIGHER, path)
    assert row(rate, nodes=2)["speedup"] == pytest.approx(1.8)
    assert row(rate, nodes=2)["parallel_efficiency"] == pytest.approx(90.0)


def test_compare_orients_the_ratio_so_above_one_means_b_is_better(runs):
    df, path = runs
    out = compare.compare(df, "time", "mpi", "openmpi", "mpich", LOWER, path)
    assert row(out, system="a", nodes=1)["ratio"] == pytest.approx(101 / 90)
    assert row(out, system="a", nodes=1)["better"] == "mpich"
    lone = row(out, system="a", nodes=4)
    assert pd.isna(lone["ratio"]) and lone["note"] == "no mpi=mpich row"
    higher = compare.compare(df.assign(value=df["value"]), "time", "mpi", "openmpi", "mpich", HIGHER, path)
    assert row(higher, system="a", nodes=1)["ratio"] == pytest.approx(90 / 101)


def test_best_per_group_and_margins(runs):
    df, path = runs
    out = best.best(df, "time", LOWER, path, by=["nodes"])
    one = row(out, nodes=1)
    assert (one["system"], one["mpi"], one["value"]) == ("a", "mpich", 90)
    assert one["margin_vs_next"] == pytest.approx(101 / 90) and one["runner_up"] == "system=a, mpi=openmpi"
    four = row(out, nodes=4)
    assert four["n_configs"] == 2 and four["n_failed"] == 1 and four["value"] == 30


def test_repeats_statistics(runs):
    df, path = runs
    out = repeats.repeats(df, path)
    a1 = row(out, system="a", mpi="openmpi", nodes=1, metric="time")
    assert (a1["n"], a1["mean"], a1["min"], a1["max"]) == (2, 101, 100, 102)
    assert a1["stdev"] == pytest.approx(np.sqrt(2)) and a1["cv"] == pytest.approx(np.sqrt(2) / 101)
    a4 = row(out, system="a", mpi="openmpi", nodes=4, metric="time")
    assert (a4["n"], a4["n_failed"]) == (1, 1) and pd.isna(a4["stdev"])


def test_table_marks_failed_cells(runs):
    df, path = runs
    out = table.table(df, "time", path)
    assert list(out.columns) == ["system", "mpi", "unit", "1", "2", "4"]
    b = out[out["system"] == "b"].iloc[0]
    assert b["2"] == 40 and b["4"] == "FAILED" and pd.isna(b["1"])


PRICES = """\
system,price_per_node_hour,currency,date,source
a,2.0,USD,2024-05-01,https://example.org/a
b,3.0,USD,2024-06-01,https://example.org/b
"""


def test_cost_per_run_and_per_dollar(tmp_path, runs):
    df, path = runs
    prices_path = write(tmp_path, "prices.csv", PRICES)
    prices = cost.prices_from_csv(prices_path)
    out = cost.cost(df, "time", prices, LOWER, path, prices_path)
    a1 = row(out, system="a", mpi="mpich", nodes=1)
    assert a1["cost"] == pytest.approx(2.0 * 1 * 90 / 3600)
    b2 = row(out, system="b", nodes=2)
    assert b2["cost"] == pytest.approx(3.0 * 2 * 40 / 3600)
    assert (b2["price_date"], b2["price_source"], b2["currency"]) == ("2024-06-01", "https://example.org/b", "USD")
    assert out["perf_per_dollar"].max() == 1.0
    assert a1["perf_per_dollar"] == 1.0  # 0.05 USD, the cheapest run
    assert b2["perf_per_dollar"] == pytest.approx((2.0 * 90) / (3.0 * 2 * 40))
    rate = cost.cost(df, "rate", prices, HIGHER, path, prices_path)
    assert row(rate, nodes=1)["perf_per_dollar"] == 1.0  # 10 / 2 per USD-hour beats 18 / 4
    assert row(rate, nodes=2)["perf_per_dollar"] == pytest.approx((18 / 4) / (10 / 2))
    assert row(rate, nodes=2)["cost_unit"] == "USD/h"


def test_cost_refuses_two_currencies(tmp_path, runs):
    df, path = runs
    prices_path = write(tmp_path, "prices.csv", PRICES.replace("3.0,USD", "3.0,EUR"))
    with pytest.raises(InputError) as err:
        cost.cost(df, "time", cost.prices_from_csv(prices_path), LOWER, path, prices_path)
    assert err.value.file == prices_path and err.value.key == "currency"


def test_correlate_with_system_traits(tmp_path):
    data = "system,nodes,metric,value,unit\n" + "".join(
        f"s{i},{n},gflops,{v},Gflops\n" for i, (n, v) in enumerate([(1, 2), (1, 4), (1, 6), (1, 9)])
    )
    data += "".join(f"s{i},2,gflops,{v},Gflops\n" for i, v in enumerate([4, 8, 12, 16]))
    path = write(tmp_path, "r.csv", data)
    traits = write(tmp_path, "t.csv", "system,peak,cores,name\ns0,1,10,x\ns1,2,10,y\ns2,3,10,z\ns3,4,10,w\n")
    out = correlate.correlate(files.read_results(path), "gflops", files.read_traits(traits), path, traits, by=["nodes"])
    assert list(out.columns) == ["nodes", "trait", "r", "n"]
    got = {(n, t): (r, k) for n, t, r, k in zip(out["nodes"], out["trait"], out["r"], out["n"])}
    assert got[(2, "peak")] == (pytest.approx(1.0), 4)
    x, y = np.array([1, 2, 3, 4]), np.array([2, 4, 6, 9])
    assert got[(1, "peak")][0] == pytest.approx(np.corrcoef(x, y)[0, 1])
    assert np.isnan(got[(1, "cores")][0])  # no spread: undefined, not a number
    assert "name" not in set(out["trait"])


# Two builds of one system at 1 node (PASC'19 Table 9's Dell EMC), one of the others each.
BUILDS = """\
system,variant,nodes,metric,value,unit
s0,,1,gflops,2,Gflops
s1,,1,gflops,4,Gflops
s2,fast,1,gflops,9,Gflops
s2,slow,1,gflops,5,Gflops
s0,,2,gflops,4,Gflops
s1,,2,gflops,8,Gflops
s2,slow,2,gflops,12,Gflops
"""
# A published table of another measurement: two MPIs on s0, two placements, paper labels.
LATENCIES = """\
source,table,system,mpi,configuration,metric,value,unit
p,T6,S zero,mpt,between nodes,latency,1,ms
p,T6,S zero,ompi,between nodes,latency,9,ms
p,T6,S one,mpt,between nodes,latency,2,ms
p,T6,S two,mpt,between nodes,latency,4,ms
p,T6,S two,mpt,within a node,latency,0.5,ms
"""


def test_correlate_filters_rows_and_takes_each_systems_best_build(tmp_path):
    path = write(tmp_path, "r.csv", BUILDS)
    traits = files.read_traits(write(tmp_path, "t.csv", "system,peak\ns0,1\ns1,2\ns2,3\n"))
    df = files.read_results(path)

    def r_at_1(**options):
        out = correlate.correlate(df, "gflops", traits, path, "t.csv", by=["nodes"], **options)
        return out.loc[out["nodes"] == 1, ["r", "n"]].iloc[0].tolist()

    x = np.array([1, 2, 3])
    assert r_at_1() == [pytest.approx(np.corrcoef([1, 2, 3, 3], [2, 4, 9, 5])[0, 1]), 4]  # two s2 points
    assert r_at_1(best=HIGHER) == [pytest.approx(np.corrcoef(x, [2, 4, 9])[0, 1]), 3]
    assert r_at_1(best=LOWER) == [pytest.approx(np.corrcoef(x, [2, 4, 5])[0, 1]), 3]
    assert r_at_1(where=correlate.parse_where(["variant!=slow"])) == r_at_1(best=HIGHER)
    out = correlate.correlate(df, "gflops", traits, path, "t", by=["nodes"], where=[("nodes", "=", "2")])
    assert out["nodes"].tolist() == [2] and out["r"].iloc[0] == pytest.approx(1.0)
    with pytest.raises(InputError) as err:
        correlate.correlate(df, "gflops", traits, path, "t", where=[("build", "=", "x")])
    assert err.value.key == "build"


def test_correlate_joins_traits_from_configs_and_a_published_table(tmp_path):
    """Each trait from the one source that has it: R_peak and STREAM from the systems' facts,
    latency from a tidy table whose rows --traits-where selects and whose labels map to ours."""
    systems = ["hpe-apollo70-thunderx2-edr", "sgi-icexa-broadwell-fdr", "cray-xc30-ivybridge-aries"]
    data = "system,nodes,metric,value,unit\n" + "".join(
        f"{s},1,gflops,{v},Gflops\n" for s, v in zip(systems, (3, 2, 1))
    )
    path = write(tmp_path, "r.csv", data)
    table = write(tmp_path, "lat.csv", LATENCIES)
    labels = correlate.parse_systems([f"S {w}={s}" for w, s in zip(("zero", "one", "two"), systems)])
    where = correlate.parse_where(["configuration=between nodes", "mpi!=ompi"], "--traits-where")
    traits = correlate.join_traits(
        [
            ("configs", correlate.from_configs(ROOT / "configs", systems + ["no-such-system"])),
            (table, files.read_traits(table, where=where, systems=labels)),
        ]
    )
    assert traits.set_index("system").loc[systems, "latency"].tolist() == [1, 2, 4]
    assert traits.set_index("system").loc[systems[0], "rpeak_node_gflops"] == pytest.approx(1126.4)
    names = ["rpeak_node_gflops", "memory_bandwidth.measured_gbs_per_node", "latency"]
    out = correlate.correlate(files.read_results(path), "gflops", traits, path, "t", names=names)
    assert out["trait"].tolist() == names and out["n"].tolist() == [3, 3, 3]
    assert out["r"].iloc[2] == pytest.approx(np.corrcoef([1, 2, 4], [3, 2, 1])[0, 1])
    with pytest.raises(InputError) as err:
        correlate.correlate(files.read_results(path), "gflops", traits, path, "t", names=["stream"])
    assert err.value.key == "stream" and "memory_bandwidth.measured_gbs_per_node" in err.value.expected
    with pytest.raises(InputError) as err:  # one trait, two sources: which one counts?
        correlate.join_traits([("a.csv", traits), ("b.csv", traits)])
    assert err.value.file == "b.csv" and err.value.key == "rpeak_node_gflops"


def test_correlate_command_line(tmp_path):
    path = write(tmp_path, "r.csv", BUILDS)
    one = write(tmp_path, "peak.csv", "system,peak\ns0,1\ns1,2\ns2,3\n")
    two = write(tmp_path, "lat.csv", LATENCIES)
    done = cli(
        "correlate", path, "--metric", "gflops", "--by", "nodes", "--best", "--traits", one, two,
        "--traits-where", "configuration=between nodes", "mpi!=ompi",
        "--traits-systems", "S zero=s0", "S one=s1", "S two=s2", "--trait", "latency", "peak",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = pd.read_csv(io.StringIO(done.stdout))
    assert out[["nodes", "trait", "n"]].values.tolist() == [
        [1, "latency", 3],
        [2, "latency", 3],
        [1, "peak", 3],
        [2, "peak", 3],
    ]
    bad = cli("correlate", path, "--metric", "gflops", "--traits", one, "--where", "nodes")
    assert bad.returncode == 2 and "--where: COLUMN=VALUE or COLUMN!=VALUE" in bad.stderr


def test_published_lists_cells_missing_on_either_side_and_converts_units(tmp_path):
    measured = write(tmp_path, "m.csv", "system,nodes,metric,value,unit\nx,1,t,1500,ms\nx,2,t,800,ms\nx,4,t,500,ms\n")
    reference = write(
        tmp_path,
        "p.csv",
        "source,table,system,nodes,metric,value,unit,printed,note\n"
        "p,T1,x,1,t,1.5,s,1.5s,\np,T1,x,2,t,0.75,s,0.75s,\n"
        "p,T1,x,8,t,,s,-,lost cell\n",
    )
    out = published.published(
        files.read_results(measured), files.read_results(reference, value_decimals=True), measured, reference
    )
    got = {n: (m, r, s) for n, m, r, s in zip(out["nodes"], out["measured"], out["ratio"], out["status"])}
    assert got[1][0] == pytest.approx(1.5) and got[1][2] == "both"
    assert got[2][1] == pytest.approx(0.8 / 0.75)
    assert got[4][2] == "missing_published"
    assert np.isnan(got[8][0]) and got[8][2] == "missing_measured"
    assert out.set_index("nodes").loc[8, "note"] == "lost cell"
    assert out.set_index("nodes").loc[1, "note"] == "measured in ms, converted to s"


def test_cli_markdown_output(runs):
    _, path = runs
    proc = cli("best", path, "--metric", "time", "--by", "nodes", "--format", "markdown")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("| system | application | mpi | nodes |") and lines[1].startswith("|---")
    assert len(lines) == 2 + 3


def test_prices_and_peaks_from_a_configs_folder(tmp_path):
    """configs/ is read through hpcaas.systems; only the systems in the results are loaded (a
    broken system the results do not name does not matter)."""
    import shutil

    from hpcaas import systems

    for name in ("aws-hpc7a-efa", "hpe-apollo70-thunderx2-edr"):
        shutil.copytree(systems.CONFIGS / name, tmp_path / name)
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "system.yaml").write_text("name: x\n")
    aws = systems.load_system(tmp_path / "aws-hpc7a-efa")
    price = aws["price_per_node_hour"]
    prices = cost.prices_from_configs(tmp_path, ["aws-hpc7a-efa", "hpe-apollo70-thunderx2-edr", "nowhere"])
    assert prices.to_dict("records") == [
        {
            "system": "aws-hpc7a-efa",
            "price_per_node_hour": price["value"],
            "currency": price["currency"],
            "date": str(price["date"]),
            "source": aws["sources"][price["source"]],
        }
    ]
    from analysis import rpeak

    peaks = rpeak.from_configs(tmp_path, ["hpe-apollo70-thunderx2-edr"])
    assert dict(zip(*peaks.to_dict("list").values())) == {"hpe-apollo70-thunderx2-edr": 2 * 32 * 2.2 * 8}


def test_cost_of_nodes_bought_per_build(tmp_path):
    """IJHPCA'19 Fig. 11: ns/day against the nodes' purchase price, a node with its GPU priced
    apart from one without (price_per_node and a variant column)."""
    path = write(
        tmp_path,
        "runs.csv",
        "system,variant,nodes,metric,value,unit,status\n"
        "d,cpu,1,rate,10,ns/day,SUCCESS\n"
        "d,gpu,1,rate,40,ns/day,SUCCESS\n"
        "d,gpu,2,rate,60,ns/day,SUCCESS\n",
    )
    prices_path = write(
        tmp_path,
        "prices.csv",
        "system,variant,price_per_node,currency,date,source\nd,cpu,2600,USD,2017-11,x\nd,gpu,3100,USD,2017-11,y\n",
    )
    out = cost.cost(files.read_results(path), "rate", cost.prices_from_csv(prices_path), HIGHER, path, prices_path)
    gpu2 = row(out, variant="gpu", nodes=2)
    assert gpu2["cost"] == 6200 and gpu2["cost_unit"] == "USD" and gpu2["price_source"] == "y"
    assert row(out, variant="cpu", nodes=1)["cost"] == 2600
    assert row(out, variant="gpu", nodes=1)["perf_per_dollar"] == 1.0
    assert gpu2["perf_per_dollar"] == pytest.approx((60 / 6200) / (40 / 3100))
    with pytest.raises(InputError) as err:  # a purchase price does not price a time
        times = files.read_results(path).assign(unit="s")
        cost.cost(times, "rate", cost.prices_from_csv(prices_path), LOWER, path, prices_path)
    assert err.value.key == "price_per_node"
