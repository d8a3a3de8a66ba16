#!/bin/bash
# Runs every live-cluster scenario of scenarios.list once and prints one
# closing line "integration: N passed, M failed" over all their checks; exits
# 0 iff none failed.
#
# A scenario mostly waits (decay passes every PriorityCalcPeriod, sleeping
# jobs), so several share the machine well: FW_IT_LANES lanes (default 3;
# 1 runs the scenarios one after another in the list's order), each lane
# running one scenario at a time on its own ports, FAIRWAY_PORT_BASE
# (default 16817) + 1000 x lane; every scenario makes its own cluster
# directory (mktemp). The longest scenarios (seconds in scenarios.list)
# start first, each on the first free lane. Each scenario's output goes to
# its own log and is printed whole when it ends, with its wall time.
#
# Usage: run-all.sh [NAME...]    only these scenarios of the list
# Environment: FW_IT_LANES, FAIRWAY_PORT_BASE, FW_KEEP=1 (keep the logs).
set -u
here=$(cd "$(dirname "$0")" && pwd)
list=$here/scenarios.list
me=run-all.sh

lanes=${FW_IT_LANES:-3}
[[ $lanes =~ ^[1-9][0-9]*$ ]] \
  || { echo "$me: FW_IT_LANES=$lanes: expected a whole number of lanes, 1 or more" >&2; exit 2; }
base=${FAIRWAY_PORT_BASE:-16817}
if ! [[ $base =~ ^[1-9][0-9]*$ ]] || ((base + 1000 * (lanes - 1) + 2 > 65535)); then
  echo "$me: FAIRWAY_PORT_BASE=$base with FW_IT_LANES=$lanes: the last lane's ports" \
    "(base + 1000 x $((lanes - 1)) + 2) must be below 65536" >&2
  exit 2
fi

# ---- the list: "NAME [SECONDS]", # comments ------------------------------
names=() secs=()
declare -A listed
while read -r name s _; do
  [[ -z $name || $name == \#* ]] && continue
  [ -f "$here/$name.sh" ] || { echo "$me: scenarios.list names $name, but $here/$name.sh does not exist" >&2; exit 2; }
  # Unmeasured: assume long, start it first.
  [[ ${s:-} =~ ^[0-9]+$ ]] || s=99999
  names+=("$name"); secs+=("$s"); listed[$name]=1
done < "$list"
# Every NAME.sh here but lib.sh is a scenario: one missing from the list
# (a merge that kept the file and lost its line) fails the run rather than
# silently not running. releases_smoke and releases_live run on other
# Slurm releases, which scripts/test-all prepares and runs after this run;
# so does reliability_reconnect (26.05.3 only: releases_live.sh's lane 4).
# two_clusters checks the two-cluster harness (scripts/cluster start
# --join); it joins the list with the global-fairshare scenarios (issue 49).
unlisted=()
for f in "$here"/*.sh; do
  n=$(basename "$f" .sh)
  case $n in lib | run-all | releases_smoke | releases_live | reliability_reconnect | two_clusters) continue ;; esac
  [ -n "${listed[$n]:-}" ] || unlisted+=("$n")
done
if [ $# -gt 0 ]; then  # a subset, in the list's order
  declare -A want
  for n in "$@"; do
    [ -n "${listed[$n]:-}" ] || { echo "$me: $n is not in scenarios.list" >&2; exit 2; }
    want[$n]=1
  done
  all_names=("${names[@]}") all_secs=("${secs[@]}")
  names=() secs=()
  for i in "${!all_names[@]}"; do
    [ -n "${want[${all_names[i]}]:-}" ] && { names+=("${all_names[i]}"); secs+=("${all_secs[i]}"); }
  done
fi
# Longest first (one lane: the list's order, as before lanes existed).
queue=()
if [ "$lanes" -gt 1 ]; then
  while read -r _ i; do queue+=("${names[i]}"); done \
    < <(for i in "${!names[@]}"; do echo "${secs[i]} $i"; done | sort -s -k1,1nr)
else
  queue=("${names[@]}")
fi

# ---- running -------------------------------------------------------------
log_dir=$(mktemp -d /tmp/fairway-it.XXXXXX)
total_pass=0 total_fail=0
declare -A lane_of start_of name_of took
free=()
for ((l = 0; l < lanes; l++)); do free+=("$l"); done

# start NAME LANE: in the background, in its own session (so that an
# interrupt can reach the scenario and whatever it runs in the foreground,
# and nothing else), with SIGINT/SIGQUIT at their defaults (a background
# command of a script starts with them ignored). A SIGTERM makes the
# scenario exit, which runs its EXIT trap: it stops its cluster.
start() {
  local name=$1 lane=$2 pid
  FAIRWAY_PORT_BASE=$((base + 1000 * lane)) env --default-signal=INT,QUIT \
    setsid bash -c 'trap "exit 143" TERM; . "$0"' "$here/$name.sh" \
    < /dev/null > "$log_dir/$name.log" 2>&1 &
  pid=$!
  lane_of[$pid]=$lane start_of[$pid]=$SECONDS name_of[$pid]=$name
}

# finish PID STATUS: print the scenario's log whole, add its counts.
finish() {
  local pid=$1 status=$2 name=${name_of[$1]} lane=${lane_of[$1]} line f s
  s=$((SECONDS - start_of[$pid]))
  took[$name]=$s
  echo "--- scenario $name (lane $lane, ports $((base + 1000 * lane))-$((base + 1000 * lane + 2))): ${s} s, exit status $status"
  cat "$log_dir/$name.log"
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log_dir/$name.log" | tail -1)
  if [ -z "$line" ]; then
    echo "FAIL: scenario $name ended without a summary (status $status)"
    total_fail=$((total_fail + 1))
  else
    total_pass=$((total_pass + ${line%% passed*}))
    f=${line#*, }; f=${f%% failed}
    total_fail=$((total_fail + f))
    if [ "$status" -ne 0 ] && [ "$f" = 0 ]; then total_fail=$((total_fail + 1)); fi
  fi
  free+=("$lane")
  unset "lane_of[$pid]" "start_of[$pid]" "name_of[$pid]"
}

interrupted=0
on_signal() {
  [ $interrupted = 1 ] && return
  interrupted=1
  echo "$me: interrupted: stopping the running scenarios (each stops its cluster)" >&2
  local pid
  for pid in "${!lane_of[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done
}
trap on_signal INT TERM HUP

t0=$SECONDS
next=0
while :; do
  while [ $interrupted = 0 ] && [ ${#free[@]} -gt 0 ] && [ $next -lt ${#queue[@]} ]; do
    start "${queue[next]}" "${free[0]}"
    free=("${free[@]:1}")
    next=$((next + 1))
  done
  [ ${#lane_of[@]} -eq 0 ] && break
  # Poll: bash's `wait -n` can miss a job that ended before it was called.
  sleep 1
  for pid in "${!lane_of[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid"
      finish "$pid" $?
    fi
  done
done
if [ $# -eq 0 ]; then
  for n in "${unlisted[@]}"; do
    echo "FAIL: $n.sh is in $here but not in scenarios.list: add a line '$n SECONDS' there"
    total_fail=$((total_fail + 1))
  done
fi
if [ $interrupted = 1 ]; then
  echo "FAIL: interrupted; $((${#queue[@]} - next)) scenario(s) not run"
  total_fail=$((total_fail + 1))
fi

echo "--- wall time $((SECONDS - t0)) s with $lanes lane(s); each scenario's (scenarios.list format):"
for name in "${names[@]}"; do
  [ -n "${took[$name]:-}" ] && printf '%-26s %5d\n' "$name" "${took[$name]}"
done
[ -n "${FW_KEEP:-}" ] && echo "--- logs kept in $log_dir" || rm -rf "$log_dir"
echo "integration: $total_pass passed, $total_fail failed"
[ $total_fail -eq 0 ]
