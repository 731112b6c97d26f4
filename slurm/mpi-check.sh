#!/usr/bin/env bash
# Does `srun --mpi=PLUGIN` start one MPI job of N ranks with this MPI, or N separate 1-rank
# copies? Compiles slurm/mpi_hello.c with the MPI's compiler, runs it through srun and checks
# that every rank saw MPI_COMM_WORLD of size N and the allreduce summed to N.
#   slurm/mpi-check.sh MPI [PLUGIN] [srun options...]    (default PLUGIN: slurm/mpi-flag.sh MPI,
#                                                         default options: -N 2 -n 2)
#   MPI: openmpi | mpich; MPICC=<wrapper> picks another build of it (e.g. Spack's).
# Exit 0 one communicator of N ranks; 1 anything else, with the reason. Needs SLURM_CONF.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mpi=${1:?usage: mpi-check.sh openmpi|mpich [PLUGIN] [srun options...]}
shift
plugin=$("$here/mpi-flag.sh" --plugin "$mpi") || exit 2
if [ $# -gt 0 ] && [[ "$1" != -* ]]; then plugin=$1; shift; fi
[ $# -gt 0 ] || set -- -N 2 -n 2
[ -n "${SLURM_CONF:-}" ] || { echo "mpi-check: SLURM_CONF is not set (. <state>/env.sh)" >&2; exit 2; }

case "$mpi" in
    openmpi) mpicc=${MPICC:-mpicc.openmpi}
             # The emulated nodes are one host; Open MPI must talk TCP over loopback between
             # them (by default it skips lo and picks the first external interface).
             export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1} OMPI_MCA_btl=${OMPI_MCA_btl:-self,tcp} \
                    OMPI_MCA_btl_tcp_if_include=${OMPI_MCA_btl_tcp_if_include:-lo} ;;
    mpich) mpicc=${MPICC:-mpicc.mpich} ;;
esac
command -v "$mpicc" >/dev/null || { echo "mpi-check: no $mpicc (slurm/install.sh --mpi installs Debian's MPIs)" >&2; exit 2; }

bindir=${HPCAAS_SLURM_STATE:-${TMPDIR:-/tmp}}/mpi-check
mkdir -p "$bindir"
exe=$bindir/mpi_hello-$mpi
if [ ! -x "$exe" ] || [ "$here/mpi_hello.c" -nt "$exe" ]; then
    "$mpicc" -O1 -o "$exe.part" "$here/mpi_hello.c" && mv "$exe.part" "$exe" || exit 1
fi

out=$(timeout 120 srun --mpi="$plugin" "$@" "$exe" 2>&1)
rc=$?
lines=$(grep '^mpi_hello ' <<<"$out")
n=$(grep -c . <<<"$lines")
echo "srun --mpi=$plugin $* ($mpi): exit $rc, $n rank line(s)"
[ -n "$lines" ] && printf '  %s\n' "${lines//$'\n'/$'\n'  }"
if [ "$rc" -ne 0 ] || [ "$n" -eq 0 ]; then
    echo "FAIL: the MPI job did not run (exit $rc); srun said:" && tail -n 15 <<<"$out" | sed 's/^/  /'
    exit 1
fi
sizes=$(sed -n 's/.* size=\([0-9]*\) sum=\([0-9]*\) .*/\1 \2/p' <<<"$lines" | sort -u)
ranks=$(sed -n 's/.* rank=\([0-9]*\) .*/\1/p' <<<"$lines" | sort -n | tr '\n' ' ')
want_ranks=$(seq 0 $((n - 1)) | tr '\n' ' ')
if [ "$sizes" = "$n $n" ] && [ "$ranks" = "$want_ranks" ]; then
    echo "OK: one MPI_COMM_WORLD of $n ranks"
    exit 0
fi
if [ "$sizes" = "1 1" ]; then
    echo "FAIL: $n separate 1-rank MPI jobs, not one of $n: --mpi=$plugin is not a PMI $mpi speaks (use $("$here/mpi-flag.sh" "$mpi"))"
else
    echo "FAIL: ranks [$ranks] report size/sum [$(tr '\n' ';' <<<"$sizes")], want $n"
fi
exit 1
