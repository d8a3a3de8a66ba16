#!/bin/bash
# Freshness (issue 47, item 1): how long after a change that moves
# priorities the new priority is visible in sprio and in squeue, per kind
# of change, with priority/fairway and then with priority/multifactor on the
# same cluster and state. Alone (as root):
#   FAIRWAY_PORT_BASE=51817 test/integration/freshness.sh
# Classic fairshare (PriorityFlags=NO_FAIR_TREE: a change of shares moves
# every factor, not only a rank) and no decay (PriorityDecayHalfLife=0):
# and no age factor (PriorityWeightAge=0): with no job running,
# priorities stay put between passes, so a priority that moves was moved by
# the change. The pending jobs wait behind a reservation of the node for
# fwuser4 and fwuser5, whose jobs in it run and end for the job-end and
# requeue kinds. PriorityCalcPeriod=1 (minute), the cluster's.
# Checks, for priority/fairway: each change is visible in sprio and squeue
# within FW_FRESH_LIMIT seconds (5), and the pass that showed it names its
# trigger in fairway_pass_stats. For multifactor the same changes are
# measured, in one burst (its next periodic pass serves them all), and
# reported beside Fairway's; only job updates must be immediate for it.
# Also: fairway explain job names the last pass and the priority's age.
# FW_FRESH_RESULTS=FILE: the table (as doc/benchmark.md quotes it) is also
# copied there.
set -u
. "$(dirname "$0")/lib.sh"

limit=${FW_FRESH_LIMIT:-5}
dir=$(mktemp -d /tmp/fairway-fresh.XXXXXX)
chmod 755 "$dir"
trap 'stop_cluster "$dir/c"; rm -rf "$FW_PLUGIN_DIR"; [ -n "${FW_KEEP:-}" ] || rm -rf "$dir"' EXIT
prepare_plugin_dir || exit 1
cat > "$dir/extra.conf" <<'EOF'
PriorityFlags=NO_FAIR_TREE
PriorityDecayHalfLife=0
PriorityWeightAge=0
EOF

log "freshness: a cluster with priority/fairway (classic fairshare, no decay)"
start_cluster "$dir/c" priority/fairway "$dir/extra.conf" || { fail "cluster start"; summary; exit 1; }
state=$dir/c/state
conf=$dir/c/etc/slurm.conf
create_example_tree
sacctmgr -i add user fwuser2 account=f fairshare=1 > /dev/null
sacctmgr -i modify user fwuser2 where account=f set qos+=high,low > /dev/null
# Usage for fwuser1 (b) and fwuser4 (e): classic factors then depend on
# every share and parent on their path.
submit_as fwuser1 -n2 --wrap 'sleep 3' > /dev/null
submit_as fwuser4 -n1 --wrap 'sleep 2' > /dev/null
wait_jobs_done 60 || fail "the usage jobs did not finish"

scontrol create reservation reservationname=fresh users=fwuser4,fwuser5 nodes="$(node_name)" \
  starttime=now duration=unlimited flags=ignore_jobs > /dev/null || fail "reservation"
j1=$(submit_as fwuser1 -p debug --wrap true)
j2=$(submit_as fwuser2 -p debug -A c --qos=high --wrap true)
j3=$(submit_as fwuser3 -p debug --wrap true)
j4=$(submit_as fwuser4 -p debug --wrap true)
j5=$(submit_as fwuser5 -p high --qos=high --wrap true)
log "pending jobs $j1 $j2 $j3 $j4 $j5"

# prio SOURCE JOB: the job's priority as squeue (%Q) or sprio (%Y) shows it.
prio() {
  case $1 in
    squeue) squeue -h -j "$2" -o %Q 2> /dev/null ;;
    sprio) sprio -h -j "$2" -o %Y 2> /dev/null | head -n1 | tr -d ' ' ;;
  esac
}
# settled: two looks 1.5 s apart show every priority the same.
settled() {
  local a b n
  for n in $(seq 20); do
    a=$(squeue -h -t PD -o '%i %Q' | sort; sprio -h -o '%i %Y' | sort)
    sleep 1.5
    b=$(squeue -h -t PD -o '%i %Q' | sort; sprio -h -o '%i %Y' | sort)
    [ "$a" = "$b" ] && return 0
  done
  return 1
}
# measure KIND JOB LIMIT COMMAND...: runs COMMAND, then waits until JOB's
# priority differs from before in both squeue and sprio; prints KIND and
# the seconds from COMMAND's end (-1 past LIMIT) to "$dir/measured".
measure_start() {
  local job=$1
  before_q=$(prio squeue "$job") before_s=$(prio sprio "$job")
}
measure_wait() {
  local kind=$1 job=$2 lim=$3 t0=$4 q s now
  while :; do
    now=$(date +%s.%N)
    q=$(prio squeue "$job") s=$(prio sprio "$job")
    if [ -n "$q" ] && [ "$q" != "$before_q" ] && [ -n "$s" ] && [ "$s" != "$before_s" ]; then
      printf '%s %.1f %s->%s\n' "$kind" "$(echo "$now - $t0" | bc)" "$before_q" "$q" >> "$dir/measured.$plugin"
      return 0
    fi
    if [ "$(echo "$now - $t0 > $lim" | bc)" = 1 ]; then
      printf '%s -1 %s\n' "$kind" "$before_q" >> "$dir/measured.$plugin"
      return 1
    fi
    sleep 0.2
  done
}
measure() {
  local kind=$1 job=$2 lim=$3 t0
  shift 3
  measure_start "$job"
  "$@" > /dev/null 2>&1 || fail "$kind: $* failed"
  t0=$(date +%s.%N)
  measure_wait "$kind" "$job" "$lim" "$t0"
}
# run_and_end USER: a job of USER that runs 2 s; returns when it ended.
run_and_end() {
  local id
  id=$(submit_as "$1" -n1 -p debug --reservation=fresh --wrap 'sleep 2')
  while [ -n "$(squeue -h -j "$id" -t PD,R,CG -o %i 2> /dev/null)" ]; do sleep 0.1; done
}
requeue_running() {
  local id
  id=$(submit_as "$1" -n1 -p debug --reservation=fresh --wrap 'sleep 60')
  while [ "$(squeue -h -j "$id" -o %T)" != RUNNING ]; do sleep 0.2; done
  sleep 2
  scontrol requeue "$id"
  requeued=$id
}
reconfigure_qos_weight() {
  sed -i "/^PriorityWeightQOS=/Id" "$conf"
  echo "PriorityWeightQOS=$1" >> "$conf"
  shorten_next_pid "$dir/c"
  scontrol reconfigure
}
trigger_of_last_pass() { sed -n 's/^trigger=//p' "$state/fairway_pass_stats" 2> /dev/null; }

plugin=fairway
settled || fail "fairway: priorities did not settle"
log "fairway: one change at a time"
fairway_kind() {
  local kind=$1 job=$2
  shift 2
  if measure "$kind" "$job" "$limit" "$@"; then
    pass "fairway: $kind visible in sprio and squeue after $(tail -n1 "$dir/measured.fairway" | cut -d' ' -f2) s (pass triggered by $(trigger_of_last_pass))"
  else
    fail "fairway: $kind not visible within $limit s (last pass: $(trigger_of_last_pass))"
  fi
}
fairway_kind assoc_shares "$j1" sacctmgr -i modify account b set fairshare=60
fairway_kind assoc_priority "$j3" sacctmgr -i modify user fwuser3 set priority=50
fairway_kind assoc_parent "$j2" sacctmgr -i modify account c set parent=d
fairway_kind assoc_added "$j1" sacctmgr -i add user fwuser4 account=b fairshare=1
fairway_kind assoc_removed "$j1" sacctmgr -i remove user fwuser4 account=b
fairway_kind qos_priority "$j5" sacctmgr -i modify qos low set priority=500
fairway_kind partition_factor "$j4" scontrol update partitionname=high priorityjobfactor=50
fairway_kind reconfigure "$j5" reconfigure_qos_weight 20000
# The re-executed slurmctld (23.11+) got a shorter pid than the one before
# (shorten_next_pid): the cluster script must still find it by its pid
# file, or restart_ctld below starts a second slurmctld beside it.
pid_lines=$(wc -l < "$dir/c/run/slurmctld.pid")
if "$FW_CLUSTER" status --dir "$dir/c" 2>/dev/null | grep -q '^slurmctld  *running'; then
  pass "reconfigure: the cluster script finds the running slurmctld by its pid file (pid $(ctld_pid "$dir/c"), $pid_lines line(s) in the file)"
else
  fail "reconfigure: the cluster script does not find slurmctld by its pid file ($(tr '\n' ' ' < "$dir/c/run/slurmctld.pid"))"
fi
fairway_kind job_end "$j4" run_and_end fwuser4
fairway_kind job_requeued "$j5" requeue_running fwuser5
scancel "$requeued"
fairway_kind job_nice "$j3" scontrol update jobid="$j3" nice=100
fairway_kind job_qos "$j2" scontrol update jobid="$j2" qos=low
fairway_kind job_partition "$j1" scontrol update jobid="$j1" partition=high
fairway_kind job_account "$j2" scontrol update jobid="$j2" account=f
grep -q '^trigger=' "$state/fairway_pass_stats" && pass "fairway_pass_stats names the trigger: $(trigger_of_last_pass)" ||
  fail "fairway_pass_stats has no trigger line"
# Item 3: fairway explain says when the last pass ran, why, and how old the
# job's priority is.
"$FAIRWAY" explain job "$j1" > "$dir/explain.txt" 2>&1
if grep -qE '^Last pass: ended [0-9]+ s ago, triggered by [a-z_+]+; [0-9]+ jobs computed' "$dir/explain.txt" &&
  grep -qE '^  Priority age: (at most )?[0-9]+ s' "$dir/explain.txt"; then
  pass "fairway explain job: $(grep '^Last pass' "$dir/explain.txt" | cut -c1-80)...; $(grep 'Priority age' "$dir/explain.txt" | cut -c3-60)..."
else
  fail "fairway explain job lacks the last pass or the priority's age"
  head -5 "$dir/explain.txt"
fi
grep -q 'priority pass trigger ' "$dir/c/log/slurmctld.log" 2> /dev/null ||
  log "(no 'priority pass trigger' line in slurmctld.log: SlurmctldDebug below verbose?)"

log "multifactor: the same kinds on the same cluster"
restart_ctld "$dir/c" priority/multifactor > /dev/null || { fail "restart with multifactor"; summary; exit 1; }
plugin=multifactor
settled || fail "multifactor: priorities did not settle"
# Its periodic pass serves every change at once: two bursts (an
# association added, then removed), each target watched from its own
# change. The window: PriorityCalcPeriod and 10 s.
mf_limit=70
burst() {
  local spec kind job t0 pids=()
  for spec in "$@"; do
    set -- $spec
    kind=$1 job=$2
    shift 2
    measure_start "$job"
    "$@" > /dev/null 2>&1 || fail "multifactor: $kind: $* failed"
    t0=$(date +%s.%N)
    ( measure_wait "$kind" "$job" "$mf_limit" "$t0" ) &
    pids+=($!)
  done
  wait "${pids[@]}"
}
burst "assoc_shares $j1 sacctmgr -i modify account b set fairshare=10" \
  "assoc_priority $j3 sacctmgr -i modify user fwuser3 set priority=20" \
  "assoc_parent $j2 sacctmgr -i modify account c set parent=a" \
  "assoc_added $j1 sacctmgr -i add user fwuser4 account=b fairshare=1" \
  "qos_priority $j5 sacctmgr -i modify qos low set priority=150" \
  "partition_factor $j4 scontrol update partitionname=high priorityjobfactor=80" \
  "reconfigure $j5 reconfigure_qos_weight 15000" \
  "job_end $j4 run_and_end fwuser4" \
  "job_requeued $j5 requeue_running fwuser5"
scancel "$requeued"
burst "assoc_removed $j1 sacctmgr -i remove user fwuser4 account=b"
for spec in "job_nice $j3 nice=200" "job_qos $j2 qos=high" "job_partition $j1 partition=debug" "job_account $j2 account=c"; do
  set -- $spec
  if measure "$1" "$2" "$limit" scontrol update jobid="$2" "$3"; then
    pass "multifactor: $1 visible at once too ($(tail -n1 "$dir/measured.multifactor" | cut -d' ' -f2) s)"
  else
    fail "multifactor: $1 not visible within $limit s"
  fi
done

# The table: kind, Fairway's seconds, multifactor's (-1: not within its window).
{
  printf '# freshness: seconds from the change to the new priority in sprio and squeue\n'
  printf '# Slurm %s, PriorityCalcPeriod=1 (minute), %s\n' "$(sinfo -V | cut -d' ' -f2)" "$(date -u +%Y-%m-%d)"
  printf '%-18s %8s %12s\n' kind fairway multifactor
  cut -d' ' -f1 "$dir/measured.fairway" | while read -r kind; do
    printf '%-18s %8s %12s\n' "$kind" "$(awk -v k="$kind" '$1==k{print $2}' "$dir/measured.fairway" | head -n1)" \
      "$(awk -v k="$kind" '$1==k{print $2}' "$dir/measured.multifactor" | head -n1)"
  done
} > "$dir/table"
cat "$dir/table"
[ -n "${FW_FRESH_RESULTS:-}" ] && cp "$dir/table" "$FW_FRESH_RESULTS"
summary
