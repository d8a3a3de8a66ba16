#!/bin/bash
# Differential test: the same cluster state under priority/multifactor and
# priority/fairway must print identical sprio -l, sprio -w, sshare -a -l,
# scontrol show job (Priority, Nice) and squeue priorities, in Fair Tree,
# classic (NO_FAIR_TREE) and DEPTH_OBLIVIOUS modes.
#
# Usage is made once, by real jobs of real users, without decay
# (PriorityDecayHalfLife=0, reset YEARLY) so that both plugins see exactly
# the same usage; then slurmctld is restarted with each plugin in turn on
# the same state. From Slurm 24.11 the queue also holds jobs with several
# QOS (--qos=a,b), one in one partition and one in two: one priority and
# one sprio row per (partition, QOS). A separate check asserts that fairway
# itself charges usage exactly (billing x run time, from slurmctld's records).
#
# The tree is the documented example's (lib.sh create_example_tree) plus
# associations without a pending job, which a pass over pending jobs alone
# would miss (issue 45): see extend_tree below. sshare -a -l -P is compared
# whole (every column, every association) in each mode and also on an idle
# cluster (no job pending or running) in classic and DEPTH_OBLIVIOUS modes;
# jobs in a QOS with Flags=EnforceUsageThreshold must get the same reason
# (QOSUsageThreshold or not) under both plugins.
set -u
. "$(dirname "$0")/lib.sh"

dir=$(mktemp -d /tmp/fairway-parity.XXXXXX)
out="$dir/captures"
mkdir -p "$out"
chmod 755 "$dir"
trap 'stop_cluster "$dir/c"; rm -rf "$FW_PLUGIN_DIR"' EXIT
prepare_plugin_dir || exit 1

cat > "$dir/base.conf" <<CONF
PriorityDecayHalfLife=0
PriorityUsageResetPeriod=YEARLY
PriorityMaxAge=1
PriorityCalcPeriod=1
CONF
mkdir -p "$dir/c"
# The extended tree's users exist before the cluster starts: a release run
# in a chroot copies the host's users into it at start (scripts/cluster).
"$FW_CLUSTER" users 10 >/dev/null 2>&1
log "starting the cluster with priority/fairway"
start_cluster "$dir/c" priority/fairway "$dir/base.conf" || { fail "cluster start"; summary; exit 1; }
create_example_tree

# extend_tree: associations the example lacks, each a case a computation
# over pending jobs alone misses or gets wrong:
#   b: fwuser6, never ran a job and has none;
#   c: fwuser8, Fairshare=0 (zero shares), runs a job and has a pending one;
#   f: fwuser9, Fairshare=parent, no job (root's own association is the
#      other Fairshare=parent user, with jobs);
#   g: a sub-account of d at Fairshare=parent holding fwuser7 and fwuser10
#      (Fairshare=1 each) with exactly equal usage (a tie); fwuser7 has no
#      pending job, fwuser10 has one;
# and QOS thresh (UsageThreshold=0.5, Flags=EnforceUsageThreshold; the flag
# is spelled so by sacctmgr, _str_2_qos_flags in src/common/slurmdb_defs.c).
extended_users="fwuser6 fwuser7 fwuser8 fwuser9 fwuser10"
extend_tree() {
  sacctmgr -i add account g parent=d fairshare=parent >/dev/null
  sacctmgr -i add user fwuser6 account=b fairshare=1 >/dev/null
  sacctmgr -i add user fwuser8 account=c fairshare=0 >/dev/null
  sacctmgr -i add user fwuser9 account=f fairshare=parent >/dev/null
  sacctmgr -i add user fwuser7,fwuser10 account=g fairshare=1 >/dev/null
  sacctmgr -i add qos thresh UsageThreshold=0.5 Flags=EnforceUsageThreshold >/dev/null
  sacctmgr -i modify user "fwuser1,fwuser2,fwuser3,fwuser4,fwuser5,${extended_users// /,}" \
    set qos+=high,low,thresh >/dev/null
}
extend_tree

log "making usage with real jobs (fairway charges it)"
submit_as fwuser1 -n1 --wrap 'sleep 3' >/dev/null
submit_as fwuser2 -n2 --wrap 'sleep 2' >/dev/null
submit_as fwuser4 -n1 -p high --wrap 'sleep 4' >/dev/null
submit_as fwuser8 -n1 --wrap 'sleep 1' >/dev/null
sbatch -o /dev/null -e /dev/null -n1 --wrap 'sleep 2' >/dev/null
# The tie: both jobs held, then released together, start in the same
# scheduling cycle and run the same command.
tie_jobs=$(submit_as fwuser7 -n1 -H --wrap 'sleep 2'),$(submit_as fwuser10 -n1 -H --wrap 'sleep 2')
scontrol release "$tie_jobs"
wait_jobs_done || fail "usage jobs did not finish"
# Each ended job's CPU-seconds by id, read while slurmctld holds them.
declare -A job_usage=()
record_ended_jobs() {
  local id user secs
  while read -r id user secs; do job_usage[$id]="$user $secs"; done < <(ended_job_usage)
}
record_ended_jobs
wait_accounting_done || fail "slurmdbd did not record the usage jobs' ends"
# Elapsed time is counted in whole seconds of slurmctld's clock: two equal
# jobs can still end on either side of a second. The one behind then runs
# `sleep 1` jobs (1 or 2 s each) until the usages are equal (at most 3).
for _ in 1 2 3; do
  u7=$(raw_usage fwuser7) u10=$(raw_usage fwuser10)
  [ "$u7" = "$u10" ] && break
  behind=fwuser7; [ "$u10" -lt "$u7" ] && behind=fwuser10
  log "tie: fwuser7 $u7, fwuser10 $u10: one more second for $behind"
  submit_as "$behind" -n1 --wrap 'sleep 1' >/dev/null
  { wait_jobs_done && wait_accounting_done; } || fail "the tie's extra job did not finish"
  record_ended_jobs
done
u7=$(raw_usage fwuser7) u10=$(raw_usage fwuser10)
if [ -n "$u7" ] && [ "$u7" -gt 0 ] && [ "$u7" = "$u10" ]; then
  pass "tie: fwuser7 and fwuser10 have the same RawUsage ($u7)"
else
  fail "tie: fwuser7 RawUsage $u7, fwuser10 $u10: not a tie"
fi

# Without decay, each association's RawUsage is exactly the sum of billing
# (here: allocated CPUs) x run time of its jobs, as slurmctld recorded them
# (lib.sh's ended_job_usage says why not sacct).
declare -A expected
for id in "${!job_usage[@]}"; do
  read -r user secs <<<"${job_usage[$id]}"
  expected[$user]=$(( ${expected[$user]:-0} + secs ))
done
[ ${#job_usage[@]} -ge 7 ] || fail "charging: slurmctld held ${#job_usage[@]} of the 7 or more usage jobs"
ok=1
for user in "${!expected[@]}"; do
  raw=$(raw_usage "$user")
  if [ "$raw" != "${expected[$user]}" ]; then
    ok=0; fail "charging: $user RawUsage $raw, expected ${expected[$user]} (billing x run time)"
  fi
done
[ $ok = 1 ] && pass "charging: every user's RawUsage equals billing x run time (${!expected[*]})"

# check_sshare_rows NAME FILE: FILE (sshare -a -l -P) has a row for every
# association of the tree, those without a job included, so that comparing
# two such files compares them all.
check_sshare_rows() {
  local name=$1 file=$2 assoc missing=
  for assoc in root: root:root a: b: c: d: e: f: g: b:fwuser1 c:fwuser2 c:fwuser3 e:fwuser4 \
      f:fwuser5 b:fwuser6 g:fwuser7 c:fwuser8 f:fwuser9 g:fwuser10; do
    awk -F'|' -v a="${assoc%%:*}" -v u="${assoc#*:}" \
      '{gsub(/ /, "", $1)} $1 == a && $2 == u {found = 1} END {exit !found}' "$file" \
      || missing="$missing $assoc"
  done
  if [ -z "$missing" ]; then
    pass "$name: sshare -a -l -P has a row for each of the tree's 20 associations"
  else
    fail "$name: sshare -a -l -P lacks (account:user)$missing"
  fi
}

# settle_depth_oblivious: multifactor's DEPTH_OBLIVIOUS effective usage
# sums the siblings' usage_norm (_depth_oblivious_set_usage_efctv in
# slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c),
# which is NO_VAL (4294967294) in an association slurmctld has not computed
# since it started (slurmdb_create_assoc_usage in src/common/slurmdb_defs.c):
# a user's, until its job or sshare asks for it (assoc_mgr_get_shares); an
# account's, until the first pass reached it. One sshare computes every
# association; the pass after it, and the sshare after that, see them all.
# A site's long-running multifactor has long settled so; Fairway needs none
# of it (its values do not depend on what was asked before).
settle_depth_oblivious() { sshare -a > /dev/null; }

# idle_mode MODE FLAGS [SETTLE]: what a site sees on an idle cluster, usage
# and no job pending or running: sshare -a -l -P (every column, every
# association) under each plugin after a pass. SETTLE: multifactor settles
# first (settle_depth_oblivious and one more pass; Fairway is captured
# after its first pass).
idle_mode() {
  local mode=$1 flags=$2 settle=${3:-} plugin since
  printf 'PriorityFlags=%s\n' "$flags" > "$dir/idle_$mode.conf"
  for plugin in multifactor fairway; do
    since=$(date +%s)
    restart_ctld "$dir/c" "priority/$plugin" "$dir/idle_$mode.conf" >/dev/null 2>&1 \
      || { fail "idle $mode: restart with $plugin"; return; }
    wait_pass_since "$dir/c" "$since" 150 || { fail "idle $mode: no decay pass with $plugin"; return; }
    if [ -n "$settle" ] && [ $plugin = multifactor ]; then
      settle_depth_oblivious
      wait_decay_passes "$dir/c" 1 || { fail "idle $mode: no second pass with $plugin"; return; }
    fi
    sshare -a -l -P > "$out/idle_$mode.$plugin.sshare"
  done
  check_sshare_rows "idle $mode" "$out/idle_$mode.multifactor.sshare"
  if diff -u "$out/idle_$mode.multifactor.sshare" "$out/idle_$mode.fairway.sshare"; then
    pass "idle $mode: sshare -a -l -P identical with no job in the queue"
  else
    fail "idle $mode: sshare -a -l -P differs with no job in the queue"
  fi
}
log "an idle cluster (no job): sshare -a -l -P under both plugins"
[ -z "$(squeue -h -o %i)" ] || fail "idle: jobs still in the queue"
idle_mode classic NO_FAIR_TREE
idle_mode depth_oblivious DEPTH_OBLIVIOUS,MAX_TRES settle

log "queueing pending jobs on a drained node"
drain_node
submit_as fwuser1 -n1 --wrap 'sleep 1' >/dev/null
submit_as fwuser2 -n1 --qos=high --wrap 'sleep 1' >/dev/null
submit_as fwuser3 -n2 --wrap 'sleep 1' >/dev/null
submit_as fwuser4 -n1 -p high --wrap 'sleep 1' >/dev/null
submit_as fwuser5 -n1 --qos=low --nice=50 --wrap 'sleep 1' >/dev/null
submit_as fwuser1 -n2 -p high --qos=high -t 10 --wrap 'sleep 1' >/dev/null
submit_as fwuser3 -p debug,high --qos=low --mem=2G --wrap 'sleep 1' >/dev/null
sbatch -o /dev/null -e /dev/null -n1 -t 5 --wrap 'sleep 1' >/dev/null
submit_as fwuser8 -n1 --wrap 'sleep 1' >/dev/null
submit_as fwuser10 -n1 --wrap 'sleep 1' >/dev/null
# QOS thresh: fwuser2 (the most usage for its shares), fwuser5 (no usage)
# and fwuser8 (zero shares: a fair-share factor of 0 in classic modes,
# which job_limits_check recomputes from the association; the only one
# the threshold holds, see compare_thresh_reasons).
thresh_jobs=()
for user in fwuser2 fwuser5 fwuser8; do
  thresh_jobs+=("$(submit_as "$user" -n1 --qos=thresh --wrap 'sleep 1')")
done
slurm_version=$(scontrol --version | awk '{print $2}')
multi_qos_jobs=()
if [ "$(printf '%s\n' 24.11 "$slurm_version" | sort -V | head -1)" = 24.11 ]; then
  multi_qos_jobs+=("$(submit_as fwuser2 -n1 --qos=low,high --wrap 'sleep 1'):2")
  multi_qos_jobs+=("$(submit_as fwuser5 -p debug,high --qos=high,low --nice=20 --wrap 'sleep 1'):4")
else
  printf 'SKIP: multi-QOS jobs: Slurm %s has none (--qos=a,b is 24.11 and later)\n' "$slurm_version"
fi
# Let every job's age factor saturate (PriorityMaxAge=1 minute).
sleep 65

# explain_all MODE PLUGIN: `fairway explain job` recomputes every pending
# job's priority with the core library and must agree with the controller,
# whichever plugin computed it.
explain_all() {
  local mode=$1 plugin=$2 id bad=0 count=0
  # The tool speaks its libslurm's release: on another release (FW_SLURM)
  # only the one built for it (FW_TOOL, test/release_tool.sh) can run.
  if [ -n "${FW_SLURM:-}" ] && [ -z "${FW_TOOL:-}" ]; then
    fail "$mode: no fairway tool built for Slurm $FW_SLURM (FW_TOOL)"
    return
  fi
  for id in $(squeue -h -t PD -o %i); do
    count=$((count + 1))
    if ! "$FAIRWAY" explain job "$id" > "$out/$mode.$plugin.explain.$id" 2>&1; then
      bad=$((bad + 1))
      sed -n '/MISMATCH/p' "$out/$mode.$plugin.explain.$id" | head -5
    fi
  done
  if [ "$count" -gt 0 ] && [ "$bad" = 0 ]; then
    pass "$mode: fairway explain job equals $plugin's priority for all $count pending jobs"
  else
    fail "$mode: fairway explain job disagrees with $plugin for $bad of $count pending jobs"
  fi
}

# check_metrics MODE PLUGIN: `fairway metrics` parses as OpenMetrics (the
# Prometheus client library's parser) and equals sshare -a -l -P, taken
# just before, in every column of every association, and squeue's pending
# jobs per association; under fairway the last pass's statistics are there,
# recent and agree with the queue, and their file is world-readable
# (metrics_check.py; doc/metrics.md).
check_metrics() {
  local mode=$1 plugin=$2 base="$out/$mode.$plugin"
  [ -n "${FW_SLURM:-}" ] && [ -z "${FW_TOOL:-}" ] && return # said by explain_all
  # A multi-QOS job's priority follows the QOS the scheduler tried last
  # (see without_multi_qos_priority), so a scheduling cycle between the
  # reads can change it: the queue is read before and after metrics, and
  # all three again (up to 5 times) until the two reads agree.
  local try
  for try in 1 2 3 4 5; do
    sshare -a -l -P > "$base.metrics-sshare"
    squeue -h -t PD -o '%Q %u %a' > "$base.metrics-squeue"
    if ! "$FAIRWAY" metrics > "$base.metrics" 2> "$base.metrics.err"; then
      fail "$mode: fairway metrics failed under $plugin: $(head -3 "$base.metrics.err")"
      return
    fi
    squeue -h -t PD -o '%Q %u %a' > "$base.metrics-squeue.after"
    cmp -s "$base.metrics-squeue" "$base.metrics-squeue.after" && break
    log "$mode: the queue changed while fairway metrics read it (try $try)"
  done
  if /usr/bin/python3 "$(dirname "$0")/metrics_check.py" "$base.metrics" \
      "$base.metrics-sshare" "$base.metrics-squeue" "$plugin" "$(date +%s)" > "$base.metrics.check" 2>&1; then
    pass "$mode: fairway metrics parses and equals sshare and squeue for every association under $plugin ($(tail -1 "$base.metrics.check"))"
    grep '^pass statistics:' "$base.metrics.check"
  else
    fail "$mode: fairway metrics differs from sshare or squeue, or its pass statistics from the queue, under $plugin"
    head -20 "$base.metrics.check"
  fi
  if [ "$plugin" = fairway ]; then
    local mode_bits
    mode_bits=$(stat -c %a "$dir/c/state/fairway_pass_stats" 2>/dev/null)
    if [ "$mode_bits" = 644 ]; then
      pass "$mode: the pass statistics file is written with mode 0644"
    else
      fail "$mode: the pass statistics file has mode '${mode_bits:-missing}', expected 644"
    fi
  fi
}

# run_mode MODE FLAGS [EXTRA_PASSES]: extra passes let multifactor settle
# where it reads values of an earlier pass (depth-oblivious, _set_assoc_usage_efctv in
# slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c).
run_mode() {
  local mode=$1 flags=$2 extra_passes=${3:-0}
  printf 'PriorityFlags=%s\n' "$flags" > "$dir/$mode.conf"
  local plugin since
  for plugin in multifactor fairway; do
    since=$(date +%s)
    restart_ctld "$dir/c" "priority/$plugin" "$dir/$mode.conf" >/dev/null 2>&1 \
      || { fail "$mode: restart with $plugin"; return; }
    # The first pass runs at start; wait for one that began after the restart.
    wait_pass_since "$dir/c" "$since" 150 || { fail "$mode: no decay pass with $plugin"; return; }
    if [ "$extra_passes" -gt 0 ]; then
      settle_depth_oblivious
      wait_decay_passes "$dir/c" "$extra_passes" || { fail "$mode: passes with $plugin"; return; }
    fi
    sleep 2
    capture "$out/$mode.$plugin"
    squeue -h -P -t PD -o '%i %Q %P' | sort > "$out/$mode.$plugin.squeue-P"
    capture_thresh_reasons "$out/$mode.$plugin.reasons"
    explain_all "$mode" "$plugin"
    check_metrics "$mode" "$plugin"
  done
  compare_captures "$mode" "$out/$mode.multifactor" "$out/$mode.fairway"
  check_sshare_rows "$mode" "$out/$mode.multifactor.sshare"
  compare_thresh_reasons "$mode"
  if diff -u "$out/$mode.multifactor.squeue-P" "$out/$mode.fairway.squeue-P"; then
    pass "$mode: squeue -P (each partition's priority) identical"
  else
    fail "$mode: squeue -P differs"
  fi
  check_multi_qos_rows "$mode"
}

# capture_thresh_reasons FILE: the state and reason of the jobs in QOS
# thresh, each re-evaluated after the pass by a job update (update_job runs
# job_limits_check, the threshold's test, and sets QOSUsageThreshold or
# clears the reason: slurm-22-05-8-1:src/slurmctld/job_mgr.c). Not the
# reason the scheduler left: once set, QOSUsageThreshold stays until the
# scheduler tries the job again (part_policy_job_runnable_state), so it
# can date from before the pass or the restart. The test reads the job's
# prio_factors->priority_fs, which a restarted slurmctld's job record
# starts with at 0 (_create_job_record) until the plugin stores the job's
# factors; at 0 it recomputes the factor unweighted from the association
# (from 25.11 it reads the association's fs_factor). A reason other than
# QOSUsageThreshold is written "other": which one (None, Priority,
# ReqNodeNotAvail on the drained node) depends on whether the scheduler has
# looked at the job since, with either plugin.
capture_thresh_reasons() {
  local file=$1 id
  : > "$file"
  for id in "${thresh_jobs[@]}"; do
    scontrol update jobid="$id" comment=threshold-check > /dev/null 2>&1
    squeue -h -j "$id" -o '%i %u %t %r' \
      | awk '{r = $4; if (r != "QOSUsageThreshold") r = "other"; print $1, $2, $3, r}' >> "$file"
  done
}

# compare_thresh_reasons MODE: the same reasons under both plugins, and
# the threshold both holds a job and lets one through (not vacuous).
compare_thresh_reasons() {
  local mode=$1
  local a="$out/$mode.multifactor.reasons" b="$out/$mode.fairway.reasons"
  if [ -s "$a" ] && diff -u "$a" "$b"; then
    pass "$mode: QOS UsageThreshold: the same state and reason for ${#thresh_jobs[@]} jobs ($(awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $4}' "$a"))"
  else
    fail "$mode: QOS UsageThreshold: the jobs' state or reason differ"
  fi
  # multifactor stores the weighted fair-share factor in
  # prio_factors->priority_fs (priority_fs *= weight_fs in
  # _get_priority_internal), which job_limits_check compares with the
  # threshold: only a factor of exactly 0, recomputed from the association,
  # falls below 0.5. fwuser8's (zero shares) is 0 in classic and
  # DEPTH_OBLIVIOUS modes; Fair Tree gives it a rank (1/11 here), so there
  # the threshold holds no job.
  [ "$mode" = fair_tree ] && return
  if grep -q ' PD QOSUsageThreshold$' "$a" && grep -q ' PD other$' "$a"; then
    pass "$mode: QOS UsageThreshold holds a job below it and not one above it"
  else
    fail "$mode: QOS UsageThreshold: no job held or none let through (multifactor: $(tr '\n' ';' < "$a"))"
  fi
}

# check_multi_qos_rows MODE: each multi-QOS job has one sprio row per
# (partition, QOS) under both plugins.
check_multi_qos_rows() {
  local mode=$1 entry id want plugin rows
  for entry in "${multi_qos_jobs[@]}"; do
    id=${entry%%:*} want=${entry##*:}
    for plugin in multifactor fairway; do
      rows=$(awk -v id="$id" '$1 == id' "$out/$mode.$plugin.sprio-l" | wc -l)
      if [ "$rows" = "$want" ]; then
        pass "$mode: multi-QOS job $id: $want sprio rows, one per (partition, QOS), with $plugin"
      else
        fail "$mode: multi-QOS job $id: $rows sprio rows with $plugin, expected $want"
      fi
    done
  done
}

run_mode fair_tree SMALL_RELATIVE_TO_TIME
run_mode classic NO_FAIR_TREE
run_mode depth_oblivious DEPTH_OBLIVIOUS,MAX_TRES 2

# Restart: stopping and starting slurmctld with priority/fairway keeps usage
# (assoc_usage), the decay clock and therefore every priority.
log "restarting slurmctld with priority/fairway"
before=$(last_decay_ran "$dir/c")
since=$(date +%s)
restart_ctld "$dir/c" priority/fairway >/dev/null 2>&1 || fail "restart: slurmctld did not come back"
wait_pass_since "$dir/c" "$since" 150
sleep 2
capture "$out/restart.fairway"
# A multi-QOS job's own priority follows job->qos_ptr, which slurmctld
# resets to the first QOS when it loads the job and the scheduler moves
# through the list (_get_qos_info in slurm-24-11-5-1:src/slurmctld/job_mgr.c,
# _build_job_queue_for_qos in src/slurmctld/job_scheduler.c), with either
# plugin: across a restart only its per-pair priorities are compared
# (sprio; squeue -P for the job in two partitions: squeue shows a job in one
# partition with job->priority).
without_multi_qos_priority() {
  local prefix=$1 entry kind
  for kind in sprio-l sprio-w sshare scontrol squeue; do cp "$prefix.$kind" "$prefix.stable.$kind"; done
  for entry in "${multi_qos_jobs[@]}"; do
    sed -i "/^JobId=${entry%%:*} /d" "$prefix.stable.scontrol"
    sed -i "/^${entry%%:*} /d" "$prefix.stable.squeue"
  done
}
without_multi_qos_priority "$out/depth_oblivious.fairway"
without_multi_qos_priority "$out/restart.fairway"
compare_captures "restart" "$out/depth_oblivious.fairway.stable" "$out/restart.fairway.stable"
squeue -h -P -t PD -o '%i %Q %P' | sort > "$out/restart.fairway.squeue-P"
for prefix in "$out/depth_oblivious.fairway" "$out/restart.fairway"; do
  cp "$prefix.squeue-P" "$prefix.stable.squeue-P"
  for entry in "${multi_qos_jobs[@]}"; do
    [ "${entry##*:}" = 2 ] && sed -i "/^${entry%%:*} /d" "$prefix.stable.squeue-P"
  done
done
if diff -u "$out/depth_oblivious.fairway.stable.squeue-P" "$out/restart.fairway.stable.squeue-P"; then
  pass "restart: squeue -P (each partition's priority) identical"
else
  fail "restart: squeue -P differs"
fi
after=$(last_decay_ran "$dir/c")
if [ "$before" -gt 0 ] && [ "$after" -ge "$before" ]; then
  pass "restart: decay clock carried over ($before -> $after)"
else
  fail "restart: decay clock $before -> $after"
fi

# Between passes: `scontrol update nice=` recomputes one job at once
# (priority_p_set). Fairway serves the other jobs' sprio factors from its
# last pass's table; the updated job must show its new factors at once, as
# multifactor does. Fairway updates first; multifactor then shows the same
# job after its first pass (the update is kept in the job state).
job=$(squeue -h -t PD -o %i | sort -n | head -1)
nice_before=$(scontrol show job "$job" | grep -oE 'Nice=-?[0-9]+')
since=$(date +%s)
restart_ctld "$dir/c" priority/fairway "$dir/fair_tree.conf" >/dev/null 2>&1 && wait_pass_since "$dir/c" "$since" 150 \
  || fail "update: no pass with fairway"
scontrol update jobid="$job" nice=77
sprio -l -h -j "$job" > "$out/update.fairway.sprio"
scontrol show job "$job" | grep -oE 'Priority=[0-9]+ Nice=-?[0-9]+' >> "$out/update.fairway.sprio"
since=$(date +%s)
restart_ctld "$dir/c" priority/multifactor "$dir/fair_tree.conf" >/dev/null 2>&1 && wait_pass_since "$dir/c" "$since" 150 \
  || fail "update: no pass with multifactor"
sprio -l -h -j "$job" > "$out/update.multifactor.sprio"
scontrol show job "$job" | grep -oE 'Priority=[0-9]+ Nice=-?[0-9]+' >> "$out/update.multifactor.sprio"
if [ -s "$out/update.fairway.sprio" ] && grep -q "Nice=77" "$out/update.fairway.sprio" \
   && diff -u "$out/update.multifactor.sprio" "$out/update.fairway.sprio"; then
  pass "update: job $job's sprio row after nice 77 (was $nice_before) equals multifactor's"
else
  fail "update: job $job's sprio row after the update differs from multifactor's"
fi

# The plugin in a process with the association manager (this cluster's saved
# state) and no accounting connection: no crash, no decay on the first pass.
# (a C program built against the host's Slurm; not on another release)
[ -z "${FW_SLURM:-}" ] && check_no_accounting_host "$dir/c"

if grep -q "priority/fairway: fairshare mode" "$dir/c/log/slurmctld.log"; then
  pass "slurmctld's log shows priority/fairway loaded"
else
  fail "slurmctld's log does not show priority/fairway"
fi
summary
