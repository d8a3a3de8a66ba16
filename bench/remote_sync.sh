#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/remote_sync.sh — global fairshare's sync at scale (issue 49, item
# 6): what PriorityParameters=fairshare_clusters costs a controller whose
# slurmdbd holds BENCH_REMOTE_CLUSTERS other clusters (default 3), each with
# the same tree of about 10,000 associations (100 accounts, 9,900 users)
# and BENCH_REMOTE_JOBS_PER_DAY ended jobs a day (default 50,000).
#
# 1. A private cluster (scripts/cluster, priority/fairway, port
#    FAIRWAY_PORT_BASE, default 17517) with PriorityCalcPeriod=1 and
#    PriorityDecayHalfLife=2:24:00: the decay window the first sync
#    fetches (10 half-lives, src/remote_usage.cc) is then one day, 50,000
#    jobs a cluster. With the default 7-day half-life it is 70 days: the
#    first sync's cost grows with the window; the steady one does not.
# 2. The other clusters added to slurmdbd (sacctmgr add cluster) and the
#    tree created on all of them at once; BENCH_JOBS pending jobs (default
#    20000) on the local cluster, its node drained.
# 3. The remote jobs written straight into each <cluster>_job_table
#    (MariaDB's sequence engine): a day of them, ends spread evenly over
#    the last 24 hours, 1 to 60 minutes long, 1 to 4 CPUs, on random user
#    associations. From then on a loop adds each cluster's share of new
#    jobs every 5 seconds (50,000 a day is 0.58 a second). A day of the
#    local cluster's own jobs too, from which its usage is rebuilt
#    (usage_bootstrap=force, once).
# 4. BENCH_REMOTE_ROUNDS rounds (default 2), each after a restart:
#    without fairshare_clusters, BENCH_PASSES decay passes (default 4)
#    after the restart's first; then with fairshare_clusters=r1,...,
#    fairshare_sync=60, as many passes and syncs. Alternating, so that both
#    meet the same machine. The passes' CPU, their fairshare step's (which
#    adds the remote usage) and their job write lock come from the plugin's
#    own per-pass log lines; each sync's line gives slurmdbd's answer times
#    (associations, jobs) and the sync thread's CPU (which includes
#    unpacking the answers). The first sync of round 1 fetches the window;
#    the first of a later round follows a restart. In round 1: slurmctld's
#    anonymous memory (RssAnon) and VmHWM in both modes, and the job
#    write-lock holds taken by the sync thread (fw_remote) itself, with
#    uprobes (bench/lock_holds.py), where the kernel has them.
# 5. Writes the figures (medians over the rounds) and every pass and sync
#    to BENCH_REMOTE_OUT (default bench/results/remote-sync.txt).
#
# Needs root and a built .libs/priority_fairway.so. About 30 minutes with
# the defaults (the tree takes 3, the queue 2). BENCH_KEEP=1 leaves the cluster running.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../test/integration/lib.sh
. "$TOP/test/integration/lib.sh"
# shellcheck source=bench_lib.sh
. "$TOP/bench/bench_lib.sh"

N_CLUSTERS=${BENCH_REMOTE_CLUSTERS:-3}
PER_DAY=${BENCH_REMOTE_JOBS_PER_DAY:-50000}
JOBS=${BENCH_JOBS:-20000}
PASSES=${BENCH_PASSES:-4}
ROUNDS=${BENCH_REMOTE_ROUNDS:-2}
MEM_SETTLE=${BENCH_MEM_SETTLE:-75}
OUT=${BENCH_REMOTE_OUT:-$TOP/bench/results/remote-sync.txt}
export FAIRWAY_PORT_BASE=${FAIRWAY_PORT_BASE:-17517}
export FAIRWAY_CLUSTER_NAME=${FAIRWAY_CLUSTER_NAME:-fwlocal}
[ "$(id -u)" = 0 ] || { echo "remote_sync.sh: must run as root (it starts a private cluster)" >&2; exit 1; }
REMOTES=()
for ((c = 1; c <= N_CLUSTERS; c++)); do REMOTES+=("r$c"); done
ALL_CLUSTERS=$(IFS=,; echo "$FAIRWAY_CLUSTER_NAME,${REMOTES[*]}")
REMOTE_LIST=$(IFS=,; echo "${REMOTES[*]}")

prepare_plugin_dir || exit 1
bench_dir fwremote remote_sync.sh
# The loop that adds remote jobs, when it runs.
bench_on_exit() { [ -z "${INSERTER:-}" ] || kill "$INSERTER" 2>/dev/null; }
db() {
  local client
  client=$(command -v mariadb || command -v mysql)
  "$client" --no-defaults --socket="$DIR/run/mysql.sock" -u root -N -B slurm_acct_db -e "$1"
}
ctld_log=$DIR/log/slurmctld.log

# ------------------------------------------------------------- cluster ---
cat >"$WORK/local.conf" <<EOF
SlurmctldDebug=verbose
PriorityCalcPeriod=1
PriorityDecayHalfLife=02:24:00
SchedulerParameters=bf_interval=600,sched_interval=600
PriorityParameters=fairshare_sync=60
EOF
sed 's/^PriorityParameters=.*/PriorityParameters=fairshare_clusters='"$REMOTE_LIST"',fairshare_sync=60/' \
  "$WORK/local.conf" >"$WORK/remote.conf"
log "starting cluster $FAIRWAY_CLUSTER_NAME in $DIR (port $FAIRWAY_PORT_BASE)"
start_cluster "$DIR" priority/fairway "$WORK/local.conf" || { echo "remote_sync.sh: cluster start failed" >&2; exit 1; }
for r in "${REMOTES[@]}"; do sacctmgr -i add cluster "$r" >/dev/null; done

# ---------------------------------------------------------------- tree ---
# 10 top accounts of 9 leaves each; 110 users in each of the 90 leaves.
log "creating the tree on $ALL_CLUSTERS"
t0=$SECONDS
LEAVES=()
for t in $(seq 1 10); do
  sacctmgr -i add account "ra$t" parent=root fairshare=$((5 + t)) cluster="$ALL_CLUSTERS" >/dev/null
  list=""
  for l in $(seq 1 9); do list+="${list:+,}ra${t}_$l"; LEAVES+=("ra${t}_$l"); done
  sacctmgr -i add account "$list" parent="ra$t" fairshare=10 cluster="$ALL_CLUSTERS" >/dev/null
done
u=1
for leaf in "${LEAVES[@]}"; do
  list=""
  for ((k = 0; k < 110; k++)); do list+="${list:+,}ru$u"; u=$((u + 1)); done
  sacctmgr -i add user name="$list" account="$leaf" fairshare=1 cluster="$ALL_CLUSTERS" >/dev/null 2>&1
done
sacctmgr -i add user root account="$(IFS=,; echo "${LEAVES[*]}")" fairshare=1 cluster="$FAIRWAY_CLUSTER_NAME" >/dev/null
N_LOCAL=$(sacctmgr -n -P list assoc cluster="$FAIRWAY_CLUSTER_NAME" format=id | wc -l)
N_REMOTE=$(db "select count(*) from r1_assoc_table where deleted = 0")
log "tree: $N_LOCAL associations here, $N_REMOTE on each other cluster, in $((SECONDS - t0)) s"

# ----------------------------------------------------------- remote jobs ---
# insert_jobs CLUSTER COUNT FIRST_ID END_FROM END_TO: COUNT ended jobs,
# ids FIRST_ID..., ends spread evenly over [END_FROM, END_TO].
insert_jobs() {
  local c=$1 n=$2 first=$3 from=$4 to=$5
  db "insert into ${c}_job_table (id_job, id_assoc, id_user, id_group, account, \`partition\`,
        job_name, cpus_req, nodes_alloc, priority, state, id_resv, id_wckey, het_job_id,
        het_job_offset, state_reason_prev, time_submit, time_eligible, time_start, time_end,
        tres_alloc, tres_req, mod_time)
      select $first + s.seq, a.id_assoc, 0, 0, a.acct, 'debug', 'bench', s.cpus, 1, 1, 3, 0, 0, 0,
        4294967294, 0, s.t_end - s.dur - 60, s.t_end - s.dur - 60, s.t_end - s.dur, s.t_end,
        concat('1=', s.cpus, ',2=', 1000 * s.cpus, ',4=1'), concat('1=', s.cpus), s.t_end
      from (select seq, 1 + seq % 4 as cpus, 60 * (1 + (seq * 31) % 60) as dur,
                   $from + floor(($to - $from) * seq / greatest($n - 1, 1)) as t_end
            from seq_0_to_$((n - 1))) s
      join (select id_assoc, acct, row_number() over (order by id_assoc) - 1 as k
            from ${c}_assoc_table where deleted = 0 and user != '') a
        on a.k = (s.seq * 7919) % $N_USERS"
}
N_USERS=$(db "select count(*) from r1_assoc_table where deleted = 0 and user != ''")
now=$(date +%s)
log "writing $PER_DAY ended jobs of the last day into each of ${REMOTES[*]}"
t0=$SECONDS
for r in "${REMOTES[@]}"; do insert_jobs "$r" "$PER_DAY" 1 $((now - 86400)) "$now"; done
N_JOBS_R1=$(db "select count(*) from r1_job_table")
log "remote jobs: $N_JOBS_R1 in r1_job_table ($((SECONDS - t0)) s for all)"
# The local cluster's own day, the same way (ids far above its own jobs'):
# its usage is rebuilt from them below, so that both modes compute on a
# tree whose associations have usage (on an idle tree Fair Tree has little
# to rank, and the remote usage would seem to cost what ranking costs).
insert_jobs "$FAIRWAY_CLUSTER_NAME" "$PER_DAY" 10000000 $((now - 86400)) "$now"

# --------------------------------------------------------------- queue ---
drain_node
log "submitting $JOBS local jobs (two parallel loops)"
submit_loop() {
  local first=$1 step=$2 count=$3 out=$4 i
  : >"$out"
  for ((i = first; i < count; i += step)); do
    sbatch --parsable -J fwremote -o /dev/null -e /dev/null -A "${LEAVES[$((i % ${#LEAVES[@]}))]}" \
      -n $((1 + i % 2)) -t $((10 + (i * 37) % 2870)) --wrap true >>"$out" 2>>"$out.err" || true
  done
}
t0=$SECONDS
submit_loop 0 2 "$JOBS" "$WORK/queue.0" &
p0=$!
submit_loop 1 2 "$JOBS" "$WORK/queue.1" &
p1=$!
wait $p0 $p1
N_PENDING=$(squeue -h -t PD -o %i | wc -l)
log "queue: $N_PENDING pending in $((SECONDS - t0)) s"

# ------------------------------------------------------------ usage ---
sed 's/^PriorityParameters=.*/PriorityParameters=fairshare_sync=60,usage_bootstrap=force/' \
  "$WORK/local.conf" >"$WORK/bootstrap.conf"
from=$(stat -c %s "$ctld_log")
restart_ctld "$DIR" priority/fairway "$WORK/bootstrap.conf" >/dev/null
for ((i = 0; i < 600; i++)); do
  tail -c +$((from + 1)) "$ctld_log" | grep -q 'usage bootstrap: rebuilt' && break
  sleep 0.2
done
log "local usage: $(tail -c +$((from + 1)) "$ctld_log" | grep -o 'usage bootstrap: rebuilt.*' | head -1)"

# ------------------------------------------------------------ measure ---
declare -A R
# pass_lines FROM_BYTE: the last PASSES passes after FROM_BYTE of the log,
# "CPU fairshare-step-CPU job-write-lock-ms" each (the plugin's own lines,
# SlurmctldDebug=verbose).
pass_lines() {
  local from=$1
  paste -d' ' \
    <(tail -c +$((from + 1)) "$ctld_log" | grep 'priority/fairway: decay pass CPU' | tail -n "$PASSES" |
      sed 's/.*decay pass CPU \([0-9.]*\) ms: .*fairshare \([0-9.]*\),.*/\1 \2/') \
    <(tail -c +$((from + 1)) "$ctld_log" | grep 'priority/fairway: priority pass:' | tail -n "$PASSES" |
      sed 's/.*job write lock held \([0-9.]*\) ms.*/\1/')
}
# wait_passes N FROM_BYTE: until N decay passes ended after FROM_BYTE.
wait_passes() {
  local n=$1 from=$2 i
  for ((i = 0; i < (n + 2) * 300; i++)); do
    [ "$(tail -c +$((from + 1)) "$ctld_log" | grep -c 'priority/fairway: priority pass:')" -ge "$n" ] && return 0
    sleep 0.2
  done
  return 1
}
memory() {
  local label=$1 pid
  pid=$(ctld_pid)
  R[$label.anon_kb]=$(rss_anon_kb "$pid")
  R[$label.hwm_kb]=$(awk '/^VmHWM/ { print $2 }' /proc/"$pid"/status)
}

# New remote jobs at the daily rate, all along.
inserter() {
  local id=$((PER_DAY + 1)) per5 t r
  per5=$(awk -v d="$PER_DAY" 'BEGIN { n = int(d * 5 / 86400 + 0.5); print (n < 1 ? 1 : n) }')
  while :; do
    t=$(date +%s)
    for r in "${REMOTES[@]}"; do insert_jobs "$r" "$per5" "$id" $((t - 5)) "$t" 2>/dev/null || true; done
    id=$((id + per5))
    sleep 5
  done
}
inserter &
INSERTER=$!

# Without and with the other clusters in turn, ROUNDS times, each after a
# restart's first pass: both meet the same machine (a loaded one moves the
# CPU of a pass by a factor of two or three). The first sync of the first
# round fetches the decay window; the first of each later round follows a
# restart (the associations asked again, the jobs since the last sync).
: >"$WORK/passes.local"
: >"$WORK/passes.remote"
: >"$WORK/syncs.txt"
for ((round = 1; round <= ROUNDS; round++)); do
  log "== round $round of $ROUNDS: without fairshare_clusters, $PASSES passes"
  restart_ctld "$DIR" priority/fairway "$WORK/local.conf" >/dev/null
  from=$(stat -c %s "$ctld_log")
  wait_passes $((PASSES + 1)) "$from" || log "warning: fewer than $((PASSES + 1)) passes"
  pass_lines "$from" >>"$WORK/passes.local"
  if [ "$round" = 1 ]; then
    sleep $((MEM_SETTLE > 60 ? MEM_SETTLE - 60 : 0))
    memory local
  fi

  log "== round $round of $ROUNDS: with fairshare_clusters=$REMOTE_LIST, $PASSES passes and syncs"
  from=$(stat -c %s "$ctld_log")
  restart_ctld "$DIR" priority/fairway "$WORK/remote.conf" >/dev/null
  tracing=0
  # The sync thread starts with the plugin: its first sync may be under way.
  if [ "$round" = 1 ]; then
    if python3 "$TOP/bench/lock_holds.py" start --pid "$(ctld_pid)" --comm fw_remote 2>"$WORK/locks.err"; then
      tracing=1
    else
      log "no uprobes, so no lock-hold figures: $(cat "$WORK/locks.err")"
    fi
  fi
  want=$(((PASSES + 1) * N_CLUSTERS))
  for ((i = 0; i < (PASSES + 3) * 300; i++)); do
    [ "$(tail -c +$((from + 1)) "$ctld_log" | grep -c 'fairshare_clusters: cluster .* synced:')" -ge "$want" ] && break
    sleep 0.2
  done
  wait_passes $((PASSES + 1)) "$from" || log "warning: fewer than $((PASSES + 1)) passes"
  if [ "$tracing" = 1 ]; then
    python3 "$TOP/bench/lock_holds.py" stop --raw "$WORK/locks.txt" &&
      python3 "$TOP/bench/lock_holds.py" summary "$WORK/locks.txt" >"$WORK/locks.summary"
    R[sync.write_holds]=$(awk -F= '$1 == "lock_passes" { print $2 }' "$WORK/locks.summary")
  fi
  pass_lines "$from" >>"$WORK/passes.remote"
  # Each cluster's sync lines: kind, cluster, charged, associations, ms,
  # jobs, ms, CPU ms.
  kind=restart
  [ "$round" = 1 ] && kind=first
  tail -c +$((from + 1)) "$ctld_log" | grep 'fairshare_clusters: cluster .* synced:' |
    sed 's/.*cluster \([^ ]*\) synced: \([0-9]*\) ended jobs charged.*slurmdbd: \([0-9]*\) associations in \([0-9.]*\) ms, \([0-9]*\) jobs in \([0-9.]*\) ms; CPU \([0-9.]*\) ms/\1 \2 \3 \4 \5 \6 \7/' |
    awk -v n="$N_CLUSTERS" -v k="$kind" '{ print (NR <= n ? k : "steady"), $0 }' >>"$WORK/syncs.txt"
  if [ "$round" = 1 ]; then
    memory remote
    R[state_bytes]=$(stat -c %s "$DIR/state/fairway_remote_usage" 2>/dev/null || echo 0)
  fi
done
kill "$INSERTER" 2>/dev/null; wait "$INSERTER" 2>/dev/null || true; INSERTER=""

col() { awk -v k="$2" '{ print $k }' <<<"$1"; }
first=$(awk '$1 == "first"' "$WORK/syncs.txt")
steady=$(awk '$1 == "steady"' "$WORK/syncs.txt")
# shellcheck disable=SC2046  # lists of numbers
{
  for m in local remote; do
    R[$m.pass_cpu]=$(median $(awk '{ print $1 }' "$WORK/passes.$m"))
    R[$m.fairshare_cpu]=$(median $(awk '{ print $2 }' "$WORK/passes.$m"))
    R[$m.held]=$(median $(awk '{ print $3 }' "$WORK/passes.$m"))
    R[$m.passes]=$(wc -l <"$WORK/passes.$m")
  done
  R[first.jobs]=$(median $(col "$first" 6))
  R[first.assoc_ms]=$(median $(col "$first" 5))
  R[first.jobs_ms]=$(median $(col "$first" 7))
  R[first.cpu]=$(median $(col "$first" 8))
  R[first.charged]=$(median $(col "$first" 3))
  R[steady.syncs]=$(wc -l <<<"$steady")
  R[steady.jobs]=$(median $(col "$steady" 6))
  R[steady.assocs]=$(median $(col "$steady" 4))
  R[steady.assoc_ms]=$(median $(col "$steady" 5))
  R[steady.jobs_ms]=$(median $(col "$steady" 7))
  R[steady.cpu]=$(median $(col "$steady" 8))
  R[steady.cpu_max]=$(col "$steady" 8 | sort -g | tail -1)
}
R[steady.cpu_all]=$(awk -v c="${R[steady.cpu]}" -v n="$N_CLUSTERS" 'BEGIN { printf "%.1f", c * n }')

# ------------------------------------------------------------- report ---
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }
{
  echo "Fairway benchmark: global fairshare's sync (fairshare_clusters), issue 49 item 6"
  echo "Date:     $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "Machine:  $(hostname -s 2>/dev/null || echo ?), nproc=$(nproc), kernel $(uname -r)"
  echo "Slurm:    $(scontrol show config | awk '$1 == "SLURM_VERSION" { print $3 }'); Fairway $(cd "$TOP" && git describe --always --dirty 2>/dev/null || echo ?)"
  echo "Setup:    $N_CLUSTERS other clusters (${REMOTE_LIST}) in this slurmdbd, $N_REMOTE associations each"
  echo "          (the same tree here: $N_LOCAL), $PER_DAY ended jobs a day each; $N_PENDING pending jobs here;"
  echo "          PriorityCalcPeriod=1, PriorityDecayHalfLife=2:24:00 (decay window 1 day), fairshare_sync=60"
  echo
  printf '%-58s %12s\n' "figure" "value"
  printf '%-58s %12s\n' "first sync (the window): jobs from slurmdbd per cluster" "${R[first.jobs]}"
  printf '%-58s %12s\n' "  of them charged (ended in the window)" "${R[first.charged]}"
  printf '%-58s %12s\n' "  slurmdbd answer: associations (ms)" "${R[first.assoc_ms]}"
  printf '%-58s %12s\n' "  slurmdbd answer: jobs (ms)" "${R[first.jobs_ms]}"
  printf '%-58s %12s\n' "  sync thread CPU per cluster (ms)" "${R[first.cpu]}"
  printf '%-58s %12s\n' "steady syncs measured (all clusters)" "${R[steady.syncs]}"
  printf '%-58s %12s\n' "  jobs from slurmdbd per cluster and sync, median" "${R[steady.jobs]}"
  printf '%-58s %12s\n' "  associations from slurmdbd per cluster and sync" "${R[steady.assocs]}"
  printf '%-58s %12s\n' "  slurmdbd answer: associations, median (ms)" "${R[steady.assoc_ms]}"
  printf '%-58s %12s\n' "  slurmdbd answer: jobs, median (ms)" "${R[steady.jobs_ms]}"
  printf '%-58s %12s\n' "  sync thread CPU per cluster, median (ms)" "${R[steady.cpu]}"
  printf '%-58s %12s\n' "  sync thread CPU per cluster, max (ms)" "${R[steady.cpu_max]}"
  printf '%-58s %12s\n' "  sync thread CPU for all clusters (ms)" "${R[steady.cpu_all]}"
  printf '%-58s %12s\n' "decay passes measured, without / with" "${R[local.passes]} / ${R[remote.passes]}"
  printf '%-58s %12s\n' "local decay pass CPU, median, without (ms)" "${R[local.pass_cpu]}"
  printf '%-58s %12s\n' "local decay pass CPU, median, with (ms)" "${R[remote.pass_cpu]}"
  printf '%-58s %12s\n' "  its fairshare step without / with (ms)" "${R[local.fairshare_cpu]} / ${R[remote.fairshare_cpu]}"
  printf '%-58s %12s\n' "sync CPU (all clusters) / local pass CPU (without)" "$(ratio "${R[steady.cpu_all]}" "${R[local.pass_cpu]}")"
  printf '%-58s %12s\n' "job write lock per pass, median, without (ms)" "${R[local.held]}"
  printf '%-58s %12s\n' "job write lock per pass, median, with (ms)" "${R[remote.held]}"
  printf '%-58s %12s\n' "job write-lock holds by the sync thread (uprobes)" "${R[sync.write_holds]:-not measured}"
  printf '%-58s %12s\n' "slurmctld RssAnon without (MiB)" "$(awk -v k="${R[local.anon_kb]}" 'BEGIN { printf "%.1f", k / 1024 }')"
  printf '%-58s %12s\n' "slurmctld RssAnon with, after the syncs (MiB)" "$(awk -v k="${R[remote.anon_kb]}" 'BEGIN { printf "%.1f", k / 1024 }')"
  printf '%-58s %12s\n' "slurmctld VmHWM without / with (MiB)" "$(awk -v a="${R[local.hwm_kb]}" -v b="${R[remote.hwm_kb]}" 'BEGIN { printf "%.1f / %.1f", a / 1024, b / 1024 }')"
  printf '%-58s %12s\n' "state file fairway_remote_usage (bytes)" "${R[state_bytes]}"
  echo
  echo "Each pass without (CPU ms, its fairshare step, job write lock ms), in order:"
  cat "$WORK/passes.local"
  echo "Each pass with:"
  cat "$WORK/passes.remote"
  echo "Each sync line (kind, cluster, charged, associations, ms, jobs, ms, CPU ms):"
  cat "$WORK/syncs.txt"
} | tee "$OUT"
log "written to $OUT"
