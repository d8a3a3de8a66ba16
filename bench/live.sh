#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/live.sh — the live benchmark: priority/multifactor against
# priority/fairway on a real Slurm controller with the same
# association tree (~1,100 associations) and the same pending queue
# (BENCH_JOBS jobs, default 20000), one after the other in one run.
#
# 1. Start a private cluster (scripts/cluster) on FAIRWAY_PORT_BASE (default
#    17017 here) named FAIRWAY_CLUSTER_NAME (default fwbench).
# 2. Build the tree: 100 accounts in 3 levels (5 / 20 / 75), 1,000 users
#    under the 75 leaf accounts, root added to every leaf account.
# 3. Drain the node and submit BENCH_JOBS jobs as root, spread over the leaf
#    accounts, 2 partitions, 1-2 CPUs, varied time limits (two parallel
#    sbatch loops; separate jobs, no arrays).
# 4. For each plugin (multifactor first, then fairway): restart slurmctld
#    with it on the same state, let its first pass run, then measure
#    BENCH_PASSES passes (default 5; PriorityCalcPeriod=1 minute):
#      (a) CPU time of the decay thread per pass (schedstat);
#      (b) latency of a one-job query (what `scontrol show job` sends; job
#          read lock) during the passes, sent in-process through libslurm
#          (bench/live_probe.py), so that the lock wait is not hidden by
#          the cost of starting scontrol; and the decay thread's job
#          write-lock holds themselves, timed with uprobes on
#          lock_slurmctld/unlock_slurmctld (bench/lock_holds.py; skipped
#          where the kernel has no uprobe events);
#    then, in BENCH_SUBMIT_ROUNDS rounds (default 3) that alternate the
#    order of the plugins (mf, fw; fw, mf; ...), each after a restart:
#      (c) `sprio -h` over all jobs (BENCH_SPRIO_RUNS runs in all, default
#          5, spread over the rounds; median);
#      (d) sbatch throughput (one round of BENCH_SUBMIT_JOBS jobs, default
#          500, then cancelled; median of the rounds);
#      (e) slurmctld VmRSS measured first, for priority/basic, multifactor
#          and fairway in turn: restarted on the same jobs, read
#          BENCH_MEM_SETTLE seconds (default 75) later, after the second
#          pass, with no query in between (queries leave malloc arenas
#          behind in the RPC threads; the test submissions of (d) stay in
#          the job list for MinJobAge). Basic keeps nothing per job, so
#          the difference in anonymous memory (RssAnon: VmRSS less the
#          pages of program and library files, a fixed cost) per pending
#          job is each plugin's memory per job.
#    then (f) passes with changes between them (issue 47), each plugin
#    after a restart: the partitions of the queue are set DOWN (their jobs
#    stay pending) and the node resumed for a third partition, "charge",
#    where root's jobs run and charge their leaf accounts. For
#    BENCH_CHANGE_MINUTES minutes (default 3; 0 leaves (f) out), at the
#    start of each minute, 300 pending jobs (1.5% of 20,000) get nice=1 and
#    12 users (1% of the associations) fairshare=2, each time others
#    (12 minutes in all take 3,600 jobs); the decay thread's CPU over those
#    minutes, the passes in them and the job write lock are measured. Two
#    modes, each plugin in each:
#      steady: 2 jobs run all along (2 of the 75 leaf accounts charged
#              every pass: with their parents, under 1% of the
#              associations);
#      worst:  75 jobs run, one in each leaf account: every association
#              with jobs or usage is charged every pass.
#    multifactor recomputes on its timer (one pass a minute); fairway
#    may also pass a few seconds after a change (doc/architecture.md, "What
#    triggers a pass"), so both the CPU per minute and per pass are
#    reported. A failure in (f) is logged and leaves its figures nan.
# 5. Print the figures for both plugins and their ratio fairway/multifactor
#    and write them to BENCH_OUT (default bench/results/latest.txt).
#
# BENCH_SLURM=RELEASE runs it on another Slurm release (scripts/cluster
# --slurm; default the host's 22.05.8), against that release's own
# multifactor, with the plugin built for it
# ($FAIRWAY_RELEASE_PLUGINS/RELEASE/priority_fairway.so, default under
# /var/tmp/fairway-release-plugins: test/compile_matrix.sh with
# FAIRWAY_COMPILE_KEEP; FW_PLUGIN_SO overrides); results then go to
# bench/results/latest-RELEASE.txt. The job query probe goes through the
# release's own libslurm where it is installed under a prefix (a release
# built from SchedMD's tarball), else through its scontrol.
#
# BENCH_BASELINE_SO=FILE also measures (a) for another build of the plugin
# (say, the commit before a change) in the same run, on the same state:
# after the two plugins, the build under test and the baseline alternate,
# ABBA, BENCH_AB_PASSES passes (default 3) each time after a restart's
# first pass, BENCH_AB_ROUNDS times (default 1; 2 gives ABBAABBA). The
# report then gives both builds' pass CPU from those rounds and the ratios
# fairway/baseline, baseline/multifactor and fairway/multifactor (about 17
# minutes more per round).
#
# Needs root and a built .libs/priority_fairway.so. About 20 minutes with
# 20000 jobs; BENCH_JOBS=2000 for a quicker check (the passes still come
# once a minute). BENCH_KEEP=1 leaves the cluster running (in BENCH_DIR).
# BENCH_QUIET_SCHED=0 keeps Slurm's default scheduler intervals (by default
# the main and backfill schedulers run only every 10 minutes so that their
# own job-lock holds do not mix with the decay passes).
# BENCH_ONLY_CHANGES=1 measures (f) alone (a quicker check of it; the other
# figures then read nan).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../test/integration/lib.sh
. "$TOP/test/integration/lib.sh"
# shellcheck source=bench_lib.sh
. "$TOP/bench/bench_lib.sh"

JOBS=${BENCH_JOBS:-20000}
PASSES=${BENCH_PASSES:-5}
AB_PASSES=${BENCH_AB_PASSES:-3}
AB_ROUNDS=${BENCH_AB_ROUNDS:-1}
SUBMIT_JOBS=${BENCH_SUBMIT_JOBS:-500}
SPRIO_RUNS=${BENCH_SPRIO_RUNS:-5}
SUBMIT_ROUNDS=${BENCH_SUBMIT_ROUNDS:-3}
QUIET_SCHED=${BENCH_QUIET_SCHED:-1}
MEM_SETTLE=${BENCH_MEM_SETTLE:-75}
CHANGE_MINUTES=${BENCH_CHANGE_MINUTES:-3}
ONLY_CHANGES=${BENCH_ONLY_CHANGES:-0}
SLURM_RELEASE=${BENCH_SLURM:-}
if [ -n "$SLURM_RELEASE" ]; then
  OUT=${BENCH_OUT:-$TOP/bench/results/latest-$SLURM_RELEASE.txt}
else
  OUT=${BENCH_OUT:-$TOP/bench/results/latest.txt}
fi
CORE_RESULTS=${BENCH_CORE_RESULTS:-}
export FAIRWAY_PORT_BASE=${FAIRWAY_PORT_BASE:-17017}
export FAIRWAY_CLUSTER_NAME=${FAIRWAY_CLUSTER_NAME:-fwbench}
PLUGINS="multifactor fairway"
BASELINE_SO=${BENCH_BASELINE_SO:-}
if [ -n "$BASELINE_SO" ] && [ ! -f "$BASELINE_SO" ]; then
  echo "live.sh: BENCH_BASELINE_SO=$BASELINE_SO: no such file" >&2; exit 1
fi

[ "$(id -u)" = 0 ] || { echo "live.sh: must run as root (it starts a private cluster)" >&2; exit 1; }
[[ $JOBS =~ ^[0-9]+$ && $JOBS -ge 1 ]] || { echo "live.sh: BENCH_JOBS must be a positive number" >&2; exit 1; }
PROBE_ARGS=()
if [ -n "$SLURM_RELEASE" ]; then
  export FW_SLURM=$SLURM_RELEASE
  export FW_PLUGIN_SO=${FW_PLUGIN_SO:-${FAIRWAY_RELEASE_PLUGINS:-/var/tmp/fairway-release-plugins}/$SLURM_RELEASE/priority_fairway.so}
  [ -f "$FW_PLUGIN_SO" ] || { echo "live.sh: no plugin built for Slurm $SLURM_RELEASE at $FW_PLUGIN_SO (FAIRWAY_COMPILE_KEEP=DIR test/compile_matrix.sh $SLURM_RELEASE)" >&2; exit 1; }
  # The release, runnable (made on first use): a prefix or a chroot.
  slurm_root=$("$TOP/scripts/slurm-release" "$SLURM_RELEASE") || { echo "live.sh: scripts/slurm-release $SLURM_RELEASE failed" >&2; exit 1; }
  if [ -f "$slurm_root/lib/libslurm.so" ]; then
    PROBE_ARGS=(--libslurm "$slurm_root/lib/libslurm.so" --slurm-release "$SLURM_RELEASE")
  else
    PROBE_ARGS=(--probe scontrol)  # its libslurm lives in a chroot
  fi
fi
prepare_plugin_dir || exit 1
bench_dir fwbench live.sh

T_BEGIN=$SECONDS
now_s() { printf '%s' "$EPOCHREALTIME"; }
# elapsed seconds since a now_s value
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }'; }
rss_mib() { awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' /proc/"$1"/status; }

# ------------------------------------------------------------- cluster ---
EXTRA=$WORK/extra.conf
{
  echo "SlurmctldDebug=info"
  echo "PriorityCalcPeriod=1"
  if [ "$QUIET_SCHED" = 1 ]; then echo "SchedulerParameters=bf_interval=600,sched_interval=600"; fi
  # The cluster's MaxJobCount (100,000) must also hold the (d) rounds of
  # both plugins (cancelled jobs stay for MinJobAge) and the probe job.
  needed=$((JOBS + 2 * SUBMIT_ROUNDS * SUBMIT_JOBS + 1000))
  if [ "$needed" -gt 100000 ]; then echo "MaxJobCount=$needed"; fi
} >"$EXTRA"
log "starting cluster $FAIRWAY_CLUSTER_NAME in $DIR (port $FAIRWAY_PORT_BASE)"
start_cluster "$DIR" priority/multifactor "$EXTRA" || { echo "live.sh: cluster start failed" >&2; exit 1; }

# ---------------------------------------------------------------- tree ---
log "creating 100 accounts, 1000 users"
t0=$(now_s)
LEAVES=()
n_leaf=0
for t in 1 2 3 4 5; do
  sacctmgr -i add account "acct$t" parent=root fairshare=$((10 * t)) >/dev/null
  for s in 1 2 3 4; do
    sacctmgr -i add account "acct${t}_$s" parent="acct$t" fairshare=$((5 + 7 * s)) >/dev/null
    # 15 of the 20 second-level accounts have 4 leaves, 5 have 3: 75 leaves.
    nl=4; [ $s = 4 ] && nl=3
    list=""
    for l in $(seq 1 $nl); do list+="${list:+,}acct${t}_${s}_$l"; LEAVES+=("acct${t}_${s}_$l"); done
    sacctmgr -i add account "$list" parent="acct${t}_$s" fairshare=10 >/dev/null
    n_leaf=$((n_leaf + nl))
  done
done
# 1000 users over the 75 leaves (13 or 14 each), fairshare 1.
u=1
for ((i = 0; i < ${#LEAVES[@]}; i++)); do
  n=$(( (1000 * (i + 1)) / ${#LEAVES[@]} - (1000 * i) / ${#LEAVES[@]} ))
  list=""
  for ((k = 0; k < n; k++)); do list+="${list:+,}bu$u"; u=$((u + 1)); done
  sacctmgr -i add user name="$list" account="${LEAVES[$i]}" fairshare=1 >/dev/null
done
sacctmgr -i add user root account="$(IFS=,; echo "${LEAVES[*]}")" fairshare=1 >/dev/null
N_ASSOCS=$(sacctmgr -n -P list assoc cluster="$FAIRWAY_CLUSTER_NAME" format=id | wc -l)
log "tree: $N_ASSOCS associations in $(since "$t0") s"

# --------------------------------------------------------------- queue ---
drain_node
log "submitting $JOBS jobs (two parallel loops)"
# submit_loop FIRST STEP COUNT OUTFILE: job i -> leaf i % 75, 30% in "high".
submit_loop() {
  local first=$1 step=$2 count=$3 out=$4 i part
  : >"$out"
  for ((i = first; i < count; i += step)); do
    part=debug; ((i % 10 < 3)) && part=high
    sbatch --parsable -J fwbench -o /dev/null -e /dev/null -A "${LEAVES[$((i % ${#LEAVES[@]}))]}" \
      -p $part -n $((1 + i % 2)) -t $((10 + (i * 37) % 2870)) --wrap true >>"$out" 2>>"$out.err" || true
  done
}
t0=$(now_s)
submit_loop 0 2 "$JOBS" "$WORK/queue.0" &
p0=$!
submit_loop 1 2 "$JOBS" "$WORK/queue.1" &
p1=$!
wait $p0 $p1
QUEUE_SECONDS=$(since "$t0")
N_PENDING=$(squeue -h -t PD -o %i | wc -l)
QUEUE_RATE=$(awk -v n="$N_PENDING" -v s="$QUEUE_SECONDS" 'BEGIN { printf "%.0f", n / s }')
log "queue: $N_PENDING pending jobs in $QUEUE_SECONDS s ($QUEUE_RATE jobs/s)"
if [ "$N_PENDING" -lt "$JOBS" ]; then
  log "warning: only $N_PENDING of $JOBS jobs pending; sbatch errors: $(sort "$WORK"/queue.*.err | uniq -c | awk 'NR <= 3')"
fi
PROBE_JOB=$(sort -n "$WORK/queue.0" | awk 'NR == 1')
PRIORITY_FLAGS=$(scontrol show config | awk -F' = ' '/^PriorityFlags/ { print $2 }')
CTLD_VERSION=$(scontrol show config | awk '$1 == "SLURM_VERSION" { print $3 }')
# Slurm 22.05 prints no flag for its default, Fair Tree (only NO_FAIR_TREE).
case ${PRIORITY_FLAGS:-} in *NO_FAIR_TREE*) ;; *) PRIORITY_FLAGS="${PRIORITY_FLAGS:+$PRIORITY_FLAGS,}(Fair Tree, the default)" ;; esac

# ------------------------------------------------------------ measure ---
declare -A R
# (e) for one plugin: restart, wait, read VmRSS. The same wait for every
# plugin (a pass runs at the start and one a minute later; slurmctld's own
# memory also grows in its first minute), and no query until the reading.
measure_memory() {
  local plugin=$1 pid
  log "== priority/$plugin: restarting slurmctld (memory, ${MEM_SETTLE} s)"
  restart_ctld "$DIR" "priority/$plugin" >/dev/null 2>"$WORK/restart-mem-$plugin.log" || {
    cat "$WORK/restart-mem-$plugin.log" >&2; return 1; }
  pid=$(ctld_pid)
  sleep "$MEM_SETTLE"
  R[$plugin.rss_settled_mib]=$(rss_mib "$pid")
  R[$plugin.anon_settled_kb]=$(rss_anon_kb "$pid")
  R[$plugin.anon_settled_mib]=$(awk -v k="${R[$plugin.anon_settled_kb]}" 'BEGIN { printf "%.1f", k / 1024 }')
  R[$plugin.mem_pending]=$(squeue -h -t PD -o %i | wc -l)
  log "priority/$plugin: RSS ${R[$plugin.rss_settled_mib]} MiB (anonymous ${R[$plugin.anon_settled_mib]}), ${R[$plugin.mem_pending]} pending"
}
# restart_after_first_pass PLUGIN LOG: slurmctld restarted with PLUGIN
# (its messages in LOG), back once the pass that runs at the start has
# ended (that pass is not measured).
restart_after_first_pass() {
  local plugin=$1 restart_log=$2 t_restart i
  t_restart=$(date +%s)
  restart_ctld "$DIR" "priority/$plugin" >/dev/null 2>"$restart_log" || {
    cat "$restart_log" >&2; return 1; }
  for ((i = 0; i < 600; i++)); do
    [ "$(last_decay_ran "$DIR")" -ge "$t_restart" ] && break
    sleep 0.2
  done
}
# phase_lines N: Fairway's last N per-pass phase lines from its log, each
# "decay MS find MS ..." (one line a pass, SlurmctldDebug=verbose).
phase_lines() {
  grep 'priority/fairway: decay pass CPU' "$DIR/log/slurmctld.log" |
    tail -n "$1" | sed 's/.*decay pass CPU [0-9.]* ms: //; s/,//g'
}
# phase_means LINES: the mean of each phase over such lines.
phase_means() {
  awk 'NF { for (i = 1; i < NF; i += 2) { name[i] = $i; sum[i] += $(i + 1) } n++ }
       END { for (i = 1; i in name; i += 2) printf "%s%s %.2f", (i > 1 ? ", " : ""), name[i], sum[i] / n }' <<<"$1"
}
# decay_thread TYPE PID: the name of slurmctld PID's decay thread under
# priority/TYPE (multifactor's "decay", Fairway's "fw_decay"); false, with
# what the log says of priority plugins, when it has no such thread.
decay_thread() {
  local comm=decay
  [ "$1" = fairway ] && comm=fw_decay
  if ! grep -q "^$comm\$" /proc/"$2"/task/*/comm 2>/dev/null; then
    echo "live.sh: slurmctld $2 has no thread named $comm: priority/$1 not loaded?" >&2
    grep -i 'priority' "$DIR/log/slurmctld.log" | tail -5 >&2
    return 1
  fi
  echo "$comm"
}
# lock_trace_start LABEL PID COMM: the decay thread's job write-lock holds,
# timed from outside with uprobes (bench/lock_holds.py), the same way for
# both plugins; false, having said why, where the kernel has no uprobes.
lock_trace_start() {
  python3 "$TOP/bench/lock_holds.py" start --pid "$2" --comm "$3" 2>"$WORK/locks-$1.err" && return 0
  log "no uprobes, so no lock-hold figures: $(cat "$WORK/locks-$1.err")"
  return 1
}
# lock_trace_stop LABEL: the probes off, and their key=value figures.
lock_trace_stop() {
  python3 "$TOP/bench/lock_holds.py" stop --raw "$WORK/locks-$1.txt" &&
    python3 "$TOP/bench/lock_holds.py" summary "$WORK/locks-$1.txt"
}
# measure LABEL: (a) and (b) for multifactor, fairway, or baseline (the
# BENCH_BASELINE_SO build loaded as priority/fairway).
measure() {
  local plugin=$1 pid comm out type=$1
  [ "$plugin" = baseline ] && type=fairway
  log "== $plugin (priority/$type): restarting slurmctld"
  restart_after_first_pass "$type" "$WORK/restart-$plugin.log" || return 1
  pid=$(ctld_pid)
  comm=$(decay_thread "$type" "$pid") || return 1
  R[$plugin.pending]=$(squeue -h -t PD -o %i | wc -l)
  log "priority/$plugin: first pass done; measuring $PASSES passes (~$PASSES min), ${R[$plugin.pending]} pending"
  out=$WORK/probe-$plugin.txt
  # verbose during the passes only, where fairway logs one line per pass
  # with its job write-lock hold; the other figures are taken at info, the
  # level the cluster runs at.
  scontrol setdebug verbose
  local tracing=0
  lock_trace_start "$plugin" "$pid" "$comm" && tracing=1
  python3 "$TOP/bench/live_probe.py" --pid "$pid" --comm "$comm" --state-dir "$DIR/state" "${PROBE_ARGS[@]}" \
    --job "$PROBE_JOB" --passes "$PASSES" --timeout $((PASSES * 60 + 120)) \
    --raw "$WORK/raw-$plugin" >"$out" || { cat "$out" >&2; log "probe failed for $plugin"; }
  # The probe stops when the last pass writes its state; fairway logs the
  # pass's CPU by phase just after that write.
  sleep 1
  if [ "$tracing" = 1 ]; then lock_trace_stop "$plugin" >>"$out"; fi
  scontrol setdebug info
  while IFS='=' read -r k v; do R[$plugin.$k]=$v; done <"$out"
  # Fairway also times its own job write-lock holds in the priority pass;
  # the last PASSES passes are the measured ones.
  if [ "$type" = fairway ]; then
    R[$plugin.hold_list]=$(grep 'priority/fairway: priority pass:' "$DIR/log/slurmctld.log" |
      tail -n "$PASSES" |
      sed -n 's/.* \([0-9]*\) stored; job write lock held \([0-9.]*\) ms, longest \([0-9.]*\) ms of \([0-9]*\) holds.*/\2 \3 \4 \1/p' |
      awk '{ printf "%s%s ms in %s (longest %s, %s jobs)", (NR > 1 ? ", " : ""), $1, $3, $2, $4 }')
    # Where the decay thread's CPU goes, phase by phase (its own clock,
    # mean over the measured passes): what a faster pass would have to cut.
    R[$plugin.phases]=$(phase_means "$(phase_lines "$PASSES")")
  fi
  log "priority/$plugin: pass CPU ${R[$plugin.pass_cpu_ms]:-?} ms; job RPC in passes p50/p99/max ${R[$plugin.lat_in_p50_ms]:-?}/${R[$plugin.lat_in_p99_ms]:-?}/${R[$plugin.lat_in_max_ms]:-?} ms"
}
# (c) and (d) for one plugin, one round: sprio runs, then one round of
# submissions (cancelled afterwards). Appends to the plugin's lists.
measure_queries() {
  local plugin=$1 runs=$2 i t0 lines took ids rate
  for ((i = 0; i < runs; i++)); do
    t0=$(now_s)
    lines=$(sprio -h | wc -l)
    R[$plugin.sprio_runs]+="${R[$plugin.sprio_runs]:+ }$(since "$t0")"
  done
  R[$plugin.sprio_lines]=$lines
  t0=$(now_s)
  submit_loop 0 2 "$SUBMIT_JOBS" "$WORK/submit-$plugin.0" &
  local s0=$!
  submit_loop 1 2 "$SUBMIT_JOBS" "$WORK/submit-$plugin.1" &
  wait $s0 $!
  took=$(since "$t0")
  ids=$(cat "$WORK/submit-$plugin".[01] | grep -c '^[0-9]' || true)
  rate=$(awk -v n="$ids" -v s="$took" 'BEGIN { printf "%.0f", n / s }')
  R[$plugin.submit_rates]+="${R[$plugin.submit_rates]:+ }$rate"
  # shellcheck disable=SC2046  # one argument per job id
  scancel $(cat "$WORK/submit-$plugin".[01] | grep '^[0-9]') 2>/dev/null || true
  R[$plugin.rss_mib]=$(rss_mib "$(ctld_pid)")
}
# bytes_per_job PLUGIN BASIC UNIT_BYTES JOBS: (PLUGIN - BASIC) x unit / jobs.
bytes_per_job() {
  awk -v a="$1" -v b="$2" -v unit="$3" -v n="$4" \
    'BEGIN { if (n == 0) print "nan"; else printf "%.0f", (a - b) * unit / n }'
}
# (a) to (e) measure these plugins (none with BENCH_ONLY_CHANGES=1).
MEASURED=$PLUGINS
if [ "$ONLY_CHANGES" = 1 ]; then MEASURED=""; SUBMIT_ROUNDS=0; BASELINE_SO=""; fi
for p in ${MEASURED:+basic} $MEASURED; do measure_memory "$p"; done
for p in $MEASURED; do
  R[$p.mem_per_job_b]=$(bytes_per_job "${R[$p.anon_settled_kb]}" "${R[basic.anon_settled_kb]}" 1024 "${R[$p.mem_pending]}")
  R[$p.rss_per_job_b]=$(bytes_per_job "${R[$p.rss_settled_mib]}" "${R[basic.rss_settled_mib]}" 1048576 "${R[$p.mem_pending]}")
done
for p in $MEASURED; do measure "$p"; done
# measure_cpu LABEL SO: the decay thread's CPU for AB_PASSES passes of
# build SO loaded as priority/fairway, after a restart with its first pass
# left out; appends them (and its phase lines) to LABEL's lists.
measure_cpu() {
  local label=$1 so=$2 pid out
  cp "$so" "$FW_PLUGIN_DIR/priority_fairway.so"
  log "== A/B: $label: restarting slurmctld"
  restart_after_first_pass fairway "$WORK/restart-ab-$label.log" || return 1
  pid=$(ctld_pid)
  out=$WORK/probe-ab-$label.txt
  scontrol setdebug verbose
  python3 "$TOP/bench/live_probe.py" --pid "$pid" --comm fw_decay --state-dir "$DIR/state" "${PROBE_ARGS[@]}" \
    --job "$PROBE_JOB" --passes "$AB_PASSES" --timeout $((AB_PASSES * 60 + 120)) >"$out" ||
    { cat "$out" >&2; log "probe failed for $label"; }
  sleep 1  # Fairway logs its phases just after the pass's state write
  scontrol setdebug info
  R[ab.$label.passes]+="${R[ab.$label.passes]:+ }$(sed -n 's/^pass_cpu_ms=//p' "$out")"
  R[ab.$label.phase_lines]+=$(phase_lines "$AB_PASSES")$'\n'
  log "A/B: $label: pass CPU $(sed -n 's/^pass_cpu_ms=//p' "$out") ms"
}
if [ -n "$BASELINE_SO" ]; then
  # The plugin under test and the baseline in alternation, ABBA: run one
  # after the other, the second met a different machine (the passes of
  # both fall over the first minutes after the queue was made, and in one
  # run the order alone moved their ratio by 30%).
  cp "$FW_PLUGIN_DIR/priority_fairway.so" "$WORK/fairway-under-test.so"
  for ((r = 0; r < AB_ROUNDS; r++)); do
    for label in fairway baseline baseline fairway; do
      so=$WORK/fairway-under-test.so
      [ "$label" = baseline ] && so=$BASELINE_SO
      measure_cpu "$label" "$so"
    done
  done
  # prepare_plugin_dir's copy goes back.
  cp "$WORK/fairway-under-test.so" "$FW_PLUGIN_DIR/priority_fairway.so"
  for label in fairway baseline; do
    # shellcheck disable=SC2086  # one argument per value
    R[ab.$label.mean]=$(printf '%s\n' ${R[ab.$label.passes]} | awk '{ s += $1; n++ } END { if (n) printf "%.2f", s / n; else print "nan" }')
    # shellcheck disable=SC2086
    R[ab.$label.median]=$(median ${R[ab.$label.passes]})
    # The least disturbed pass: other work on the machine (slurmctld's
    # scheduler after a restart, other tenants) only ever adds to a pass.
    # shellcheck disable=SC2086
    R[ab.$label.min]=$(printf '%s\n' ${R[ab.$label.passes]} | sort -g | head -1)
    R[ab.$label.phases]=$(phase_means "${R[ab.$label.phase_lines]}")
  done
fi
# (c) and (d) in rounds that alternate the plugins (ABBA...), each after a
# restart: run one after the other, whichever plugin came second met a
# different machine (slurmdbd's hourly rollup, the first plugin's
# cancelled jobs still in the job list, other tenants), and in earlier
# runs that alone moved sbatch by a factor of 2.
SPRIO_PER_ROUND=$(((SPRIO_RUNS + SUBMIT_ROUNDS - 1) / (SUBMIT_ROUNDS > 0 ? SUBMIT_ROUNDS : 1)))
for ((r = 0; r < SUBMIT_ROUNDS; r++)); do
  order=$PLUGINS
  ((r % 2)) && order=$(tr ' ' '\n' <<<"$PLUGINS" | tac | xargs)
  for p in $order; do
    log "(c)/(d) round $((r + 1)) of $SUBMIT_ROUNDS: priority/$p"
    restart_after_first_pass "$p" "$WORK/restart-q-$p.log"
    measure_queries "$p" "$SPRIO_PER_ROUND"
  done
done
for p in $MEASURED; do
  # shellcheck disable=SC2086  # one argument per value
  R[$p.sprio_s]=$(median ${R[$p.sprio_runs]})
  # shellcheck disable=SC2086
  R[$p.submit_rate]=$(median ${R[$p.submit_rates]})
  log "priority/$p: sprio ${R[$p.sprio_s]} s (${R[$p.sprio_runs]}); sbatch ${R[$p.submit_rate]}/s (${R[$p.submit_rates]}); RSS ${R[$p.rss_mib]} MiB after the queries"
done

# ---------------------------------------------------- (f) changes ---
# thread_cpu_ns PID COMM: the CPU time of PID's thread named COMM (ns).
thread_cpu_ns() {
  local t
  for t in /proc/"$1"/task/*; do
    if [ "$(cat "$t/comm" 2>/dev/null)" = "$2" ]; then
      cut -d' ' -f1 "$t/schedstat"
      return
    fi
  done
  echo 0
}
# poll_until LIMIT CMD: true once CMD (a shell string) succeeds, polled
# every 0.5 s for at most LIMIT seconds.
poll_until() {
  local t0=$SECONDS
  until eval "$2"; do
    ((SECONDS - t0 >= $1)) && return 1
    sleep 0.5
  done
}
# charge_jobs N: N jobs of root running in partition charge, one in each of
# the first N leaf accounts (those beyond N cancelled), until cancelled.
charge_jobs() {
  local n=$1 i
  scancel -p charge 2>/dev/null || true
  poll_until 60 "[ \$(squeue -h -p charge | wc -l) = 0 ]" ||
    { echo "live.sh: charge jobs would not end" >&2; return 1; }
  for ((i = 0; i < n; i++)); do
    # --priority: above any computed priority, so that the main scheduler
    # starts them at once past the 20,000 jobs of the DOWN partitions.
    sbatch --parsable -J fwcharge -o /dev/null -e /dev/null -A "${LEAVES[$i]}" -p charge -n 1 \
      --mem=10M --priority=10000000 --wrap 'sleep 100000' >/dev/null
  done
  poll_until 120 "[ \$(squeue -h -p charge -t R | wc -l) = $n ]" ||
    { echo "live.sh: only $(squeue -h -p charge -t R | wc -l) of $n charge jobs run" >&2; return 1; }
}
# change_something K: the K-th change, at the start of a minute: the K-th
# 300 pending jobs get nice=1 and the K-th 12 users fairshare=2 (none of
# them changed before).
NICE_SLICE=300 SHARE_SLICE=12
change_something() {
  local k=$1 ids users
  ids=$(sort -n "$WORK"/queue.[01] | grep '^[0-9]' | awk -v a=$((k * NICE_SLICE)) -v n=$NICE_SLICE \
    'NR > a && NR <= a + n' | paste -sd,)
  scontrol update jobid="$ids" nice=1 >/dev/null 2>>"$WORK/changes.err" ||
    log "scontrol update nice: $(tail -n1 "$WORK/changes.err")"
  users=$(seq $((k * SHARE_SLICE + 1)) $(((k + 1) * SHARE_SLICE)) | sed 's/^/bu/' | paste -sd,)
  sacctmgr -i modify user where name="$users" set fairshare=2 >/dev/null 2>>"$WORK/changes.err" ||
    log "sacctmgr modify: $(tail -n1 "$WORK/changes.err")"
}
CHANGE_K=0
# measure_changes PLUGIN MODE: restart with PLUGIN, then, from the end of
# its first pass, CHANGE_MINUTES minutes (and 5 s, for a timer pass that
# ends just after the last minute), each begun with change_something; the
# decay thread's CPU and passes over them, and its job write-lock holds.
# (Whole minutes from a pass: each then holds one pass of the timer.)
measure_changes() {
  local plugin=$1 mode=$2 pid comm m t0 c0 c1 ran last passes=0 tracing=0 key=$1.$2 until
  log "(f) $mode: priority/$plugin: restarting slurmctld"
  restart_after_first_pass "$plugin" "$WORK/restart-f-$key.log" || return 1
  pid=$(ctld_pid)
  comm=$(decay_thread "$plugin" "$pid") || return 1
  scontrol setdebug verbose  # fairway's per-pass lines
  lock_trace_start "$key" "$pid" "$comm" && tracing=1
  t0=$SECONDS
  c0=$(thread_cpu_ns "$pid" "$comm")
  last=$(last_decay_ran "$DIR")
  for ((m = 0; m < CHANGE_MINUTES; m++)); do
    change_something "$CHANGE_K"
    CHANGE_K=$((CHANGE_K + 1))
    until=$((t0 + 60 * (m + 1)))
    ((m + 1 == CHANGE_MINUTES)) && until=$((until + 5))
    while ((SECONDS < until)); do
      sleep 0.5
      ran=$(last_decay_ran "$DIR")
      [ "$ran" != "$last" ] && { passes=$((passes + 1)); last=$ran; }
    done
  done
  c1=$(thread_cpu_ns "$pid" "$comm")
  R[$key.passes]=$passes
  R[$key.cpu_per_min]=$(awk -v a="$c0" -v b="$c1" -v m="$CHANGE_MINUTES" 'BEGIN { printf "%.2f", (b - a) / 1e6 / m }')
  R[$key.passes_per_min]=$(awk -v p="$passes" -v m="$CHANGE_MINUTES" 'BEGIN { printf "%.2f", p / m }')
  R[$key.cpu_per_pass]=$(awk -v a="$c0" -v b="$c1" -v p="$passes" 'BEGIN { if (p > 0) printf "%.2f", (b - a) / 1e6 / p; else print "nan" }')
  log "(f) $mode: priority/$plugin: ${R[$key.cpu_per_min]} ms a minute, $passes pass(es) in $CHANGE_MINUTES minute(s)"
  if [ "$tracing" = 1 ]; then
    while IFS='=' read -r k v; do R[$key.$k]=$v; done < <(lock_trace_stop "$key")
  fi
  scontrol setdebug info
  if [ "$plugin" = fairway ]; then
    # What each pass stored (its log).
    R[$key.stored]=$(grep 'priority/fairway: priority pass:' "$DIR/log/slurmctld.log" | tail -n "$passes" |
      sed -n 's/.* \([0-9]*\) stored;.*/\1/p' | paste -sd' ' || true)
  fi
}
if [ "$CHANGE_MINUTES" -gt 0 ]; then
  log "(f): partitions debug and high DOWN, partition charge added, node resumed"
  conf=$DIR/etc/slurm.conf
  sed -i -E '/^PartitionName=(debug|high) /s/State=UP/State=DOWN/' "$conf"
  echo "PartitionName=charge Nodes=ALL Default=NO PriorityJobFactor=1 MaxTime=INFINITE OverSubscribe=FORCE:40 State=UP" >>"$conf"
  # (a) to (e) are measured: a failure here loses only (f)'s figures.
  if restart_after_first_pass multifactor "$WORK/restart-f.log" && resume_node && charge_jobs 2; then
    for p in $PLUGINS; do measure_changes "$p" steady || log "(f) steady: priority/$p failed"; done
    if charge_jobs "${#LEAVES[@]}"; then
      for p in $(tr ' ' '\n' <<<"$PLUGINS" | tac | xargs); do measure_changes "$p" worst || log "(f) worst: priority/$p failed"; done
    fi
  else
    log "(f) could not be set up: no figures"
  fi
  scancel -p charge 2>/dev/null || true
  R[changes_pending]=$(squeue -h -t PD -o %i | wc -l)
fi

# ------------------------------------------------------------- report ---
COLD_PAGES=$(bench_memory)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0 && a != "nan" && b != "nan") printf "%.3f", a / b; else print "n/a" }'; }
row() {  # label key
  local m=${R[multifactor.$2]:-nan} f=${R[fairway.$2]:-nan}
  printf '%-46s %12s %12s %10s\n' "$1" "$m" "$f" "$(ratio "$f" "$m")"
}
report() {
  echo "Fairway live benchmark: priority/multifactor vs priority/fairway"
  echo "Date:     $(date -u +%FT%TZ)"
  echo "Machine:  $(hostname -s), nproc=$(nproc), CPU: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), kernel $(uname -r)"
  if [ -n "$SLURM_RELEASE" ]; then
    echo "Slurm:    $CTLD_VERSION (scripts/slurm-release $SLURM_RELEASE: $slurm_root), PriorityFlags=${PRIORITY_FLAGS:-}"
  else
    echo "Slurm:    $(slurmctld -V 2>/dev/null), PriorityFlags=${PRIORITY_FLAGS:-}"
  fi
  echo "Memory:   $COLD_PAGES"
  echo "Fairway:  $(git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown)"
  echo "Setup:    $N_ASSOCS associations (100 accounts in 3 levels, 1000 users + root in 75 leaf accounts),"
  echo "          ${R[multifactor.pending]:-?} / ${R[fairway.pending]:-?} pending jobs (node drained), PriorityCalcPeriod=1,"
  echo "          $PASSES passes measured per plugin after the first one; scheduler intervals quiet: $QUIET_SCHED"
  echo "Queue:    $N_PENDING jobs submitted in $QUEUE_SECONDS s ($QUEUE_RATE jobs/s, 2 loops, multifactor)"
  echo
  printf '%-46s %12s %12s %10s\n' "figure" "multifactor" "fairway" "f/m"
  row "(a) decay pass CPU, mean (ms)" pass_cpu_ms_mean
  row "(a) decay pass CPU, median (ms)" pass_cpu_ms_median
  row "(a) decay pass CPU, max (ms)" pass_cpu_ms_max
  row "    decay pass wall time, mean (ms)" pass_wall_ms_mean
  row "    passes measured" passes_measured
  row "(b) job RPC during passes, p50 (ms)" lat_in_p50_ms
  row "(b) job RPC during passes, p99 (ms)" lat_in_p99_ms
  row "(b) job RPC during passes, max (ms)" lat_in_max_ms
  row "(b) job write lock held per pass, max (ms)" lock_held_pass_max_ms
  row "    job write lock held per pass, mean (ms)" lock_held_pass_mean_ms
  row "(b) job write lock, longest single hold (ms)" lock_hold_longest_ms
  row "    passes with a job write lock" lock_passes
  row "    probes during passes" probes_in_pass
  row "    job RPC outside passes, p50 (ms)" lat_out_p50_ms
  row "    job RPC outside passes, p99 (ms)" lat_out_p99_ms
  row "    job RPC outside passes, max (ms)" lat_out_max_ms
  row "(c) sprio -h, all jobs, median (s)" sprio_s
  row "    sprio lines" sprio_lines
  row "(d) sbatch jobs/s, median of $SUBMIT_ROUNDS x $SUBMIT_JOBS" submit_rate
  row "(e) VmRSS ${MEM_SETTLE} s after a restart (MiB)" rss_settled_mib
  printf '%-46s %12s %12s\n' "    priority/basic, the same (MiB)" "${R[basic.rss_settled_mib]:-nan}" "${R[basic.rss_settled_mib]:-nan}"
  row "    VmRSS over basic per pending job (B)" rss_per_job_b
  row "(e) RssAnon ${MEM_SETTLE} s after a restart (MiB)" anon_settled_mib
  printf '%-46s %12s %12s\n' "    priority/basic, the same (MiB)" "${R[basic.anon_settled_mib]:-nan}" "${R[basic.anon_settled_mib]:-nan}"
  row "(e) memory over basic per pending job (B)" mem_per_job_b
  row "    VmRSS after all the queries (MiB)" rss_mib
  echo
  for p in $PLUGINS; do
    echo "$p: pass CPU ms: ${R[$p.pass_cpu_ms]:-}; sprio runs s: ${R[$p.sprio_runs]:-}; sbatch rounds jobs/s: ${R[$p.submit_rates]:-}; job RPC probe: ${R[$p.probe]:-?}"
  done
  for p in $PLUGINS; do
    echo "$p: job write lock per pass (uprobes): ${R[$p.lock_pass_list]:-?}"
  done
  echo "fairway: job write lock in the priority pass (its log): ${R[fairway.hold_list]:-?}"
  echo "fairway: decay pass CPU by phase, mean ms (its log): ${R[fairway.phases]:-?}"
  if [ -n "$BASELINE_SO" ]; then
    echo
    echo "Baseline, in the same run on the same state: $BASELINE_SO"
    echo "Fairway and the baseline alternate, ABBA x $AB_ROUNDS, $AB_PASSES passes each time after a restart's first pass."
    printf '%-46s %12s %12s %10s %10s %10s\n' "figure" "baseline" "fairway" "f/base" "base/m" "f/m"
    # shellcheck disable=SC2086  # one argument per value
    R[multifactor.pass_cpu_ms_min]=$(printf '%s\n' ${R[multifactor.pass_cpu_ms]:-nan} | sort -g | head -1)
    for k in mean median min; do
      printf '%-46s %12s %12s %10s %10s %10s\n' "(a) decay pass CPU, $k (ms)" "${R[ab.baseline.$k]:-nan}" \
        "${R[ab.fairway.$k]:-nan}" "$(ratio "${R[ab.fairway.$k]:-nan}" "${R[ab.baseline.$k]:-nan}")" \
        "$(ratio "${R[ab.baseline.$k]:-nan}" "${R[multifactor.pass_cpu_ms_$k]:-nan}")" \
        "$(ratio "${R[ab.fairway.$k]:-nan}" "${R[multifactor.pass_cpu_ms_$k]:-nan}")"
    done
    echo "(base/m and f/m divide by multifactor's passes above.)"
    for label in fairway baseline; do
      echo "$label (A/B): pass CPU ms: ${R[ab.$label.passes]:-}"
      echo "$label (A/B): decay pass CPU by phase, mean ms (its log): ${R[ab.$label.phases]:-?}"
    done
  fi
  if [ "$CHANGE_MINUTES" -gt 0 ]; then
    echo
    echo "(f) Changes between passes: ${R[changes_pending]:-?} pending jobs in DOWN partitions; each minute, $NICE_SLICE pending jobs"
    echo "    get nice=1 and $SHARE_SLICE users fairshare=2 (others each time); steady: 2 running jobs charge 2 leaf"
    echo "    accounts; worst: 75 running jobs charge every leaf account. $CHANGE_MINUTES minutes (and 5 s) per plugin and mode."
    printf '%-52s %12s %12s %10s\n' "figure" "multifactor" "fairway" "f/m"
    local mode k
    for mode in steady worst; do
      for k in "cpu_per_min:decay thread CPU per minute (ms)" "passes_per_min:passes per minute" \
               "cpu_per_pass:decay pass CPU, mean (ms)" "lock_held_pass_max_ms:job write lock held per pass, max (ms)"; do
        printf '%-52s %12s %12s %10s\n' "(f) $mode: ${k#*:}" "${R[multifactor.$mode.${k%%:*}]:-nan}" \
          "${R[fairway.$mode.${k%%:*}]:-nan}" "$(ratio "${R[fairway.$mode.${k%%:*}]:-nan}" "${R[multifactor.$mode.${k%%:*}]:-nan}")"
      done
    done
    for mode in steady worst; do
      for p in $PLUGINS; do
        echo "$p, $mode: ${R[$p.$mode.passes]:-?} passes; job write lock per pass: ${R[$p.$mode.lock_pass_list]:-?}"
      done
      echo "fairway, $mode: jobs stored per pass (its log): ${R[fairway.$mode.stored]:-?}"
    done
  fi
  if [ -n "$CORE_RESULTS" ] && [ -s "$CORE_RESULTS" ]; then
    echo
    echo "Core micro-benchmarks (make bench-core, same machine):"
    sed -n '/^Generated trees/,$p' "$CORE_RESULTS" | grep -v '^-*$' | sed 's/\x1b\[[0-9;]*m//g'
  fi
}
mkdir -p "$(dirname "$OUT")"
report | tee "$OUT"
log "results in $OUT (whole run $((SECONDS - T_BEGIN)) s)"
