#!/usr/bin/env bash
# Clone Spack and Ramble from their upstream URLs at the commits pinned in pins.env.
source "$(dirname "$0")/lib.sh"
source "$HPCAAS_ROOT/pins.env"

# clone_pinned NAME URL COMMIT: leaves $TOOLS/NAME at COMMIT, or stops saying how to mirror.
clone_pinned() {
    local name=$1 url=$2 commit=$3 dir=$TOOLS/$1
    if [ -d "$dir/.git" ] && [ "$(git -C "$dir" rev-parse HEAD 2>/dev/null)" = "$commit" ]; then
        return 0
    fi
    mkdir -p "$TOOLS"
    if [ ! -d "$dir/.git" ]; then
        say "cloning $name from $url"
        git clone -q --no-checkout "$url" "$dir" 2>/dev/null || {
            rm -rf "$dir"
            die "cannot clone $url. Offline? Point it at a mirror holding commit $commit:
    git config --global url.<mirror-path-or-url>.insteadOf $url
then run make setup again."
        }
    fi
    git -C "$dir" -c advice.detachedHead=false checkout -q "$commit" 2>/dev/null ||
        die "$url has no commit $commit (pins.env); fetch it into your mirror, or fix the pin"
    [ "$(git -C "$dir" rev-parse HEAD)" = "$commit" ] || die "$dir: HEAD is not the pin $commit"
    # A checkout stamps every file with today's time, which makes Spack and Ramble rebuild their
    # package indexes (about a minute) although the shared cache holds them for this very commit
    # (configure.sh keys misc_cache by the pin). Give the files their commit's time instead.
    local when
    when=$(git -C "$dir" log -1 --format=%ct)
    git -C "$dir" ls-files -z | (cd "$dir" && xargs -0 touch -h -d "@$when")
}

clone_pinned spack "$SPACK_URL" "$SPACK_COMMIT"
clone_pinned ramble "$RAMBLE_URL" "$RAMBLE_COMMIT"
