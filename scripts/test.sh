#!/usr/bin/env bash
# make test's suite (after setup and lint), or another tier of it: its tests spread over this
# machine's cores by pytest-xdist (tests/conftest.py: which tests share state and run in one
# group), then its `exclusive` tests, which judge performance, alone. Exit 1 if either failed.
# Usage: scripts/test.sh [--tier fast|long] [pytest arguments]
#   fast (make test): every test but the long and slow tiers;
#   long (make test-long): the real runs that take minutes each (`long`: the
#   studies and the validation gates through the Slurm cluster).
# Extra arguments go to both pytest runs (e.g. scripts/test.sh tests/slurm).
source "$(dirname "$0")/lib.sh"
cd "$HPCAAS_ROOT"
select="not slow and not long"
if [ "${1:-}" = --tier ]; then
    case "${2:-}" in
        fast) ;;
        long) select="long and not slow" ;;
        *) die "usage: scripts/test.sh [--tier fast|long] [pytest arguments]" ;;
    esac
    shift 2
fi
# At most 4 workers: the groups that share state bound what more workers could do at once.
workers=$(nproc); [ "$workers" -gt 4 ] && workers=4
# pytest's status 5 (no test selected) is no failure here: a folder may hold no exclusive test.
rc=0 r=0
"$VENV/bin/python" -m pytest -m "$select and not exclusive" -n "$workers" --dist loadgroup "$@" || r=$?
[ "$r" -eq 0 ] || [ "$r" -eq 5 ] || rc=$r
r=0
# Without arguments, the exclusive pass reads only the files that mark tests exclusive: collecting
# the whole suite again to select a few took 10 s.
if [ $# -eq 0 ]; then
    mapfile -t exclusive < <(grep -rlE 'mark\.exclusive' tests --include='test_*.py' | sort)
    [ "${#exclusive[@]}" -gt 0 ] || exit "$rc"
    set -- "${exclusive[@]}"
fi
"$VENV/bin/python" -m pytest -m "$select and exclusive" "$@" || r=$?
[ "$r" -eq 0 ] || [ "$r" -eq 5 ] || rc=$r
exit "$rc"
