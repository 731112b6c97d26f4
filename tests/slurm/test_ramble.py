"""The local-slurm system's Ramble pieces for real: a workspace with local-slurm's variables (its
own and the derived ones) and the Slurm job script as execute_experiment.tpl; `ramble on`
submits with sbatch, slurm/wait-jobs.py waits for the workspace's jobs, then Ramble analyses."""

import json

import yaml
from slurm_helpers import ROOT, SLURM, Cluster
from testkit import run

from hpcaas.systems import ramble_config


def test_ramble_on_submits_to_slurm_and_the_jobs_complete(project, slurm_cluster: Cluster, tmp_path):
    ws = tmp_path / "ws"
    (ws / "configs").mkdir(parents=True)
    conf = ramble_config(ROOT / "configs" / "local-slurm")
    (ws / "configs" / "execute_experiment.tpl").write_text(conf["template"])
    (ws / "configs" / "ramble.yaml").write_text(
        yaml.safe_dump(
            {
                "ramble": {
                    "variants": {"package_manager": None},
                    # hostname is no MPI program: srun --mpi=none, whatever `mpi` would pick. One rank per
                    # node, however many cores this machine gives each emulated node.
                    "variables": {**conf["variables"], "slurm_mpi_plugin": "none", "processes_per_node": "1"},
                    "applications": {
                        "hostname": {
                            "workloads": {
                                "parallel": {"experiments": {"hn-{n_nodes}n": {"variables": {"n_nodes": ["1", "2"]}}}}
                            }
                        }
                    },
                    "software": {"packages": {}, "environments": {}},
                }
            }
        )
    )
    env = {k: v for k, v in slurm_cluster.env.items() if k.startswith(("SLURM_", "HPCAAS_SLURM_"))}
    run(f"ramble -D {ws} workspace setup", env=env, timeout=300)
    script = (ws / "experiments/hostname/parallel/hn-2n/execute_experiment").read_text()
    assert "#SBATCH --nodes=2" in script and "#SBATCH --ntasks=2" in script
    assert "srun --mpi=none -N 2 -n 2 -c 1" in script and "OMPI_MCA_btl=self,tcp" in script

    on = run(f"ramble -D {ws} on", env=env, timeout=300)
    assert on.stdout.count("Submitted batch job") == 2, on.stdout
    wait = slurm_cluster.run(
        SLURM / "wait-jobs.py", "--workdir", ws, "--timeout", "120", "--csv", tmp_path / "jobs.csv"
    )
    assert sorted(line.split()[3] for line in wait.stdout.splitlines()) == [
        "hostname.parallel.hn-1n",
        "hostname.parallel.hn-2n",
    ]
    assert all(line.split()[1] == "COMPLETED" for line in wait.stdout.splitlines())
    rows = (tmp_path / "jobs.csv").read_text().splitlines()
    assert len(rows) == 3 and "n[1-2]" in rows[-1] + rows[-2]

    run(f"ramble -D {ws} workspace analyze -f json", env=env, timeout=300)
    results = json.loads((ws / "results.latest.json").read_text())
    status = {e["name"]: e["RAMBLE_STATUS"] for e in results["experiments"]}
    assert status == {"hostname.parallel.hn-1n": "SUCCESS", "hostname.parallel.hn-2n": "SUCCESS"}
    assert (ws / "experiments/hostname/parallel/hn-2n/hn-2n.out").read_text().count("\n") == 2
