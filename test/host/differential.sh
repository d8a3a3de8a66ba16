#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The differential test: priority/multifactor and priority/fairway on the
# same generated association trees and pending jobs, no cluster. For each
# seed, each mode (Fair Tree, classic NO_FAIR_TREE, DEPTH_OBLIVIOUS) and
# each FairShareDampeningFactor (1, and 2-5 drawn from the seed),
# test/host/differential_host runs once per plugin and the two dumps
# (sshare's rows, then sprio's) must be identical, column by column, at
# sshare's and sprio -n's precision.
#
# Usage: test/host/differential.sh [-n SEEDS] [-f FIRST_SEED] [-j JOBS] [--dup]
#        test/host/differential.sh --seed S [--mode M] [--damp D] [--dup]
#   -n: how many seeds (default $DIFF_SEEDS, else 300); -f: the first
#   (default 1); -j: cases run at once (default 2); --dup: every tree has
#   one duplicated association id. --seed (with --mode, --damp) replays
#   one seed, or one case: the command a failure prints. DIFF_DUP_SEEDS=N
#   adds N seeds from the first with a duplicated id to a run without
#   --dup (make check). DIFF_BOUNDARY_SEEDS=N adds N seeds' boundary
#   cases (Fairway alone: its pass against its single-job path, with jobs
#   changed between gather and store; differential_host.c); --boundary
#   runs boundary cases only.
# Environment: DIFF_HOST (the built differential_host), MULTIFACTOR_SO,
#   FAIRWAY_SO (the two plugins; default the system's and this build's),
#   DIFF_WORK (a directory that keeps each failing case's files: both
#   dumps, stderr, slurm.conf and state), DIFF_REPLAY (the command a
#   failure's replay line starts with; differential_release.sh's own).
# Prints, per failing case, its replay command, the differing values (row
# and column) and the part of the tree above the differing rows; ends with
# "N passed, M failed" (cases). Exit status 0 when every case passed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
host=${DIFF_HOST:-$top/test/host/differential_host}
multifactor=${MULTIFACTOR_SO:-/usr/lib/x86_64-linux-gnu/slurm-wlm/priority_multifactor.so}
fairway=${FAIRWAY_SO:-$top/.libs/priority_fairway.so}
seeds=${DIFF_SEEDS:-300} first=1 jobs=2 dup="" boundary="" only_seed="" only_mode="" only_damp=""
while [ $# -gt 0 ]; do
  case $1 in
    -n) seeds=$2; shift 2 ;;
    -f) first=$2; shift 2 ;;
    -j) jobs=$2; shift 2 ;;
    --dup) dup=dup; shift ;;
    --boundary) boundary=boundary; shift ;;
    --seed) only_seed=$2; shift 2 ;;
    --mode) only_mode=$2; shift 2 ;;
    --damp) only_damp=$2; shift 2 ;;
    --one) shift; break ;; # internal: one case, "SEED MODE DAMP"
    *) echo "usage: $0 [-n SEEDS] [-f FIRST] [-j JOBS] [--dup|--boundary] [--seed S [--mode M] [--damp D]]" >&2; exit 2 ;;
  esac
done
for f in "$host" "$multifactor" "$fairway"; do
  [ -e "$f" ] || { echo "differential: $f is missing (make, configured with --with-slurm-source)"; exit 2; }
done
work=${DIFF_WORK:-}

# one_case SEED MODE DAMP: runs both plugins; prints "ok" or the report.
one_case() {
  local seed=$1 mode=$2 damp=$3 dir rc_m rc_f
  [ "${4:-}" = dup ] && dup=dup
  if [ "${4:-}" = boundary ]; then
    dir=$(mktemp -d "${TMPDIR:-/tmp}/fairway-diff.XXXXXX")
    if "$host" "$dir" "$fairway" "$seed" "$mode" "$damp" boundary > "$dir/out" 2> "$dir/err"; then
      echo "ok $seed $mode $damp boundary"
    else
      echo "FAIL: seed $seed, $mode, FairShareDampeningFactor=$damp, boundary"
      echo "  replay: ${DIFF_REPLAY:-test/host/differential.sh} --seed $seed --mode $mode --damp $damp --boundary"
      sed 's/^/  /' "$dir/out" | head -40
      grep -v 'priority_last_decay_ran is missing' "$dir/err" | sed 's/^/  fairway logged: /' | head -5
    fi
    rm -rf "$dir"
    return
  fi
  dir=$(mktemp -d "${TMPDIR:-/tmp}/fairway-diff.XXXXXX")
  mkdir "$dir/m" "$dir/f"
  # multifactor's DEPTH_OBLIVIOUS: compared in steady state (settle in
  # differential_host.c; doc/differences.md, difference 1).
  local settle=""
  [ "$mode" = depth_oblivious ] && settle=settle
  "$host" "$dir/m" "$multifactor" "$seed" "$mode" "$damp" $dup $settle > "$dir/m.out" 2> "$dir/m.err"
  rc_m=$?
  "$host" "$dir/f" "$fairway" "$seed" "$mode" "$damp" $dup > "$dir/f.out" 2> "$dir/f.err"
  rc_f=$?
  if [ $rc_m -eq 0 ] && [ $rc_f -eq 0 ] && cmp -s "$dir/m.out" "$dir/f.out"; then
    echo "ok $seed $mode $damp"
    rm -rf "$dir"
    return
  fi
  echo "FAIL: seed $seed, $mode, FairShareDampeningFactor=$damp${dup:+, duplicated id}"
  echo "  replay: ${DIFF_REPLAY:-test/host/differential.sh} --seed $seed --mode $mode --damp $damp${dup:+ --dup}"
  echo "  (one plugin: test/host/differential_host DIR PLUGIN_SO $seed $mode $damp $dup${settle:+ settle, for multifactor})"
  [ $rc_m -eq 0 ] || { echo "  multifactor's host exited $rc_m:"; sed 's/^/    /' "$dir/m.err" | head -5; }
  [ $rc_f -eq 0 ] || { echo "  fairway's host exited $rc_f:"; sed 's/^/    /' "$dir/f.err" | head -5; }
  grep -v 'priority_last_decay_ran is missing' "$dir/f.err" | sed 's/^/  fairway logged: /' | head -5
  # Column by column: the rows are in assoc_mgr's order, the same in both.
  # Two sections, each with its header: associations (sshare), then jobs
  # (sprio). A job row names its job; the tree shows its association's path
  # only for association rows.
  paste -d '\n' "$dir/m.out" "$dir/f.out" | awk -F'|' '
    NR % 2 == 1 { split($0, m, "|"); mline = $0; next }
    mline == $0 && ($1 == "id" || ($1 == "job" && $2 == "JOBID")) {
      for (i = 1; i <= NF; i++) name[i] = $i; jobs = $1 == "job"; next
    }
    {
      if (jobs) row = "job " m[2] " partition " m[3]
      else row = "id " $1 " " m[2] (m[3] != "" ? " user " m[3] : "") (m[4] != "" ? " partition " m[4] : "")
      n = split($0, f, "|"); d = ""
      for (i = 1; i <= n; i++) if (m[i] != f[i]) d = d " " name[i] " " m[i] "/" f[i]
      if (mline == "" || $0 == "") d = " row missing in one dump"
      if (d != "") { shown++; if (shown <= 25) print "  " row ":" d; if (!jobs) ids = ids " " $1 }
    }
    END {
      if (shown > 25) print "  ... " shown - 25 " more differing rows"
      printf "  (multifactor/fairway) %d differing rows\n", shown
      print "ids" ids > "/dev/stderr"
    }' 2> "$dir/ids"
  # The tree above the differing rows (the records on their paths to root).
  "$host" --tree "$seed" $dup | awk -v ids="$(sed 's/^ids//' "$dir/ids")" '
    NR == 1 { print "  " $0; next }
    { line[NR] = $0; match($0, / id=[0-9]+/); id = substr($0, RSTART + 4, RLENGTH - 4)
      match($0, / parent=[0-9]+/); par[id] = substr($0, RSTART + 8, RLENGTH - 8); at[NR] = id }
    END {
      n = split(ids, want, " ")
      for (k = 1; k <= n && k <= 25; k++)
        for (id = want[k]; id != "" && id != 0 && !(id in keep); id = par[id]) keep[id] = 1
      for (r = 2; r <= NR; r++) if (at[r] in keep) print "  " line[r]
    }'
  [ -n "$work" ] && cp -r "$dir" "$work/"
  rm -rf "$dir"
}


# boundary_cases FROM TO: the boundary cases of those seeds.
boundary_cases() {
  local s m
  for s in $(seq "$1" "$2"); do
    for m in fair_tree classic depth_oblivious; do
      [ -n "$only_mode" ] && [ "$m" != "$only_mode" ] && continue
      echo "$s $m $((1 + s % 5)) boundary"
    done
  done
}

# The case list: SEED MODE DAMP, one a line.
cases() {
  local s m d from=$first to=$((first + seeds - 1))
  if [ -n "$only_seed" ]; then from=$only_seed to=$only_seed; fi
  [ -z "$boundary" ] || { boundary_cases "$from" "$to"; return 0; }
  for s in $(seq "$from" "$to"); do
    for m in fair_tree classic depth_oblivious; do
      for d in 1 $((2 + s % 4)); do
        [ -n "$only_mode" ] && [ "$m" != "$only_mode" ] && continue
        [ -n "$only_damp" ] && [ "$d" != "$only_damp" ] && continue
        echo "$s $m $d"
      done
    done
  done
  [ -z "$only_seed" ] && [ "${DIFF_BOUNDARY_SEEDS:-0}" -gt 0 ] &&
    boundary_cases "$first" $((first + DIFF_BOUNDARY_SEEDS - 1))
  # Trees with a duplicated id (issue 45), with the same seeds' settings.
  [ -z "$dup" ] && [ -z "$only_seed" ] && [ "${DIFF_DUP_SEEDS:-0}" -gt 0 ] || return 0
  for s in $(seq "$first" $((first + DIFF_DUP_SEEDS - 1))); do
    for m in fair_tree classic depth_oblivious; do
      for d in 1 $((2 + s % 4)); do echo "$s $m $d dup"; done
    done
  done
}

# All cases, two at a time (-j), each case's report in its own file of
# DIFF_RESULTS so that cases run at once never interleave their lines.
run_all() {
  local start out passed failed expected elapsed v
  # Built against another release's tree (scripts/build 26.05.3): the host
  # cannot run with this machine's libslurmfull; 77 is automake's skip.
  if ! v=$("$host" --same-slurm 2>&1); then
    echo "SKIP: differential: the host is not for this machine's Slurm: $v"
    return 77
  fi
  start=$EPOCHREALTIME
  expected=$(cases | wc -l)
  DIFF_RESULTS=$(mktemp -d "${TMPDIR:-/tmp}/fairway-diff-results.XXXXXX")
  export DIFF_HOST="$host" MULTIFACTOR_SO="$multifactor" FAIRWAY_SO="$fairway" DIFF_RESULTS
  [ -z "${DIFF_REPLAY:-}" ] || export DIFF_REPLAY
  cases | xargs -P "$jobs" -L 1 "$0" ${dup:+--dup} --one
  out=$(cat "$DIFF_RESULTS"/* 2>/dev/null)
  rm -rf "$DIFF_RESULTS"
  passed=$(echo "$out" | grep -c '^ok ')
  failed=$(echo "$out" | grep -c '^FAIL: ')
  echo "$out" | grep -v '^ok '
  if [ $((passed + failed)) -ne "$expected" ]; then
    echo "FAIL: $((expected - passed - failed)) of $expected cases gave no result"
    failed=$((expected - passed))
  fi
  elapsed=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')
  printf 'differential: %d cases in %.1f s (multifactor %s, fairway %s)\n' \
    "$expected" "$elapsed" "$multifactor" "$fairway"
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}

# The last line: bash has read the whole file before any case runs, so a
# script edited while it runs does not change under it.
if [ $# -gt 0 ]; then one_case "$@" > "$DIFF_RESULTS/$(printf '%08d' "$1").$2.$3${4:+.$4}"; exit 0; else run_all; exit; fi
