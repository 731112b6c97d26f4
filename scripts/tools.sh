#!/usr/bin/env bash
# Clone Spack and Ramble from their upstream URLs at the commits pinned in pins.env.
# The machine keeps, in $HPCAAS_CACHE/tools/, one bare clone of each URL (<name>.git, fetched
# again only when it lacks the pinned commit) and one checkout of each pin (<name>-<commit>/: a
# clone borrowing that one's objects, objects/info/alternates, its files stamped with the
# commit's time and Spack's and Ramble's own modules byte-compiled). A project clone's
# .tools/<name> is a hard-linked copy of that checkout: no history copied, no tree checked out.
source "$(dirname "$0")/lib.sh"
source "$HPCAAS_ROOT/pins.env"

mirror_hint() {
    printf '%s' "Offline? Point it at a mirror holding commit $2:
    git config --global url.<mirror-path-or-url>.insteadOf $1
then run make setup again."
}

# machine_clone NAME URL COMMIT: the machine's bare clone of URL holding COMMIT (its path printed).
machine_clone() {
    local name=$1 url=$2 commit=$3 repo=$HPCAAS_CACHE/tools/$1.git
    mkdir -p "$HPCAAS_CACHE/tools"
    exec 8>"$repo.lock"  # one clone or fetch at a time (clones set up side by side share it)
    flock 8
    if [ ! -d "$repo/objects" ]; then
        say "cloning $name from $url (once for this machine: $repo)" >&2
        rm -rf "$repo.tmp"
        git clone -q --bare "$url" "$repo.tmp" 2>/dev/null || {
            rm -rf "$repo.tmp"
            die "cannot clone $url. $(mirror_hint "$url" "$commit")"
        }
        mv "$repo.tmp" "$repo"
    fi
    if ! git -C "$repo" cat-file -e "$commit^{commit}" 2>/dev/null; then
        say "fetching $commit of $name from $url" >&2
        git -C "$repo" fetch -q "$url" "+refs/heads/*:refs/heads/*" "+refs/tags/*:refs/tags/*" 2>/dev/null ||
            die "cannot fetch $url. $(mirror_hint "$url" "$commit")"
        git -C "$repo" cat-file -e "$commit^{commit}" 2>/dev/null ||
            git -C "$repo" fetch -q "$url" "$commit" 2>/dev/null ||
            die "$url has no commit $commit (pins.env); fetch it into your mirror, or fix the pin"
    fi
    # A ref keeps the pin from being pruned by a gc while checkouts borrow its objects.
    git -C "$repo" update-ref "refs/pins/$commit" "$commit"
    echo "$repo"
}

# machine_tree NAME URL COMMIT: the machine's checkout of COMMIT (its path printed).
machine_tree() {
    local name=$1 url=$2 commit=$3 tree=$HPCAAS_CACHE/tools/$1-$3 repo when
    repo=$(machine_clone "$name" "$url" "$commit") || exit 1
    exec 7>"$tree.lock"
    flock 7
    if [ ! -f "$tree.done" ]; then
        say "checking $name ${commit:0:12} out (once for this machine: $tree)" >&2
        rm -rf "$tree.tmp" "$tree"
        git clone -q --shared --no-checkout "$repo" "$tree.tmp" || die "cannot clone $repo into $tree.tmp"
        git -C "$tree.tmp" remote set-url origin "$url"
        git -C "$tree.tmp" -c advice.detachedHead=false checkout -q "$commit" 2>/dev/null ||
            die "cannot check $commit out in $tree.tmp"
        # A checkout stamps every file with today's time, which makes Spack and Ramble rebuild
        # their package indexes (about a minute) although the shared cache holds them for this
        # very commit (configure.sh keys misc_cache by the pin). Give the files their commit's time.
        when=$(git -C "$tree.tmp" log -1 --format=%ct)
        git -C "$tree.tmp" ls-files -z | (cd "$tree.tmp" && xargs -0 touch -h -d "@$when")
        # Every spack and ramble command imports hundreds of their modules: compiled here once,
        # not in each process (PYTHONDONTWRITEBYTECODE would make each compile them again).
        # Only lib/: the package and application repositories are loaded by the tools' own
        # importers, which read the source.
        python3 -m compileall -q -j 0 "$tree.tmp/lib" >/dev/null 2>&1 ||
            say "note: byte-compiling $tree.tmp/lib failed; $name compiles its modules as it runs" >&2
        mv "$tree.tmp" "$tree"
        touch "$tree.done"
    fi
    echo "$tree"
}

# clone_pinned NAME URL COMMIT: leaves $TOOLS/NAME at COMMIT, or stops saying how to mirror.
clone_pinned() {
    local name=$1 url=$2 commit=$3 dir=$TOOLS/$1 tree
    # A copy of the machine's checkout (a clone of its own, made before, is replaced once), HEAD
    # at the pin and its tree readable (the borrowed objects are still there).
    if [ -f "$dir/.git/objects/info/alternates" ] && [ "$(git -C "$dir" rev-parse HEAD 2>/dev/null)" = "$commit" ] &&
        git -C "$dir" cat-file -e "$commit^{tree}" 2>/dev/null; then
        return 0
    fi
    tree=$(machine_tree "$name" "$url" "$commit") || exit 1
    say "cloning $name at ${commit:0:12} (hard links to $tree)"
    mkdir -p "$TOOLS"
    rm -rf "$dir.tmp"
    # Nothing rewrites a file of the tools in place (git and configure.sh write a new file and
    # rename it), so the copies stay independent.
    cp -al "$tree" "$dir.tmp" 2>/dev/null || { rm -rf "$dir.tmp" && cp -a "$tree" "$dir.tmp"; } ||
        die "cannot copy $tree to $dir"
    rm -rf "$dir"
    mv "$dir.tmp" "$dir"
    [ "$(git -C "$dir" rev-parse HEAD)" = "$commit" ] || die "$dir: HEAD is not the pin $commit"
}

clone_pinned spack "$SPACK_URL" "$SPACK_COMMIT"
clone_pinned ramble "$RAMBLE_URL" "$RAMBLE_COMMIT"
