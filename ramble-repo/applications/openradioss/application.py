import os

from ramble.appkit import *

# OpenRadioss numbers print as ".2620E+01" or "0.45".
NUM = r"[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?"


class Openradioss(ExecutableApplication):
    """OpenRadioss explicit crash simulation for S1 (HPCaaS-Bench T6: MPI x fabric x file system,
    1-14 nodes of 28 ranks x 4 threads, the NEON 1M-element frontal crash to 80 ms).

    A run is two programs: the starter reads <run>_0000.rad and splits the model into one domain
    per MPI rank, then the engine runs <run>_0001.rad on those ranks, each with n_threads OpenMP
    threads. The engine writes its listing to <run>_0001.out (the file the figures of merit and
    the success criteria read) and ends it with NORMAL TERMINATION or ERROR TERMINATION.
    """

    name = "openradioss"

    maintainers("hpcaas-bench")

    tags("crash", "explicit", "fem")

    define_compiler("gcc12", pkg_spec="gcc@12.2.0", package_manager="spack*")
    software_spec("openradioss", pkg_spec="openradioss@20230701 +mpi", compiler="gcc12",
                  package_manager="spack*")
    required_package("openradioss", package_manager="spack*")

    # sha256 from the Phoronix Test Suite profile pts/openradioss-1.1.1 (downloads.xml), which
    # fetches the same attachment; openradioss.org publishes none.
    input_file(
        "neon_1m",
        url="https://openradioss.atlassian.net/wiki/download/attachments/47546369/Neon1m11_2017.zip?api=v2",
        sha256="0077444173c51600f5d733fed3735e180fc7ed0eda18b3c615c17837322f9aaa",
        extension="zip",
        description="NEON 1M-element frontal crash (Neon1m11_2017.zip: NEON1M11_0000.rad, "
                    "NEON1M11_0001.rad), from openradioss.org's HPC benchmark models. Offline: save it "
                    "as <mirror>/openradioss/neon_1m.zip in a Ramble mirror (ramble mirror add)",
    )

    executable("copy-inputs", template=["cp {input_path}/{run_name}_0000.rad {input_path}/{run_name}_0001.rad "
                                        "{experiment_run_dir}/"], use_mpi=False)
    # The Phoronix profile shortens the run the same way (0.08 -> 0.008 s): the engine file's
    # /RUN card carries the final time.
    executable("set-end-time", template=['sed -i "s/{deck_end_time}/{end_time}/g" '
                                         "{experiment_run_dir}/{run_name}_0001.rad"], use_mpi=False)
    executable("starter", "{starter_exe} -i {run_name}_0000.rad -np {n_ranks} -nt {n_threads}",
               use_mpi=False, redirect="{experiment_run_dir}/starter.log")
    executable("engine", "{engine_exe} -i {run_name}_0001.rad -nt {n_threads} {engine_flags}", use_mpi=True)

    workload("neon_1m", executables=["copy-inputs", "set-end-time", "starter", "engine"], input="neon_1m")

    workload_variable("input_path", default="{neon_1m}", workload="neon_1m",
                      description="Directory holding the deck (<run_name>_0000.rad and _0001.rad): the unpacked "
                                  "archive, whose single top directory Ramble strips")
    workload_variable("run_name", default="NEON1M11", workload="neon_1m",
                      description="Run name: the deck's file names and the engine listing <run_name>_0001.out")
    workload_variable("deck_end_time", default="0.08", workload="neon_1m",
                      description="Final time written in the deck's engine file (80 ms for NEON)")
    workload_variable("end_time", default="0.08", workload="neon_1m",
                      description="Final time to simulate (the study's 80 ms; shorter for a quick run)")
    workload_variable("starter_exe", default="starter_linux64_gf", workload="neon_1m",
                      description="Starter binary (starter_<arch>, e.g. starter_linux64_gf for gfortran)")
    workload_variable("engine_exe", default="engine_linux64_gf_ompi", workload="neon_1m",
                      description="Engine binary (engine_<arch>[_ompi]; _ompi is the MPI build)")
    workload_variable("engine_flags", default="", workload="neon_1m",
                      description="Extra engine options (e.g. -norst: no restart files)")
    # OpenRadioss' own advice; its threads need a large private stack.
    environment_variable("OMP_STACKSIZE", value="400m", workload="neon_1m",
                         description="OpenMP thread stack size for the starter and engine")
    environment_variable("OMP_NUM_THREADS", value="{n_threads}", workload="neon_1m",
                         description="OpenMP threads per MPI rank")

    engine_out = os.path.join("{experiment_run_dir}", "{run_name}_0001.out")

    for _name, _regex, _units in (
        ("Elapsed time", rf"^\s*ELAPSED TIME\s+=\s*(?P<value>{NUM})\s+s\s*$", "s"),
        ("Cycles", r"^\s*TOTAL NUMBER OF CYCLES\s*:\s*(?P<value>[0-9]+)", ""),
        ("SPMD domains", r"^\s*NUMBER OF SPMD DOMAINS\s+(?P<value>[0-9]+)", ""),
        ("Threads per domain", r"^\s*NUMBER OF THREADS PER DOMAIN\s+(?P<value>[0-9]+)", ""),
        ("Estimated speedup", rf"^\s*ESTIMATED SPEEDUP\s*=\s*(?P<value>{NUM})", ""),
        ("Total CPU time", rf"^\s*TOTAL\.+:\s*(?P<value>{NUM})\s+100\.00 %", "s"),
        ("Element forces CPU time", rf"^\s*ELEMENT FORCES\.+:\s*(?P<value>{NUM})\s", "s"),
        ("Contact forces CPU time", rf"^\s*CONTACT FORCES\.+:\s*(?P<value>{NUM})\s", "s"),
        ("Total memory", r"^\s*TOTAL MEMORY USED \.+:\s*(?P<value>[0-9]+)\s+MB", "MB"),
        ("Starter runtime", rf"^\s*STARTER RUNTIME\s*=\s*(?P<value>{NUM})s", "s"),
        ("Starter and engine runtime", rf"^\s*STARTER\+ENGINE RUNTIME\s*=\s*(?P<value>{NUM})s", "s"),
        # The cycle table (cycle, model time, time step, ...): how far a run got.
        ("Last cycle", rf"^\s+(?P<value>[0-9]+)\s+{NUM}\s+{NUM}\s+\S+\s+[0-9]+\s+-?{NUM}%", ""),
        ("Simulated time", rf"^\s+[0-9]+\s+(?P<value>{NUM})\s+{NUM}\s+\S+\s+[0-9]+\s+-?{NUM}%", ""),
    ):
        figure_of_merit(_name, log_file=engine_out, fom_regex=_regex, group_name="value", units=_units)

    success_criteria("normal-termination", mode="string", match=r"^\s*NORMAL TERMINATION", file=engine_out)
    success_criteria("no-error-termination", mode="string", anti_match=r".*ERROR TERMINATION", file=engine_out)
    # Energy or mass error limits stop the engine early ("RUN KILLED: ENERGY ERROR LIMIT REACHED").
    success_criteria("not-killed", mode="string", anti_match=r".*RUN KILLED", file=engine_out)
