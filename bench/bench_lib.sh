#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/bench_lib.sh: what the live benchmarks (live.sh, remote_sync.sh,
# ab.sh) share. Sourced after test/integration/lib.sh (log, FW_CLUSTER,
# FW_PLUGIN_DIR); defines functions only.

# bench_dir PREFIX NAME: DIR (BENCH_DIR, else a new /tmp/PREFIX.XXXXXX;
# unix socket paths are limited to about 100 bytes) and WORK=DIR/bench. On
# exit: bench_on_exit, if the caller defined one, then the cluster in DIR
# stopped and DIR removed, unless BENCH_KEEP=1 (or BENCH_DIR named it: then
# it is kept). NAME is said where set -e stopped the script.
bench_dir() {
  DIR=${BENCH_DIR:-$(mktemp -d "/tmp/$1.XXXXXX")}
  mkdir -p "$DIR"
  WORK=$DIR/bench
  mkdir -p "$WORK"
  BENCH_NAME=$2
  trap bench_cleanup EXIT
  trap 'exit 130' INT TERM
  # set -e is silent: say where it stopped. (No `cmd | head` in a
  # benchmark: with pipefail, the writer's SIGPIPE would end it.)
  trap 'echo "$BENCH_NAME: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
}

bench_cleanup() {
  local rc=$?
  if declare -F bench_on_exit >/dev/null; then bench_on_exit || true; fi
  if [ "${BENCH_KEEP:-0}" = 1 ]; then
    log "BENCH_KEEP=1: cluster left running; stop with: $FW_CLUSTER stop --dir $DIR"
  else
    "$FW_CLUSTER" stop --dir "$DIR" >/dev/null 2>&1 || true
    [ -z "${BENCH_DIR:-}" ] && rm -rf "$DIR"
    rm -f "$DIR.env"
  fi
  rm -rf "$FW_PLUGIN_DIR"
  exit $rc
}

# ctld_pid: DIR's slurmctld pid (lib.sh's ctld_pid, for the bench's DIR).
ctld_pid() { daemon_pid "$DIR" slurmctld; }
# Anonymous resident memory (heap, thread stacks, mapped arrays), kB: VmRSS
# without the pages of program and library files, which do not grow with
# the queue (libstdc++ and the plugin's own code are about 1.9 MiB of
# fairway's VmRSS; priority/basic loads neither).
rss_anon_kb() { awk '/^RssAnon/ { print $2 }' /proc/"$1"/status; }
# median VALUE...: the middle value (mean of the two middle ones).
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# bench_memory: one line saying what reading memory left alone costs here
# now (bench/cold_pages.c, built by make bench as fairway_cold_pages), or
# why it was not measured. On a VM that takes back pages left alone, every
# pass of either plugin pays it for the job records it reads, and passes
# vary with it (doc/benchmark.md, "Memory left alone").
bench_memory() {
  local out
  if [ ! -x "$TOP/fairway_cold_pages" ]; then
    echo "not measured (fairway_cold_pages is built by make bench)"
  elif out=$("$TOP/fairway_cold_pages" 2>&1); then
    echo "$out"
  else
    echo "fairway_cold_pages failed: $out"
  fi
}
