from spack.package import *


class IntelOptimizedHpcg(BundlePackage):
    """Intel's optimised HPCG ("Intel Optimized High Performance Conjugate Gradient Benchmark"),
    which ships inside Intel MKL (mkl/benchmarks/hpcg: xhpcg_avx, xhpcg_avx2, xhpcg_skx, ... for
    each instruction set, and the setup files to build it against another MPI), versioned as its
    MKL. Licensed binaries without public source: a site's external, its prefix the benchmarks/hpcg
    folder of the site's MKL (or of the site's own build of it against its MPI). PASC'19 ran it on
    its Intel systems ("we used the optimised versions of HPCG", Section 6.1; Table 8 lists the MKL
    versions, 17.0.2.174 and 17.0.0.098). This recipe has no code, as spack-repo's platform-mpi, so
    a spec can name it.

    Its result file is HPCG 3.0's YAML, named n<nx>-<N>p-<T>t-V3.0_<date>.yaml."""

    homepage = "https://www.intel.com/content/www/us/en/docs/onemkl/developer-guide-linux/2023-0/overview-intel-optimized-hpcg.html"
    maintainers("hpcaas-bench")

    has_code = False

    # MKL releases of PASC'19's systems (Table 8: 17.0.2.174, 17.0.0.098; the Dell EMC system's 2017.4.196).
    version("2017.4.196")
    version("2017.2.174")
    version("2017.0.098")

    requires("target=x86_64:", msg="Intel's optimised HPCG binaries are for x86_64 only")
