#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds Fairway's libFuzzer targets (fuzz/*_fuzz.cc) with clang++ and
# AddressSanitizer + UndefinedBehaviorSanitizer, then runs each one for a
# bounded time from its seed corpus fuzz/corpus/<target>/.
#
#   fuzz/run.sh [target...]          all targets when none is named
#
# Environment:
#   FUZZ_SECONDS  seconds per target (default 30)
#   FUZZ_BUILD    build directory (default ./build-fuzz)
#   FUZZ_JOBS     parallel compile jobs (default 2)
#   FUZZ_MERGE=1  after a clean run, add the inputs that add coverage
#                 (libFuzzer -merge=1; at most FUZZ_MERGE_MAX, default 10,
#                 the smallest) to fuzz/corpus/<target>/
#   FUZZ_SKIP_KNOWN_BUGS=1  build with -DFAIRWAY_FUZZ_SKIP_KNOWN_BUGS: the
#                 targets then skip inputs of bug classes already reported,
#                 to look for other bugs (default: strict, they fail on them)
#   CXX           the clang++ to use (default clang++)
#
# Needs clang and libclang-rt-14-dev (scripts/install-deps). Crashing inputs
# are kept as $FUZZ_BUILD/artifacts/<target>-crash-*. Exits non-zero when a
# target fails to build or finds a crash, after printing "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
seconds=${FUZZ_SECONDS:-30}
build=${FUZZ_BUILD:-$(pwd)/build-fuzz}
jobs=${FUZZ_JOBS:-2}
cxx=${CXX:-clang++}
case $cxx in *clang*) ;; *) cxx=clang++ ;; esac  # libFuzzer needs clang

command -v "$cxx" >/dev/null 2>&1 || { echo "fuzz/run.sh: $cxx not found (scripts/install-deps)" >&2; exit 2; }

mkdir -p "$build/obj" "$build/artifacts" "$build/corpus" || exit 2

flags="-std=c++17 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all -I$top/src"
[ "${FUZZ_SKIP_KNOWN_BUGS:-0}" = 1 ] && flags="$flags -DFAIRWAY_FUZZ_SKIP_KNOWN_BUGS"

# The libraries' sources, as Makefile.am lists them (the core, the readers
# and the simulator: the tree and scenario targets fuzz the readers). Each
# list ends at its first line without a continuation backslash.
core=$(for list in CORE_SOURCES IO_SOURCES SIM_SOURCES; do
  sed -n "/^$list = /,/[^\\]\$/p" "$top/Makefile.am"
done | tr ' \\\t' '\n\n\n' | grep '\.cc$')
[ -n "$core" ] || { echo "fuzz/run.sh: no CORE_SOURCES in Makefile.am" >&2; exit 2; }

# Compile the core once (in parallel, only what changed), with coverage
# instrumentation for the fuzzer.
objs=""
pids=""
running=0
build_failed=0
for src in $core; do
  obj="$build/obj/$(echo "$src" | tr '/' '_' | sed 's/\.cc$/.o/')"
  objs="$objs $obj"
  if [ ! -f "$obj" ] || [ "$top/$src" -nt "$obj" ] || [ -n "$(find "$top/src" -name '*.h' -newer "$obj" 2>/dev/null | head -1)" ]; then
    $cxx $flags -fsanitize=fuzzer-no-link -c "$top/$src" -o "$obj" &
    pids="$pids $!"
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
      for p in $pids; do wait "$p" || build_failed=1; done
      pids=""
      running=0
    fi
  fi
done
for p in $pids; do wait "$p" || build_failed=1; done
[ "$build_failed" = 0 ] || { echo "fuzz/run.sh: building the core failed" >&2; exit 2; }

if [ $# -gt 0 ]; then
  targets="$*"
else
  targets=$(cd "$here" && ls *_fuzz.cc | sed 's/\.cc$//')
fi

passed=0
failed=0
summary=""
for t in $targets; do
  t=${t%.cc}
  bin="$build/$t"
  echo "==== $t: build"
  if ! $cxx $flags -fsanitize=fuzzer "$here/$t.cc" $objs -o "$bin"; then
    failed=$((failed + 1))
    summary="$summary
  $t: FAILED (build)"
    continue
  fi
  seeds="$here/corpus/$t"
  work="$build/corpus/$t"
  mkdir -p "$seeds" "$work"
  log="$build/$t.log"
  echo "==== $t: fuzzing for ${seconds}s (log $log)"
  "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" \
    "$work" "$seeds" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  if [ "$rc" = 0 ]; then
    passed=$((passed + 1))
    summary="$summary
  $t: ok, ${execs:-?} executions, $cov, corpus $(ls "$work" | wc -l) files"
  else
    failed=$((failed + 1))
    summary="$summary
  $t: FAILED (exit $rc), ${execs:-?} executions; see $log"
    grep -E 'ERROR|runtime error|invariant violated|Test unit written|SUMMARY' "$log" | head -8
  fi
  if [ "${FUZZ_MERGE:-0}" = 1 ] && [ "$rc" = 0 ]; then
    # Minimise: libFuzzer adds to a copy of the seeds only the inputs of
    # this run that add coverage; the smallest FUZZ_MERGE_MAX of those (default
    # 10) join the seed corpus, so that it stays small and readable.
    merged="$build/merged-$t"
    rm -rf "$merged" && mkdir -p "$merged" && cp "$seeds"/* "$merged"/ 2>/dev/null
    if "$bin" -merge=1 -max_len=8192 "$merged" "$work" >"$build/$t.merge.log" 2>&1; then
      added=0
      for f in $(ls -S -r "$merged"); do
        [ -e "$seeds/$f" ] && continue
        [ "$added" -ge "${FUZZ_MERGE_MAX:-10}" ] && break
        cp "$merged/$f" "$seeds/" && added=$((added + 1))
      done
      echo "==== $t: merged $added new inputs; seed corpus now $(ls "$seeds" | wc -l) files"
    fi
  fi
done

echo "==== fuzz summary ($seconds s per target):$summary"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
