from spack.package import *


class Montecarlo(MakefilePackage):
    """FinanceBench Monte Carlo: QMC (Sobol) Monte Carlo pricing of one equity option, OpenMP
    (S1 HPCaaS-Bench T2/T3, 10,000,000 samples).

    Upstream's program prices a fixed 400,000 samples on 8 threads (num_threads(8)) and then waits
    for a key press; threads-samples.patch takes the number of samples from the command line and
    the threads from OMP_NUM_THREADS, so the study's thread sweep and sample count run unattended.
    The kernel draws its random numbers with rand(), whose shared state glibc serialises: on this
    machine 1,000,000 samples took 93.3 s on 2 threads against 10.1 s serially. +rand_r gives each
    thread its own rand_r() state, as HPCaaS-Bench did (4.7 s on 2 threads, 9.4 s on 1).
    """

    homepage = "https://github.com/cavazos-lab/FinanceBench"
    git = "https://github.com/cavazos-lab/FinanceBench.git"
    maintainers("hpcaas-bench")

    license("BSD-3-Clause")

    # The last upstream commit (2016-07-25); FinanceBench has no releases.
    version("2016.07.25", commit="b56735bf81823bbe1a4d8b0446009bee36170e58")

    variant(
        "rand_r", default=True, description="Thread-private rand_r() random numbers, so the kernel scales with threads"
    )

    depends_on("cxx", type="build")

    patch("threads-samples.patch")
    # Written against the source with threads-samples.patch applied (Spack applies a package's
    # patches in the order they are declared).
    patch("rand_r.patch", when="+rand_r")

    build_directory = join_path("Monte-Carlo", "OpenMP")

    def edit(self, spec, prefix):
        # Upstream hard-codes g++ and -march=native: use Spack's compiler, whose wrapper adds the
        # spec's target flags (-march=native is also unknown to Cray's compilers).
        filter_file(
            r"g\+\+ -O3 -march=native -fopenmp", "$(CXX) $(CXXFLAGS)", join_path(self.build_directory, "Makefile")
        )

    @property
    def build_targets(self):
        return [f"CXX={spack_cxx}", f"CXXFLAGS=-O3 {self.compiler.openmp_flag}"]

    def install(self, spec, prefix):
        mkdirp(prefix.bin)
        install(join_path(self.build_directory, "monteCarloEngine.exe"), prefix.bin)
