#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# priority_fairway.so for one Slurm release built with AddressSanitizer and
# UBSan, to load into a slurmctld that runs with gcc's libasan preloaded
# (test/integration/reliability_reconnect.sh). Built as
# test/compile_matrix.sh builds the per-release plugin (the boundary files
# as C against the release's configured source tree, the same exports
# map), but the core is compiled here from its sources (CORE_SOURCES of
# Makefile.am) with the same sanitizer flags, not taken from the build's
# libfairway_core.a. -fno-sanitize-recover: a UBSan finding aborts as an
# ASan one does.
#
# Usage: test/asan_plugin.sh RELEASE OUT.so   (from the source directory;
# RELEASE's configured tree from scripts/slurm-source). Objects are
# compiled in parallel (nproc); the result is kept in
# FAIRWAY_ASAN_CACHE (default /var/tmp/fairway-asan-plugin) under a hash of
# the sources and flags, so an unchanged tree is not compiled twice (the
# release's other builds there are removed once an hour old).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
release=${1:?usage: test/asan_plugin.sh RELEASE OUT.so}
out=${2:?usage: test/asan_plugin.sh RELEASE OUT.so}
msg() { echo "asan_plugin: $*" >&2; }
tree=$("$top/scripts/slurm-source" "$release") || { msg "no configured source tree of Slurm $release"; exit 1; }
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
cflags="-std=gnu11 -fPIC -O1 -g -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -fvisibility=hidden $san"
cxxflags="-std=c++17 -fPIC -O1 -g -Wall -Wextra -Wno-unused-parameter -fvisibility=hidden $san"
undef="-UPACKAGE -UPACKAGE_NAME -UPACKAGE_STRING -UPACKAGE_TARNAME -UPACKAGE_URL -UPACKAGE_VERSION -UPACKAGE_BUGREPORT -UVERSION"
# The core's .cc files, as Makefile.am lists them (so that a new core file
# is never left out of this build).
core=$(awk '/^CORE_SOURCES = /{on=1} on{for (i = 1; i <= NF; i++) if ($i ~ /\.cc$/) print $i; if ($NF != "\\") exit}' "$top/Makefile.am")
[ -n "$core" ] || { msg "no CORE_SOURCES in Makefile.am"; exit 1; }
plugin=$(cd "$top" && ls plugins/priority/fairway/*.c)
# shellcheck disable=SC2086  # $core and $plugin: one word per file
key=$( { echo "$release $cflags $cxxflags $(gcc --version | head -1)"
         cd "$top" && cat $core src/*.h src/api/*.h $plugin plugins/priority/fairway/*.h plugins/priority/fairway/exports.map; } |
       sha256sum | cut -c1-16)
cache=${FAIRWAY_ASAN_CACHE:-/var/tmp/fairway-asan-plugin}/$release-$key
if [ ! -f "$cache/priority_fairway.so" ]; then
  work=$(mktemp -d /tmp/fairway-asan-build.XXXXXX)
  trap 'rm -rf "$work"' EXIT
  t0=$SECONDS
  # Each source to WORK/<path with _>.o, nproc at a time.
  # shellcheck disable=SC2086  # the flags: one word each
  compile_one() {
    local src=$1 obj
    obj=$work/$(echo "$src" | tr / _).o
    case $src in
      *.c) gcc $cflags $undef -Isrc -I"$tree" -I"$tree/src/common" -c "$src" -o "$obj" ;;
      *) g++ $cxxflags -Isrc -c "$src" -o "$obj" ;;
    esac 2> "$obj.err" || { echo "$src:"; cat "$obj.err"; return 1; }
  }
  export -f compile_one
  export work tree cflags cxxflags undef
  # shellcheck disable=SC2086  # one word per source file
  if ! (cd "$top" && printf '%s\n' $plugin $core | xargs -P "$(nproc)" -I{} bash -c 'compile_one "$1"' _ {}) > "$work/cc.err"; then
    msg "compiling failed:"; head -40 "$work/cc.err" >&2; exit 1
  fi
  if ! g++ -shared -o "$work/priority_fairway.so" "$work"/*.o $san -Wl,-z,nodelete \
      -Wl,--version-script="$top/plugins/priority/fairway/exports.map" -lpthread -lm 2>> "$work/cc.err"; then
    msg "link failed:"; cat "$work/cc.err" >&2; exit 1
  fi
  mkdir -p "$cache"
  cp "$work/priority_fairway.so" "$cache/priority_fairway.so.$$"
  mv "$cache/priority_fairway.so.$$" "$cache/priority_fairway.so"
  msg "built $cache/priority_fairway.so for Slurm $release in $((SECONDS - t0)) s"
  find "${cache%/*}" -mindepth 1 -maxdepth 1 -name "$release-*" ! -name "${cache##*/}" -mmin +60 \
    -exec rm -rf {} + 2>/dev/null || true
fi
cp "$cache/priority_fairway.so" "$out"
