import os
import re

from spack.package import *

# OPS_COMPILER selects a section of OPS' and the benchmark's Makefiles (flags, compiler names).
OPS_COMPILER = {
    "gcc": "gnu",
    "intel": "intel",
    "oneapi": "intel",
    "cce": "cray",
    "clang": "clang",
    "aocc": "clang",
    "arm": "clang",
}


class Opensbli(MakefilePackage):
    """OpenSBLI benchmark of the UK HPC benchmark suite: compressible Navier-Stokes on a Taylor-Green
    vortex, fourth-order central differences and a three-stage Runge-Kutta scheme, generated
    C++ code on the OPS library (MPI), for S5 (PASC'19, TGV 512^3 and 1024^3, iterations/s).

    The source is the benchmark as ARCHER and Isambard ran it (OpenSBLI_ARCHER_bench.zip, the
    download UoB-HPC's scripts used, now kept in hpc-uk/archer-benchmarks under
    apps/OpenSBLI/source with OPS). The program reads a file "input" in its working directory:
    "<ss|ws|va> <grid points per direction> <iterations> <processes> <True|False: write HDF5>".
    """

    homepage = "https://opensbli.github.io/"
    git = "https://github.com/hpc-uk/archer-benchmarks.git"
    maintainers("hpcaas-bench")

    # The last change to apps/OpenSBLI/source (2023-02-02; halo partitioning fixes of 2021).
    version("2023.02.02", commit="8ca70bbd93b4840a63a4d62471cffc3dbbbbd94d")
    # Only the benchmark: the repository also holds thousands of result files of every benchmark
    # (Spack clones without blobs, then checks out this directory and the top-level files).
    git_sparse_paths = ("apps/OpenSBLI/source",)

    variant("openmp", default=False, description="Also build OpenSBLI_mpi_openmp (MPI x OpenMP)")

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("mpi")
    # OPS' MPI library always compiles its HDF5 I/O (ops_mpi_hdf5.c); the benchmark links -lhdf5_hl.
    depends_on("hdf5 +mpi +hl")
    depends_on("zlib-api")

    # fscanf("%s") of "ss" and "False" into char[2] and char[4] overruns both; the fix UoB-HPC's
    # benchmark scripts apply with sed before building.
    patch("input-buffers.patch")

    source_dir = join_path("apps", "OpenSBLI", "source")

    # The benchmark Makefile's defines per section, kept when cxxflags replace its flags.
    DEFINES = {"gnu": "-DUNIX", "clang": "-DUNIX", "intel": "-DMPICH_IGNORE_CXX_SEEK", "cray": ""}

    def flag_handler(self, name, flags):
        # cxxflags are the benchmark's own compile flags (OpenSBLI_ops.cpp, MPIFLAGS), as PASC'19
        # Table 8 gives them per system: they replace its Makefile's, where the compiler wrapper
        # would put them before the Makefile's (whose -fp-model strict ... would still apply).
        # OPS' library keeps its Makefile's flags: its objects go into an `ar` archive, which an
        # Intel -ipo object cannot (xiar would be needed).
        if name == "cxxflags":
            return (None, None, None)
        return (flags, None, None)

    def benchmark_flags(self):
        """MPIFLAGS=... for the benchmark's make line: the spec's cxxflags (with the defines its
        Makefile section needs), else what the recipe gives a section without flags, else None
        (the Makefile's own: intel, cray)."""
        flavour = OPS_COMPILER.get(self.spec.compiler.name, "gnu")
        given = " ".join(self.spec.compiler_flags["cxxflags"])
        if given:
            return " ".join(f for f in (given, self.DEFINES.get(flavour, "")) if f)
        # The gnu section compiles with MPIFLAGS = $(CCFLAGS) but never sets CCFLAGS (no -O3 at
        # all); UoB-HPC's scripts passed these. The Makefile has no clang section (OPS' library
        # has one), so for clang, aocc and arm MPIFLAGS is empty: the same flags (PASC'19 Table 8
        # lists -O3 for the Arm compiler; -std=c99 of OPS' C flags is not for this C++ file).
        return "-O3 -fPIC -DUNIX -Wall" if flavour in ("gnu", "clang") else None

    def make_variables(self):
        spec = self.spec
        return [
            f"OPS_COMPILER={OPS_COMPILER.get(spec.compiler.name, 'gnu')}",
            f"MPI_INSTALL_PATH={spec['mpi'].prefix}",
            f"HDF5_INSTALL_PATH={self.hdf5_prefix()}",
            # The Makefiles expect $(MPI_INSTALL_PATH)/bin/mpiCC; use the MPI's own wrappers.
            f"MPICC={spec['mpi'].mpicc}",
            f"MPICXX={spec['mpi'].mpicxx}",
            f"MPICPP={spec['mpi'].mpicxx}",
            f"OMPFLAGS={self.compiler.openmp_flag}",
        ]

    def hdf5_prefix(self):
        """The parallel HDF5 built with this MPI. Spack 0.23 externals have no dependencies, so an
        external parallel HDF5 (Debian's, built against one MPI flavour) can be paired with another
        MPI, and the link would mix two MPIs. Debian installs one HDF5 per flavour side by side
        (hdf5/openmpi, hdf5/mpich), each naming its flavour in lib/libhdf5.settings: take the one
        of this MPI, or stop with the fix."""
        prefix = self.spec["hdf5"].prefix
        mpi = self.spec["mpi"].name
        flavour = self._hdf5_flavour(prefix)
        if flavour in (None, mpi):
            return prefix
        sibling = join_path(os.path.dirname(prefix), mpi)
        if self._hdf5_flavour(sibling) == mpi:
            return sibling
        raise InstallError(
            f"{prefix}/lib/libhdf5.settings: 'Flavor name: {flavour}': this HDF5 is built with {flavour}, not {mpi}",
            long_msg=f"Give Spack an HDF5 built with {mpi} (on Debian: apt install libhdf5-{mpi}-dev, "
            f"installed beside it; or a buildable hdf5 +mpi) to build opensbli ^{mpi}.",
        )

    @staticmethod
    def _hdf5_flavour(prefix):
        settings = join_path(prefix, "lib", "libhdf5.settings")
        if not os.path.isfile(settings):
            return None
        with open(settings, errors="replace") as f:
            found = re.search(r"^\s*Flavor name:\s*(\S+)", f.read(), re.MULTILINE)
        return found.group(1) if found else None

    def build(self, spec, prefix):
        variables = self.make_variables()
        with working_dir(join_path(self.source_dir, "OPS", "ops", "c")):
            make("core", "mpi", *variables, parallel=False)
        targets = ["OpenSBLI_mpi"] + (["OpenSBLI_mpi_openmp"] if spec.satisfies("+openmp") else [])
        flags = self.benchmark_flags()
        if flags is not None:
            variables.append(f"MPIFLAGS={flags}")
        # In the environment, not on the command line: the benchmark's Makefile appends to it
        # (OPS_INSTALL_PATH := $(OPS_INSTALL_PATH)/c), which a command-line value would override.
        ops = join_path(self.stage.source_path, self.source_dir, "OPS", "ops")
        with working_dir(join_path(self.source_dir, "Benchmark")):
            make(*targets, *variables, parallel=False, extra_env={"OPS_INSTALL_PATH": ops})

    def install(self, spec, prefix):
        mkdirp(prefix.bin)
        benchmark = join_path(self.source_dir, "Benchmark")
        install(join_path(benchmark, "OpenSBLI_mpi"), prefix.bin)
        if spec.satisfies("+openmp"):
            install(join_path(benchmark, "OpenSBLI_mpi_openmp"), prefix.bin)
