#!/usr/bin/env bash
# Fill the project's Spack source mirror (mirror/) from Debian source packages whose orig
# tarball is the pristine upstream one, for the machines that cannot reach upstream.
# Uses a private apt configuration for deb-src, so the system's apt sources stay untouched.
source "$(dirname "$0")/lib.sh"

mirror=$HPCAAS_ROOT/mirror
apt_dir=$HPCAAS_CACHE/apt-src

# Spack looks a source up by checksum first (_source-cache/archive/<sha[:2]>/<sha>.<ext>),
# then by name (<package>/<file>); the checksum path is a link to the named file.
digest_path() { local ext=${1#*.tar}; echo "$mirror/_source-cache/archive/${2:0:2}/$2.tar$ext"; }

todo=()
while IFS=$'\t' read -r pkg version deb file sha; do
    case "$pkg" in ''|'#'*) continue ;; esac
    [ -f "$mirror/$pkg/$file" ] && [ -e "$(digest_path "$file" "$sha")" ] || todo+=("$pkg $version $deb $file $sha")
done < "$HPCAAS_ROOT/scripts/mirror-sources.tsv"
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
say "reading Debian source package lists"
apt-get "${opts[@]}" update -qq >/dev/null 2>&1 ||
    die "apt-get update for deb-src failed (see $src_list); without it, put the tarballs into $mirror/<package>/ by hand"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for entry in "${todo[@]}"; do
    read -r pkg version deb file sha <<< "$entry"
    say "mirror: $file from Debian source package $deb"
    # Only the orig tarball matters; the Debian packaging files may be missing from the archive
    # mirror, so apt-get's exit status is not the test: the checksum is.
    (cd "$work" && apt-get "${opts[@]}" source --download-only -qq "$deb" >/dev/null 2>&1) || true
    orig=$(ls "$work/${deb}_${version}".orig.tar.* 2>/dev/null | head -n1)
    [ -n "$orig" ] || die "no orig tarball of $deb $version from Debian: put $file (sha256 $sha) into $mirror/$pkg/"
    got=$(sha256sum "$orig" | cut -d' ' -f1)
    [ "$got" = "$sha" ] || die "$orig has sha256 $got, not $sha (scripts/mirror-sources.tsv): not the upstream tarball"
    mkdir -p "$mirror/$pkg"
    cp "$orig" "$mirror/$pkg/$file.part" && mv "$mirror/$pkg/$file.part" "$mirror/$pkg/$file"
    digest=$(digest_path "$file" "$sha")
    mkdir -p "$(dirname "$digest")" && ln -sfn "../../../$pkg/$file" "$digest"
done
