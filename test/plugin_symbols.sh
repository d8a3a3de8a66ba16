#!/bin/bash
# priority_fairway.so may leave Slurm's symbols to the host process, but
# every symbol of its own (namespace fairway) must be defined inside it, and
# (the core's C interface fw_* included), and it must export exactly the plugin ABI and slurmctld globals.
so=.libs/priority_fairway.so
[ -f "$so" ] || { echo "SKIP: $so not built"; exit 77; }
# fairway:: is the core's C++; fw_ is the core's C interface and the
# boundary's own functions.
undefined=$(nm -u -C "$so" | grep -E 'fairway::| fw_' || true)
if [ -n "$undefined" ]; then
  echo "FAIL: undefined Fairway symbols in $so:"; echo "$undefined"; exit 1
fi
exports=$(nm -D --defined-only "$so" | awk '{print $3}' | sort | tr '\n' ' ')
# What the release the plugin was built against (SLURM_SRC, set by make)
# requires: test/plugin_exports.sh.
tree=${SLURM_SRC:-}
[ -d "$tree" ] || { echo "FAIL: SLURM_SRC (the configured Slurm tree) is not set"; exit 1; }
expected=$("${srcdir:-.}/test/plugin_exports.sh" "$tree" | tr '\n' ' ') || { echo "FAIL: no syms[] in $tree"; exit 1; }
if [ "$exports" != "$expected" ]; then
  echo "FAIL: exports differ"; echo "  got:      $exports"; echo "  expected: $expected"; exit 1
fi
# No BIND_NOW: the .so must load in sshare, where slurmctld's functions are absent.
if readelf -d "$so" | grep -qE 'BIND_NOW|FLAGS_1.*NOW'; then echo "FAIL: $so is linked with BIND_NOW"; exit 1; fi
# The plugin links the core alone: no function of the readers (libfairway_io)
# or of the simulator (libfairway_sim) may be in it.
so_symbols=$(nm -C "$so" | sed -n 's/^[0-9a-f]* [A-Za-z] //p' | sort -u)
for lib in io sim; do
  archive=.libs/libfairway_$lib.a
  [ -f "$archive" ] || { echo "FAIL: $archive not built"; exit 1; }
  lib_symbols=$(nm -C --defined-only "$archive" | sed -n 's/^[0-9a-f]* T //p' | grep 'fairway::' | sort -u)
  [ -n "$lib_symbols" ] || { echo "FAIL: no fairway:: functions found in $archive"; exit 1; }
  leaked=$(printf '%s\n' "$so_symbols" | grep -Fx -f - <(printf '%s\n' "$lib_symbols") || true)
  if [ -n "$leaked" ]; then
    echo "FAIL: $so carries libfairway_$lib's functions:"; echo "$leaked" | head; exit 1
  fi
done
echo "PASS: $so defines all its own symbols, exports exactly the plugin ABI and holds no reader or simulator code"
