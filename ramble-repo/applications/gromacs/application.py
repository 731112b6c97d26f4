import os

from ramble.appkit import *
from ramble.app.builtin.gromacs import Gromacs as BuiltinGromacs
from ramble.expander import Expander


class Gromacs(BuiltinGromacs):
    """GROMACS (single precision) for S4 (ApoA1, MEM ~82k atoms, RIB ~2M atoms; ns/day) and S5
    (HECBioSim hEGFR dimer pair, 1.4M atoms, -noconfout).

    Adds to Ramble's builtin: a pinned Spack spec, the studies' workloads by name, and success
    criteria (the builtin has none, so a crashed mdrun counted as a success).
    """

    name = "gromacs"

    maintainers("hpcaas-bench")

    define_compiler("gcc12", pkg_spec="gcc@12.2.0", package_manager="spack*")
    # 2022.5: Debian ships the same release (its orig tarball has Spack's sha256), so the local
    # Debian build and the Spack build run the same code. ~double = mixed (single) precision.
    software_spec("spack_gromacs", pkg_spec="gromacs@2022.5 +mpi ~double", compiler="gcc12",
                  package_manager="spack*")
    required_package("gromacs", package_manager="spack*")

    # The builtin's inputs, with where to put them offline (Ramble then only says "All fetchers
    # failed"): <mirror>/gromacs/<input name>.<ext> in a Ramble mirror (ramble mirror add).
    for _input, _url, _sha, _desc in (
        ("BenchMEM", "https://www.mpinat.mpg.de/benchMEM.zip",
         "3c1c8cd4f274d532f48c4668e1490d389486850d6b3b258dfad4581aa11380a4",
         "MPI-BPC benchMEM: 82k atoms, protein in membrane surrounded by water, 2 fs"),
        ("BenchRIB", "https://www.mpinat.mpg.de/benchRIB.zip",
         "39acb014a79ed9a9ff2ad6294a2c09f9b85ea6986dfc204a3639814503eeb60a",
         "MPI-BPC benchRIB: 2 M atoms, ribosome in water, 4 fs"),
        ("HECBioSim", "https://github.com/victorusu/GROMACS_Benchmark_Suite/archive/refs/tags/1.0.0.tar.gz",
         "9cb2ad61ec2a422fc33578047e7cb2fd2c37ae9a75a6162d662fa2b711e9737f",
         "HECBioSim GROMACS benchmarks (Crambin ... hEGFR tetramer pair)"),
    ):
        _ext = "tar.gz" if _url.endswith("tar.gz") else "zip"
        input_file(_input, url=_url, sha256=_sha,
                   description=f"{_desc}. Offline: save {os.path.basename(_url)} as "
                               f"<mirror>/gromacs/{_input}.{_ext} in a Ramble mirror")

    # S5: HECBioSim's 1.4M-atom hEGFR dimer pair, from the same suite as the builtin hecbiosim.
    workload("hegfr_1400k", executables=["execute"], input="HECBioSim")
    # S4 ApoA1 (and its 3 x 3 x 3 replica): no public GROMACS input with a checksum was found.
    workload("apoa1", executables=["execute"])

    # Joining the builtin's group gives them its variables (gmx, mdrun, nsteps, resetstep, ...).
    workload_group("all_workloads", workloads=["hegfr_1400k", "apoa1"], mode="append")

    workload_variable("input_path", default="{HECBioSim}/HECBioSim/hEGFRDimerPair/benchmark.tpr",
                      workload="hegfr_1400k",
                      description="HECBioSim hEGFR dimer pair (1,403,180 atoms) run input")
    workload_variable("input_path", default="{workload_input_dir}/apoa1.tpr", workload="apoa1",
                      description="ApoA1 run input (.tpr) of the study; not public: place it here "
                                  "(or point this at the 3 x 3 x 3 replicated one)")

    log_str = os.path.join(Expander.expansion_str("experiment_run_dir"), "md.log")

    success_criteria("mdrun-finished", mode="string", match=r".*Finished mdrun on rank 0",
                     file=log_str)
    success_criteria("mdrun-performance", mode="string", match=r"^Performance:", file=log_str)
    # Stopped early by a signal (e.g. the batch time limit): mdrun still writes its timing,
    # for fewer steps than asked.
    success_criteria("mdrun-not-signalled", mode="string", anti_match=r".*Received the \w+ signal",
                     file=log_str)
