from spack.package import *
from spack.pkg.builtin.openradioss_engine import OpenradiossEngine as BuiltinOpenradiossEngine
from spack.pkg.hpcaas.openradioss import COMMIT, SPARSE_PATHS, check_extlib


class OpenradiossEngine(BuiltinOpenradiossEngine):
    """OpenRadioss engine, as Spack's builtin recipe, plus a version pinned by commit (the
    builtin knows only the branch main, and Spack's solver accepts git versions from user specs
    only, not from a dependent's depends_on)."""

    maintainers("hpcaas-bench")

    version("20230701", commit=COMMIT)
    git_sparse_paths = SPARSE_PATHS

    @run_before("cmake")
    def extlib_is_not_lfs_pointers(self):
        check_extlib(self.stage.source_path)
