from spack.package import *
from spack.pkg.builtin.openradioss_starter import OpenradiossStarter as BuiltinOpenradiossStarter
from spack.pkg.hpcaas.openradioss import COMMIT, SPARSE_PATHS, check_extlib


class OpenradiossStarter(BuiltinOpenradiossStarter):
    """OpenRadioss starter, as Spack's builtin recipe, plus a version pinned by commit (the
    builtin knows only the branch main, and Spack's solver accepts git versions from user specs
    only, not from a dependent's depends_on)."""

    maintainers("hpcaas-bench")

    version("20230701", commit=COMMIT)
    git_sparse_paths = SPARSE_PATHS

    @run_before("cmake")
    def extlib_is_not_lfs_pointers(self):
        check_extlib(self.stage.source_path)
