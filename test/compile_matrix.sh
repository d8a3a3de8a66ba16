#!/bin/sh
# The plugin built for every Slurm release Fairway supports, the same way
# configure and make build it, from the configured source trees
# scripts/slurm-source prepares (SchedMD's tarballs in ../shared/slurm):
# for each release, each boundary file compiled as C without a warning, the
# .so linked with the core library of this build, and its exported symbols
# checked against that release's priority interface, the syms[] list read
# from the release's own source (not typed here). The fairway tool's
# libslurm client is compiled against the release's public headers too.
# 26.11.0-0rc1 is a pre-release (SchedMD's master at 284c3b95f0, whose
# META says 26.11.0-0rc1): checked the same way, so that a difference is
# found before 26.11 ships. Its plugin_version is 26.11.0, so the final
# release's loader would accept the rc's .so: rebuild against the release.
#
# Usage: test/compile_matrix.sh [RELEASE...]   (run from the build directory)
# Default releases: FAIRWAY_COMPILE_RELEASES, else the list below.
# FAIRWAY_COMPILE_KEEP=DIR keeps each release's plugin as
# DIR/RELEASE/priority_fairway.so (to load it on a cluster of that release).
set -eu
top=${srcdir:-.}
releases=${*:-${FAIRWAY_COMPILE_RELEASES:-23.02.8 23.11.5 23.11.11 24.05.8 24.11.7 25.05.8 25.11.7 26.05.3 26.11.0-0rc1}}
core=.libs/libfairway_core.a
[ -f "$core" ] || { echo "FAIL: $core not built (run make first)"; exit 1; }
out=$(mktemp -d /tmp/fairway-compile.XXXXXX)
trap 'rm -rf "$out"' EXIT
cflags="-std=gnu11 -fPIC -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers -fvisibility=hidden"
undef="-UPACKAGE -UPACKAGE_NAME -UPACKAGE_STRING -UPACKAGE_TARNAME -UPACKAGE_URL -UPACKAGE_VERSION -UPACKAGE_BUGREPORT -UVERSION"
passed=0 failed=0
for release in $releases; do
  tree=$("$top/scripts/slurm-source" "$release") || { echo "FAIL: $release: no configured source tree"; continue; }
  dir=$out/$release
  mkdir -p "$dir"
  failed=
  for src in "$top"/plugins/priority/fairway/*.c; do
    obj=$dir/$(basename "$src" .c).o
    # shellcheck disable=SC2086
    if ! gcc $cflags $undef -I"$top/src" -I"$tree" -I"$tree/src/common" -c "$src" -o "$obj" 2>"$dir/cc.err"; then
      echo "FAIL: $release: $(basename "$src") does not compile without a warning:"; sed 's/^/    /' "$dir/cc.err" | head -20
      failed=1
    fi
  done
  if [ -n "$failed" ]; then continue; fi
  g++ -shared -o "$dir/priority_fairway.so" "$dir"/*.o "$core" -Wl,-z,nodelete \
    -Wl,--version-script="$top/plugins/priority/fairway/exports.map" -lpthread -lm
  expected=$("$top/test/plugin_exports.sh" "$tree") || { echo "FAIL: $release: no syms[] in its source"; continue; }
  exported=$(nm -D --defined-only "$dir/priority_fairway.so" | awk '{print $3}' | sort)
  if [ "$exported" != "$expected" ]; then
    echo "FAIL: $release: exports differ from its syms[] and the plugin ABI:"
    printf '%s\n' "$expected" > "$dir/expected"; printf '%s\n' "$exported" > "$dir/exported"
    diff "$dir/expected" "$dir/exported" | sed 's/^/    /'
    continue
  fi
  # The tool's libslurm client, against the release's public headers.
  if ! g++ -std=c++17 -fsyntax-only -Wall -Wextra -Werror -Wno-unused-parameter -I"$top/src" -I"$top/tool" -I"$tree" \
      "$top/tool/slurmctld/rpc_client.cc" 2>"$dir/tool.err"; then
    echo "FAIL: $release: tool/slurmctld/rpc_client.cc does not compile:"; sed 's/^/    /' "$dir/tool.err" | head -20
    continue
  fi
  passed=$((passed + 1))
  if [ -n "${FAIRWAY_COMPILE_KEEP:-}" ]; then
    mkdir -p "$FAIRWAY_COMPILE_KEEP/$release"
    cp "$dir/priority_fairway.so" "$FAIRWAY_COMPILE_KEEP/$release/"
  fi
  echo "PASS: $release: the plugin builds without a warning and exports exactly its priority interface ($(echo "$expected" | grep -c '^priority_p_') operations); the tool's client compiles"
done
failed=$(( $(echo $releases | wc -w) - passed ))
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && exit 0
exit 1
