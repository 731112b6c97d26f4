import os

from spack.package import *
from spack.pkg.builtin.hpctoolkit import AutotoolsBuilder as BuiltinAutotoolsBuilder
from spack.pkg.builtin.hpctoolkit import Hpctoolkit as BuiltinHpctoolkit

# Files of the repository that a partial mirror of it lacks (one keeping files below 4 MiB, as
# the snapshots this project builds from offline do): the user manual, a PDF, and test data of
# the Meson test suite (tests2/), which the autotools build does not use.
MANUAL = "doc/HPCToolkit-users-manual.pdf"
TOO_LARGE = [MANUAL, "tests2/data/meas/*/structs/libhpcrun.so.hpcstruct"]


class Hpctoolkit(BuiltinHpctoolkit):
    """HPCToolkit as Spack's builtin recipe, from the GitHub mirror of its GitLab repository
    (same commits), buildable against a Debian /usr (multiarch library directories).

    The checkout leaves out the user manual and the tests2/ structure files (TOO_LARGE), so
    that a mirror without them serves it; the build and the installed tools are upstream's,
    less the manual.
    """

    maintainers("hpcaas-bench")

    git = "https://github.com/HPCToolkit/hpctoolkit.git"

    version("2024.01.1", commit="0672b9a9a2a1e3846c5e2059fb73a07a129f22cd")  # tag 2024.01.1
    version("2023.08.1", commit="753a72affd584a5e72fe153d1e8c47a394a3886e")  # tag 2023.08.1

    # Spack runs `git sparse-checkout set <these> --cone`: cone mode takes whole directories
    # only, and the manual sits beside files the build needs (doc/FORMATS.md, doc/METRICS.yaml).
    # So: gitignore-style patterns (--no-cone), everything but TOO_LARGE, and a final "--" that
    # makes Spack's trailing "--cone" one more pattern (one that matches no file).
    git_sparse_paths = ["--no-cone", "/*", *(f"!/{path}" for path in TOO_LARGE), "--"]

    @when("@2023:")
    def patch(self):
        filter_file(r"^dist_wwwmanual_DATA\s*=.*$", "dist_wwwmanual_DATA =", "doc/Makefile.am")


class AutotoolsBuilder(BuiltinAutotoolsBuilder):
    # HPCToolkit's configure looks for each library in <prefix>/include and <prefix>/lib{64,};
    # Debian keeps libraries (and some headers) in <multiarch> subdirectories of /usr. The
    # header each --with-<option> check wants, to find the include directory that has it:
    HEADERS = {
        "boost": "boost/shared_ptr.hpp",
        "bzip": "bzlib.h",
        "elfutils": "libelf.h",
        "tbb": "tbb/concurrent_hash_map.h",
        "libunwind": "libunwind.h",
        "xerces": "xercesc/util/XercesVersion.hpp",
        "lzma": "lzma.h",
        "zlib": "zlib.h",
        "libiberty": "libiberty/demangle.h",
        "papi": "papi.h",
        "yaml-cpp": "yaml-cpp/yaml.h",
    }

    def configure_args(self):
        multiarch = Executable(self.pkg.compiler.cc)("-print-multiarch", output=str).strip()
        return [self._spack_shaped(arg, multiarch) for arg in super().configure_args()]

    def _spack_shaped(self, arg, multiarch):
        """--with-<option>=<prefix> as is, or pointing at a <prefix> view with include/ and lib/
        when <prefix> is a Debian multiarch one (externals in /usr)."""
        option, _, prefix = arg.partition("=")
        name = option[len("--with-") :]
        libdir = join_path(prefix, "lib", multiarch)
        if not option.startswith("--with-") or name not in self.HEADERS or not os.path.isdir(libdir):
            return arg
        header = self.HEADERS[name]
        includes = [join_path(prefix, "include", multiarch), join_path(prefix, "include")]
        include = next((d for d in includes if os.path.exists(join_path(d, header))), None)
        if include is None:
            raise InstallError(f"{option}={prefix}: no {header} in {' or '.join(includes)}")
        view = join_path(self.pkg.stage.path, "debian-prefixes", name)
        mkdirp(view)
        for link, target in (("include", include), ("lib", libdir)):
            if not os.path.islink(join_path(view, link)):
                symlink(target, join_path(view, link))
        return f"{option}={view}"
