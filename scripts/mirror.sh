#!/usr/bin/env bash
# Fill the project's Spack source mirror (mirror/) from Debian source packages whose orig
# tarball is the pristine upstream one, and with patches made from upstream git commits, for
# the machines that cannot reach upstream.
# Uses a private apt configuration for deb-src, so the system's apt sources stay untouched.
# Every file, once its sha256 matched, is also kept in the machine's store of files by checksum
# ($HPCAAS_CACHE/sources/<sha256>): a new clone's mirror links them from there instead of
# downloading them again.
source "$(dirname "$0")/lib.sh"

mirror=$HPCAAS_ROOT/mirror
apt_dir=$HPCAAS_CACHE/apt-src
store=$HPCAAS_CACHE/sources

# Spack looks a source up by checksum first (_source-cache/archive/<sha[:2]>/<sha>.<ext>),
# then by name (<package>/<file>); the checksum path is a link to the named file.
# A patch (a file not ending in .tar.*) has no extension there.
digest_path() {
    case "$1" in
        *.tar*) local ext=${1#*.tar}; echo "$mirror/_source-cache/archive/${2:0:2}/$2.tar$ext" ;;
        *) echo "$mirror/_source-cache/archive/${2:0:2}/$2" ;;
    esac
}

# keep SHA SRC: SRC, whose sha256 was checked to be SHA, into the machine's store.
keep() {
    [ -f "$store/$1" ] && return 0
    mkdir -p "$store"
    { ln -f "$2" "$store/$1.part.$$" 2>/dev/null || cp "$2" "$store/$1.part.$$"; } && mv "$store/$1.part.$$" "$store/$1"
}

# link SHA DEST: DEST (a path in the mirror) becomes the stored file of SHA, linked (or copied
# across file systems); false when the store lacks it.
link() {
    [ -f "$store/$1" ] || return 1
    mkdir -p "$(dirname "$2")"
    { ln -f "$store/$1" "$2.part" 2>/dev/null || cp "$store/$1" "$2.part"; } && mv "$2.part" "$2"
}

# place PKG FILE SHA SRC: SRC into the mirror as PKG/FILE, after checking its sha256.
place() {
    local got; got=$(sha256sum "$4" | cut -d' ' -f1)
    [ "$got" = "$3" ] || die "$4 has sha256 $got, not $3 (scripts/mirror-sources.tsv): not the upstream file"
    keep "$3" "$4"
    link "$3" "$mirror/$1/$2"
    digest "$1" "$2" "$3"
}

# digest PKG FILE SHA: the checksum path Spack looks PKG/FILE up by.
digest() {
    local digest; digest=$(digest_path "$2" "$3")
    mkdir -p "$(dirname "$digest")" && ln -sfn "../../../$1/$2" "$digest"
}

# Ramble inputs that are files of a git repository at a commit (scripts/mirror-inputs.py lists
# them from the applications): the blob, checked against the input's sha256, at the path Ramble
# looks it up by in the mirror (configure.sh names mirror/ as Ramble's mirror too).
# The list is made again only when an application changed (a stamp of their files).
mirror_inputs() {
    local stamp lines url commit path sha dest tmp missing="" listed
    source "$HPCAAS_ROOT/pins.env"
    # The list follows from the applications, the script and Ramble: kept by their hash for the
    # machine (Ramble takes seconds to start).
    stamp=$(cat "$HPCAAS_ROOT"/ramble-repo/applications/*/application.py "$HPCAAS_ROOT/scripts/mirror-inputs.py" |
        { cat; echo "$RAMBLE_COMMIT"; } | sha256sum | cut -d' ' -f1)
    [ "$(cat "$mirror/.inputs-stamp" 2>/dev/null)" = "$stamp" ] && return 0
    listed=$HPCAAS_CACHE/mirror-inputs/$stamp.tsv
    if [ -f "$listed" ]; then
        lines=$(cat "$listed")
    else
        [ -x "$TOOLS/ramble/bin/ramble" ] || die "run 'make setup' first (the inputs are listed by Ramble)"
        lines=$(PATH="$VENV/bin:$PATH" "$TOOLS/ramble/bin/ramble" python "$HPCAAS_ROOT/scripts/mirror-inputs.py") ||
            die "listing the applications' inputs failed (ramble python scripts/mirror-inputs.py)"
        mkdir -p "$(dirname "$listed")"
        printf '%s\n' "$lines" > "$listed.$$" && mv "$listed.$$" "$listed"
    fi
    while IFS=$'\t' read -r url commit path sha dest; do
        [ -n "$url" ] || continue
        if [ -f "$mirror/$dest" ] && [ "$(sha256sum "$mirror/$dest" | cut -d' ' -f1)" = "$sha" ]; then
            keep "$sha" "$mirror/$dest"
            continue
        fi
        link "$sha" "$mirror/$dest" && continue
        say "mirror: input $dest from $url (commit $commit)"
        tmp=$(mktemp -d)
        if ! git clone -q --bare --filter=blob:none "$url" "$tmp/repo.git" 2>/dev/null &&
            ! git clone -q --bare "$url" "$tmp/repo.git" 2>/dev/null; then
            rm -rf "$tmp"
            missing="cannot clone $url for the input $dest: offline? git config --global url.<mirror>.insteadOf $url"
            # Only the runs that read it need it (make catalog says so; setup goes on).
            [ -n "${HPCAAS_INPUTS_REQUIRED:-}" ] && die "$missing"
            say "warning: $missing"
            continue
        fi
        git -C "$tmp/repo.git" show "$commit:$path" > "$tmp/input" ||
            die "$url has no $path at commit $commit (input $dest)"
        [ "$(sha256sum "$tmp/input" | cut -d' ' -f1)" = "$sha" ] ||
            die "$url $commit:$path is not the file of sha256 $sha that the application's input_file names"
        keep "$sha" "$tmp/input"
        link "$sha" "$mirror/$dest"
        rm -rf "$tmp"
    done <<< "$lines"
    [ -n "$missing" ] || { mkdir -p "$mirror" && echo "$stamp" > "$mirror/.inputs-stamp"; }
}
mirror_inputs

todo=()
while IFS=$'\t' read -r pkg version deb file sha; do
    case "$pkg" in ''|'#'*) continue ;; esac
    if [ -f "$mirror/$pkg/$file" ] && [ -e "$(digest_path "$file" "$sha")" ]; then
        # A mirror filled before the store was: the next clone links it from there.
        [ -f "$store/$sha" ] || [ "$(sha256sum "$mirror/$pkg/$file" | cut -d' ' -f1)" != "$sha" ] ||
            keep "$sha" "$mirror/$pkg/$file"
        continue
    fi
    if link "$sha" "$mirror/$pkg/$file"; then
        digest "$pkg" "$file" "$sha"
        continue
    fi
    todo+=("$pkg $version $deb $file $sha")
done < "$HPCAAS_ROOT/scripts/mirror-sources.tsv"
[ ${#todo[@]} -eq 0 ] && exit 0

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Rows whose source is git:<url>@<commit>: a patch Spack fetches as <url without .git>/commit/
# <commit>.patch?full_index=1, which is `git format-patch --full-index` of that commit (no
# signature line). Made from the upstream repository (or the mirror git's insteadOf names).
debian_todo=()
for entry in "${todo[@]}"; do
    read -r pkg version src file sha <<< "$entry"
    case "$src" in
        git:*) ;;
        *) debian_todo+=("$entry"); continue ;;
    esac
    url=${src#git:}; commit=${url##*@}; url=${url%@*}
    say "mirror: $file from $url (commit $commit)"
    git clone -q --bare --filter=blob:none "$url" "$work/$pkg.git" 2>/dev/null ||
        git clone -q --bare "$url" "$work/$pkg.git" ||
        die "cannot clone $url for $file: offline? git config --global url.<mirror>.insteadOf $url"
    git -C "$work/$pkg.git" format-patch -1 --full-index --no-signature --stdout "$commit" > "$work/$pkg.patch"
    place "$pkg" "$file" "$sha" "$work/$pkg.patch"
    rm -rf "$work/$pkg.git"
done
todo=("${debian_todo[@]}")
[ ${#todo[@]} -eq 0 ] && exit 0

# deb-src entries mirroring the machine's deb entries (deb822 .sources files).
mkdir -p "$apt_dir/lists/partial" "$apt_dir/parts"
src_list=$apt_dir/parts/deb-src.sources
: > "$src_list"
for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sed -e 's/^Types:.*/Types: deb-src/' "$f" >> "$src_list" && echo >> "$src_list"
done
opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$apt_dir/parts"
      -o "Dir::State::Lists=$apt_dir/lists" -o "Debug::NoLocking=1")
# As root apt drops to its _apt user to download and verify, and _apt cannot work in a private
# cache folder (e.g. a new HPCAAS_CACHE under /tmp): the signature check then fails as if gpgv
# were missing. These lists are the cache's own, so root keeps them.
[ "$(id -u)" -eq 0 ] && opts+=(-o "APT::Sandbox::User=root")
say "reading Debian source package lists"
apt-get "${opts[@]}" update -qq >/dev/null 2>&1 ||
    die "apt-get update for deb-src failed (see $src_list); without it, put the tarballs into $mirror/<package>/ by hand"

for entry in "${todo[@]}"; do
    read -r pkg version deb file sha <<< "$entry"
    say "mirror: $file from Debian source package $deb"
    # Only the orig tarball matters; the Debian packaging files may be missing from the archive
    # mirror, so apt-get's exit status is not the test: the checksum is.
    (cd "$work" && apt-get "${opts[@]}" source --download-only -qq "$deb" >/dev/null 2>&1) || true
    orig=$(find "$work" -maxdepth 1 -name "${deb}_${version}.orig.tar.*" | head -n1)
    [ -n "$orig" ] || die "no orig tarball of $deb $version from Debian: put $file (sha256 $sha) into $mirror/$pkg/"
    place "$pkg" "$file" "$sha" "$orig"
done
