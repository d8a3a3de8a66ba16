#!/bin/bash
# A job that ends while a decay pass finishes. A pass charges every running
# job up to its own time; a job that ends after that charge must be charged
# from the pass's time on, not from the pass before, or the part the pass
# charged is charged twice. Between the charge and the end of a pass there
# are milliseconds (the store's slices, the state files' fsyncs), so a shim
# (hold_clock_fsync.c, preloaded into slurmctld alone) holds the window
# open: while armed, the pass's fsync of priority_last_decay_ran.new (both
# plugins write it last) sleeps HOLD seconds first. No decay
# (PriorityDecayHalfLife=0): RawUsage is exactly billing x elapsed.
#   fairway:     a job of RUN s; once it has run 2 s the shim is armed and
#                an association's shares change, which makes Fairway run a
#                pass (change_check) that charges the job, then holds while
#                the job ends.
#   multifactor: the same on the same state after restart-ctld, its pass
#                being the PriorityCalcPeriod timer's: the job is submitted
#                to run across the next one (the last pass's time + 60 s).
# Checked under each plugin:
# - the shim's log has a hold that began before the job's end and ended
#   after it, so the window was really there (else the check below proves
#   nothing, and this fails);
# - every user's RawUsage equals billing (allocated CPUs) x run time as
#   slurmctld recorded its jobs, and root's equals their sum.
set -u
. "$(dirname "$0")/lib.sh"

# Fairway's pass starts after the shim is armed at 2 s: at the next look
# (change_check = 2 s) once slurmdbd's update reached slurmctld, seconds
# later on a loaded machine. Any start before the job's end at RUN s is
# held over that end when HOLD exceeds RUN - 2 (and the job's elapsed may
# be RUN + 1).
RUN=12
HOLD=16
dir=$(mktemp -d /tmp/fairway-race.XXXXXX)
chmod 755 "$dir"
c=$dir/c
trap 'rm -f "$c/armed"; stop_cluster "$c"; rm -rf "$FW_PLUGIN_DIR"; [ -n "${FW_KEEP:-}" ] || rm -rf "$dir"' EXIT
prepare_plugin_dir || exit 1
# The shim, its switch and its log inside the cluster's directory: a
# chroot release's slurmctld sees only that one at the same path
# (scripts/cluster; with the switch in $dir, 24.11.5 never held).
mkdir -p "$c"
cc -shared -fPIC -O2 -o "$c/hold_clock_fsync.so" "$FW_TOP/test/integration/hold_clock_fsync.c" -ldl ||
  { fail "compile the shim"; summary; exit 1; }
FAIRWAY_CTLD_ENV="LD_PRELOAD=$c/hold_clock_fsync.so FW_HOLD_ARMED=$c/armed FW_HOLD_SECONDS=$HOLD FW_HOLD_LOG=$c/holds"
export FAIRWAY_CTLD_ENV

cat > "$dir/extra.conf" <<CONF
PriorityDecayHalfLife=0
PriorityUsageResetPeriod=NONE
PriorityCalcPeriod=1
CONF
log "starting the cluster with priority/fairway (the shim preloaded, unarmed)"
start_cluster "$c" priority/fairway "$dir/extra.conf" || { fail "cluster start"; summary; exit 1; }
create_example_tree

# epoch TIME: slurmctld's local time as seconds since the epoch.
epoch() { date -d "$1" +%s; }

# job_running ID: until job ID runs; prints its start (epoch).
job_running() {
  local id=$1 limit=$((SECONDS + 60)) start
  while [ "$(squeue -h -j "$id" -o %T 2>/dev/null)" != RUNNING ]; do
    [ $SECONDS -gt $limit ] && return 1
    sleep 0.2
  done
  start=$(scontrol show job "$id" | grep -oE 'StartTime=[^ ]+' | cut -d= -f2)
  epoch "$start"
}

# holds_over: until no hold is under way (as many "end" lines in the
# shim's log as "start" lines); false after 2 x HOLD s.
holds_over() {
  local limit=$((SECONDS + 2 * HOLD))
  while [ "$(grep -c '^start' "$c/holds" 2>/dev/null)" != "$(grep -c '^end' "$c/holds" 2>/dev/null)" ]; do
    [ $SECONDS -gt $limit ] && return 1
    sleep 0.5
  done
}

# held_over_end PLUGIN ID: the shim's log has a hold that began before job
# ID's end and ended after it (whole seconds, as slurmctld's clock counts).
held_over_end() {
  local plugin=$1 id=$2 end holds
  end=$(epoch "$(scontrol -o show job "$id" | grep -oE 'EndTime=[^ ]+' | cut -d= -f2)")
  holds=$(paste -d' ' - - < "$c/holds" 2>/dev/null | tr '\n' ';')
  if paste -d' ' - - < "$c/holds" 2>/dev/null |
     awk -v e="$end" '$2 <= e && $4 >= e {found=1} END {exit !found}'; then
    pass "$plugin: a pass's end was held ${HOLD} s over job $id's end at $end (holds: $holds)"
  else
    fail "$plugin: no hold spans job $id's end at $end (holds: ${holds:-none}): the scenario did not happen"
  fi
}

# What each of this scenario's jobs used, by user: billing (allocated
# CPUs) x run time as slurmctld recorded them, read when the job ends
# (record_job, with lib.sh's ended_job_usage: not sacct, which in a CI
# rehearsal listed this scenario's first job with no run time).
declare -A used=()
# record_job ID: adds job ID's CPUs x RunTime to its user's entry.
record_job() {
  local user secs
  read -r _ user secs < <(ended_job_usage "$1")
  [ -n "$secs" ] || { fail "job $1: slurmctld has no record of it"; return; }
  used[$user]=$(( ${used[$user]:-0} + secs ))
}

# charged_exactly PLUGIN: every user's RawUsage and root's against used.
charged_exactly() {
  local plugin=$1 user raw total=0 ok=1
  for user in "${!used[@]}"; do
    total=$((total + used[$user]))
    raw=$(raw_usage "$user")
    if [ "$raw" != "${used[$user]}" ]; then
      ok=0; fail "$plugin: $user RawUsage $raw, expected ${used[$user]} (billing x run time)"
    fi
  done
  raw=$(sshare -n -P -a -o account,user,rawusage | awk -F'|' '$1=="root" && $2==""{print $3; exit}')
  [ "$raw" = "$total" ] || { ok=0; fail "$plugin: root RawUsage $raw, expected $total"; }
  [ $ok = 1 ] && pass "$plugin: RawUsage equals billing x run time for ${!used[*]} and root ($total)"
}

# finish PLUGIN ID: after job ID ends, disarm; then the checks.
finish() {
  local plugin=$1 id=$2
  wait_jobs_done 120 || fail "$plugin: job $id did not end"
  rm -f "$c/armed"
  record_job "$id"
  # The held pass finishes: its usage and the job end's are all in.
  holds_over || fail "$plugin: a hold of the shim did not end"
  held_over_end "$plugin" "$id"
  charged_exactly "$plugin"
}

log "fairway: a ${RUN} s job, a pass charging it, its end inside the pass"
id=$(submit_as fwuser1 -n1 --wrap "sleep $RUN")
start=$(job_running "$id") || { fail "fairway: job $id did not start"; summary; exit 1; }
while [ "$(date +%s)" -lt $((start + 2)) ]; do sleep 0.2; done
touch "$c/armed"
sacctmgr -i modify user fwuser5 set fairshare=3 >/dev/null
finish fairway "$id"

log "multifactor on the same state: a ${RUN} s job across its next timer pass"
restart_ctld "$c" priority/multifactor >/dev/null 2>&1 || { fail "restart with multifactor"; summary; exit 1; }
# A first pass after the restart gives the timer's phase: passes then come
# every 60 s (PriorityCalcPeriod=1) from it.
first=$(last_decay_ran "$c")
limit=$((SECONDS + 90))
while [ "$(last_decay_ran "$c")" = "$first" ]; do
  [ $SECONDS -gt $limit ] && { fail "multifactor: no decay pass"; summary; exit 1; }
  sleep 0.5
done
next=$(( $(last_decay_ran "$c") + 60 ))
while [ "$(date +%s)" -lt $((next - RUN / 2 - 1)) ]; do sleep 0.5; done
touch "$c/armed"
id=$(submit_as fwuser2 -n1 --wrap "sleep $RUN")
start=$(job_running "$id") || { fail "multifactor: job $id did not start"; summary; exit 1; }
[ "$start" -lt "$next" ] || fail "multifactor: job $id started at $start, not before the pass at $next"
finish multifactor "$id"
summary
