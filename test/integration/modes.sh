#!/bin/bash
# Fairway's own fairshare modes on a live controller:
# - ranged: every user's FairShare as the controller computed it equals
#   `fairway explain`'s recomputation, and users of an over-served account
#   stay below every user of its under-served sibling (the slice guarantee);
# - planned use: a steady user within its planned rate keeps FairShare 1 and
#   outranks a bursting user; the ledger survives a controller restart;
# - a bad PriorityParameters value leaves the controller running, with a log
#   line naming the key and value.
set -u
. "$(dirname "$0")/lib.sh"

dir=$(mktemp -d /tmp/fairway-modes.XXXXXX)
chmod 755 "$dir"
trap 'stop_cluster "$dir/c"; rm -rf "$FW_PLUGIN_DIR"' EXIT
prepare_plugin_dir || exit 1

user_fairshare() {  # account user -> FairShare column
  sshare -n -P -A "$1" -u "$2" -o account,user,fairshare | awk -F'|' -v u="$2" '$2==u{print $3}'
}
job_priority() { squeue -h -j "$1" -o %Q; }

# explain_jobs MODE: `fairway explain job` agrees with the controller for
# every pending job.
explain_jobs() {
  local mode=$1 id bad=0 count=0
  for id in $(squeue -h -t PD -o %i); do
    count=$((count + 1))
    "$FAIRWAY" explain job "$id" > "$dir/explain-job-$id.txt" 2>&1 || {
      bad=$((bad + 1)); grep MISMATCH "$dir/explain-job-$id.txt" | head -3; }
  done
  if [ "$count" -gt 0 ] && [ "$bad" = 0 ]; then
    pass "$mode: fairway explain job equals the controller's priority for all $count pending jobs"
  else
    fail "$mode: fairway explain job disagrees for $bad of $count pending jobs"
  fi
}

# ---- ranged -----------------------------------------------------------
cat > "$dir/ranged.conf" <<CONF
PriorityParameters=fairshare=ranged
PriorityDecayHalfLife=0
PriorityUsageResetPeriod=YEARLY
CONF
mkdir -p "$dir/c"
log "ranged tree"
start_cluster "$dir/c" priority/fairway "$dir/ranged.conf" || { fail "cluster start"; summary; exit 1; }
create_example_tree
submit_as fwuser1 -n2 --wrap 'sleep 3' >/dev/null   # account a (b) uses a lot
submit_as fwuser2 -n1 --wrap 'sleep 2' >/dev/null   # account a (c)
submit_as fwuser4 -n1 --wrap 'sleep 1' >/dev/null   # account d (e) uses little
wait_jobs_done 120
drain_node
for u in 1 2 3 4 5; do submit_as "fwuser$u" -n1 --wrap 'sleep 1' >/dev/null; done
wait_decay_passes "$dir/c" 1 || fail "ranged: no decay pass"
grep -q "fairshare mode ranged" "$dir/c/log/slurmctld.log" \
  && pass "ranged: slurmctld's log shows the mode in force" \
  || fail "ranged: mode not in slurmctld's log"
ok=1
for pair in b,fwuser1 c,fwuser2 c,fwuser3 e,fwuser4 f,fwuser5; do
  if ! "$FAIRWAY" explain assoc "$pair" > "$dir/explain-$pair.txt" 2>&1; then
    ok=0; fail "ranged: fairway explain assoc $pair disagrees with the controller"
    cat "$dir/explain-$pair.txt"
  fi
done
[ $ok = 1 ] && pass "ranged: fairway explain's recomputation equals the controller for every user"
explain_jobs ranged
# a used 0.40 of shares heavily; d (0.60) lightly: every user under d must
# have a higher FairShare than every user under a.
min_d=$(for p in e,fwuser4 f,fwuser5; do user_fairshare "${p%,*}" "${p#*,}"; done | sort -g | head -1)
max_a=$(for p in b,fwuser1 c,fwuser2 c,fwuser3; do user_fairshare "${p%,*}" "${p#*,}"; done | sort -g | tail -1)
if awk -v d="$min_d" -v a="$max_a" 'BEGIN{exit !(d > a)}'; then
  pass "ranged: every user of the under-served account outranks the over-served one's ($min_d > $max_a)"
else
  fail "ranged: slice order violated (min under d $min_d, max under a $max_a)"
fi
stop_cluster "$dir/c"
rm -rf "$dir/c"

# ---- planned use ------------------------------------------------------
# Two accounts with one share each; capacity 0.5 billing/s makes each
# planned rate 0.25 CPU: a 2-CPU burst is far beyond it, a short 1-CPU job
# is within it. One-minute intervals and a two-minute half-life.
cat > "$dir/planned.conf" <<CONF
PriorityParameters=fairshare=planned_use,planned_use_interval=1,planned_use_capacity=0.5
PriorityDecayHalfLife=2
PriorityCalcPeriod=1
CONF
mkdir -p "$dir/c"
log "planned use"
start_cluster "$dir/c" priority/fairway "$dir/planned.conf" || { fail "cluster start"; summary; exit 1; }
"$FW_CLUSTER" users 6 >/dev/null 2>&1
sacctmgr -i add account steady fairshare=1 >/dev/null
sacctmgr -i add account burst fairshare=1 >/dev/null
sacctmgr -i add user fwuser5 account=steady >/dev/null
sacctmgr -i add user fwuser6 account=burst >/dev/null
submit_as fwuser6 -A burst -n2 --wrap 'sleep 75' >/dev/null
submit_as fwuser5 -A steady -n1 --wrap 'sleep 5' >/dev/null
wait_jobs_done 180
wait_decay_passes "$dir/c" 1 || fail "planned use: no decay pass"
drain_node
steady_job=$(submit_as fwuser5 -A steady -n1 --wrap 'sleep 1')
burst_job=$(submit_as fwuser6 -A burst -n1 --wrap 'sleep 1')
wait_decay_passes "$dir/c" 1
fs_steady=$(user_fairshare steady fwuser5)
fs_burst=$(user_fairshare burst fwuser6)
log "planned use: FairShare steady $fs_steady, burst $fs_burst"
awk -v s="$fs_steady" 'BEGIN{exit !(s == 1)}' \
  && pass "planned use: the user within its planned rate keeps FairShare 1 ($fs_steady)" \
  || fail "planned use: steady user's FairShare is $fs_steady, expected 1"
awk -v b="$fs_burst" 'BEGIN{exit !(b < 1)}' \
  && pass "planned use: the bursting user's FairShare dropped ($fs_burst)" \
  || fail "planned use: bursting user's FairShare is $fs_burst, expected < 1"
[ "$(job_priority "$steady_job")" -gt "$(job_priority "$burst_job")" ] \
  && pass "planned use: the steady user's job outranks the burst's" \
  || fail "planned use: job priorities steady $(job_priority "$steady_job"), burst $(job_priority "$burst_job")"
explain_jobs "planned use"
"$FAIRWAY" explain assoc burst,fwuser6 > "$dir/explain-burst.txt" 2>&1 \
  && pass "planned use: fairway explain agrees with the controller" \
  || { fail "planned use: fairway explain disagrees"; cat "$dir/explain-burst.txt"; }

ledger="$dir/c/state/fairway_planned_use"
[ -s "$ledger" ] && pass "planned use: ledger file written" || fail "planned use: no ledger file"
since=$(date +%s)
restart_ctld "$dir/c" priority/fairway >/dev/null 2>&1 || fail "planned use: restart"
wait_pass_since "$dir/c" "$since" 150 || fail "planned use: no pass after the restart"
sleep 2
grep -q "ledger of [0-9]* associations restored" "$dir/c/log/slurmctld.log" \
  && pass "planned use: ledger restored after a restart" \
  || fail "planned use: no ledger restore in slurmctld's log"
fs_burst_after=$(user_fairshare burst fwuser6)
awk -v b="$fs_burst_after" 'BEGIN{exit !(b < 1)}' \
  && pass "planned use: the burst is still remembered after the restart ($fs_burst_after)" \
  || fail "planned use: FairShare after restart $fs_burst_after, expected < 1"

# ---- bad PriorityParameters -------------------------------------------
printf 'PriorityParameters=fairshare=rangd,planned_use_interval=-5\n' > "$dir/bad.conf"
restart_ctld "$dir/c" priority/fairway "$dir/bad.conf" >/dev/null 2>&1
if scontrol ping | grep -q UP; then
  pass "bad PriorityParameters: the controller keeps running"
else
  fail "bad PriorityParameters: the controller is down"
fi
grep -q "PriorityParameters: bad value 'rangd' for key 'fairshare'" "$dir/c/log/slurmctld.log" \
  && grep -q "planned_use_interval" "$dir/c/log/slurmctld.log" \
  && pass "bad PriorityParameters: the log names each key and value" \
  || fail "bad PriorityParameters: no log line naming the key and value"
summary
