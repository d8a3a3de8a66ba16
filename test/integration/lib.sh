#!/bin/bash
# Shared helpers for the live-cluster scenarios: start a private cluster with
# a given priority plugin, build the association tree of the documented
# classic example, run real jobs as real users, wait for decay passes and
# capture what sprio, sshare and scontrol print.
# shellcheck disable=SC2034  # variables are used by the sourcing scripts

FW_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FW_CLUSTER="$FW_TOP/scripts/cluster"
FW_PLUGIN_DIR=${FW_PLUGIN_DIR:-}
# The fairway tool the scenarios run: FW_TOOL, the one built for the
# release a scenario runs on (FW_SLURM; test/release_tool.sh), else this
# build's, which links the host's libslurm.
FAIRWAY=${FW_TOOL:-$FW_TOP/fairway}
FW_FAILURES=0
FW_PASSES=0

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

pass() { FW_PASSES=$((FW_PASSES + 1)); printf 'PASS: %s\n' "$*"; }
fail() { FW_FAILURES=$((FW_FAILURES + 1)); printf 'FAIL: %s\n' "$*"; }

# The directory holding the freshly built priority_fairway.so, copied so that
# the plugin under test is the one just built and nothing else.
prepare_plugin_dir() {
  # FW_PLUGIN_SO: another build of the plugin (e.g. an older one, to show
  # that a scenario catches a regression).
  local so=${FW_PLUGIN_SO:-$FW_TOP/.libs/priority_fairway.so}
  [ -f "$so" ] || { echo "lib.sh: $so not built (make first)" >&2; return 1; }
  FW_PLUGIN_DIR=$(mktemp -d /tmp/fairway-plugin.XXXXXX)
  chmod 755 "$FW_PLUGIN_DIR"
  cp "$so" "$FW_PLUGIN_DIR/priority_fairway.so"
}

# The helpers name their cluster directory argument cdir, never dir or c:
# a scenario's EXIT trap (stop_cluster "$dir/c", "$c") runs in the scope
# of the function it was stopped in (SIGTERM from run-all.sh, Ctrl-C), and
# a local dir there left the cluster running.

# start_cluster DIR TYPE [EXTRA_CONF_FILE]
# FW_SLURM: the Slurm release to run (scripts/cluster --slurm; default the
# host's); its clients (DIR/bin) then come first on PATH.
start_cluster() {
  local cdir=$1 type=$2 extra=${3:-}
  local args=(start --dir "$cdir" --priority-type "$type")
  [ -n "$FW_PLUGIN_DIR" ] && args+=(--plugin-dir "$FW_PLUGIN_DIR")
  [ -n "$extra" ] && args+=(--extra-conf "$extra")
  [ -n "${FW_SLURM:-}" ] && args+=(--slurm "$FW_SLURM")
  "$FW_CLUSTER" "${args[@]}" > "$cdir.env" || return 1
  export SLURM_CONF="$cdir/etc/slurm.conf"
  if [ -d "$cdir/bin" ]; then export PATH="$cdir/bin:$PATH"; fi
}

stop_cluster() { "$FW_CLUSTER" stop --dir "$1" >/dev/null 2>&1 || true; }

# start_second_cluster DIR1 DIR2 TYPE NAME [EXTRA_CONF_FILE]: a second
# cluster, ClusterName NAME, on DIR1's munged and slurmdbd (scripts/cluster
# start --join; issue 49). Same release as DIR1 (FW_SLURM), same plugin dir.
# Ports: FW_SECOND_PORT_BASE, else scripts/cluster's default (DIR1's + 100;
# FAIRWAY_PORT_BASE is DIR1's and not passed on). SLURM_CONF is left on
# DIR1's cluster: reach DIR2's with `with_cluster DIR2 COMMAND...`. Stopping
# DIR1 (stop_cluster) stops DIR2 first; stop_cluster DIR2 stops DIR2 alone.
start_second_cluster() {
  local cdir1=$1 cdir2=$2 type=$3 name=$4 extra=${5:-}
  local args=(start --dir "$cdir2" --join "$cdir1" --cluster-name "$name" --priority-type "$type")
  [ -n "$FW_PLUGIN_DIR" ] && args+=(--plugin-dir "$FW_PLUGIN_DIR")
  [ -n "$extra" ] && args+=(--extra-conf "$extra")
  [ -n "${FW_SLURM:-}" ] && args+=(--slurm "$FW_SLURM")
  FAIRWAY_PORT_BASE=${FW_SECOND_PORT_BASE:-} "$FW_CLUSTER" "${args[@]}" > "$cdir2.env"
}

# with_cluster DIR COMMAND [ARG...]: COMMAND (a program or a function of
# this file) with DIR's slurm.conf: its cluster's slurmctld, and its
# ClusterName as sacct's, sshare's and sacctmgr's default cluster.
with_cluster() { SLURM_CONF="$1/etc/slurm.conf" "${@:2}"; }

# restart_ctld DIR TYPE [EXTRA_CONF_FILE]: switch plugin (and conf) on the
# same state.
restart_ctld() {
  local cdir=$1 type=$2 extra=${3:-}
  if [ -n "$extra" ]; then merge_conf "$cdir" "$extra"; fi
  "$FW_CLUSTER" restart-ctld --dir "$cdir" --priority-type "$type" --plugin-dir "$FW_PLUGIN_DIR"
}

# merge_conf DIR FILE: replace keys of FILE in slurm.conf (whole-line keys).
merge_conf() {
  local conf="$1/etc/slurm.conf" extra=$2 key
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    key=${line%%=*}
    sed -i "/^${key}=/Id" "$conf"
  done < "$extra"
  cat "$extra" >> "$conf"
}

# The decay clock both plugins keep: last_ran from priority_last_decay_ran.
last_decay_ran() {
  local f="$1/state/priority_last_decay_ran"
  [ -s "$f" ] || { echo 0; return; }
  echo $((16#$(od -An -tx1 -N8 "$f" | tr -d ' \n')))
}

# wait_pass_since DIR SINCE [LIMIT]: wait at most LIMIT seconds (default
# 90) for a decay pass that started at or after SINCE (its last_ran >=
# SINCE), then 1 s more: the pass writes last_ran last. False on timeout.
wait_pass_since() {
  local cdir=$1 since=$2 limit=$((SECONDS + ${3:-90}))
  while [ "$(last_decay_ran "$cdir")" -lt "$since" ]; do
    [ $SECONDS -gt $limit ] && return 1
    sleep 0.5
  done
  sleep 1
}

# wait_decay_passes DIR N: wait until N passes have completed after now.
wait_decay_passes() {
  local cdir=$1 n=${2:-1} since last count=0 limit=$((SECONDS + 100 * ${2:-1}))
  since=$(date +%s)
  last=$(last_decay_ran "$cdir")
  while [ $count -lt "$n" ]; do
    if [ $SECONDS -gt $limit ]; then echo "timeout waiting for a decay pass" >&2; return 1; fi
    sleep 2
    local now_ran
    now_ran=$(last_decay_ran "$cdir")
    if [ "$now_ran" != "$last" ] && [ "$now_ran" -ge "$since" ]; then
      count=$((count + 1))
      last=$now_ran
    fi
  done
}

# The classic worked example's tree (fairshare-modes.md): A (40) {B (30),
# C (10)}, D (60) {E (25), F (35)}; fwuser1 in B, fwuser2/3 in C, fwuser4 in
# E, fwuser5 in F; root's own association at Fairshare=parent.
# create_example_tree [CLUSTER[,CLUSTER...]]: on those clusters of the
# accounting DB. Without an argument sacctmgr's own default: every cluster
# the DB knows at that moment (so, with a second cluster joined later, run
# it again with that cluster's name). QOS are global (not per cluster).
create_example_tree() {
  local on=() where=()
  if [ -n "${1:-}" ]; then on=(cluster="$1"); where=(cluster="$1"); fi
  "$FW_CLUSTER" users 5 >/dev/null 2>&1
  sacctmgr -i add account a fairshare=40 "${on[@]}" >/dev/null
  sacctmgr -i add account b parent=a fairshare=30 "${on[@]}" >/dev/null
  sacctmgr -i add account c parent=a fairshare=10 "${on[@]}" >/dev/null
  sacctmgr -i add account d fairshare=60 "${on[@]}" >/dev/null
  sacctmgr -i add account e parent=d fairshare=25 "${on[@]}" >/dev/null
  sacctmgr -i add account f parent=d fairshare=35 "${on[@]}" >/dev/null
  sacctmgr -i add user fwuser1 account=b fairshare=1 "${on[@]}" >/dev/null
  sacctmgr -i add user fwuser2 account=c fairshare=1 "${on[@]}" >/dev/null
  sacctmgr -i add user fwuser3 account=c fairshare=1 "${on[@]}" >/dev/null
  sacctmgr -i add user fwuser4 account=e fairshare=1 "${on[@]}" >/dev/null
  sacctmgr -i add user fwuser5 account=f fairshare=1 "${on[@]}" >/dev/null
  sacctmgr -i modify user root where account=root "${where[@]}" set fairshare=parent >/dev/null
  # (already there when a second cluster gets the tree: that is fine)
  sacctmgr -i add qos high priority=100 >/dev/null 2>&1
  sacctmgr -i add qos low priority=10 >/dev/null 2>&1
  sacctmgr -i modify user where name=fwuser1,fwuser2,fwuser3,fwuser4,fwuser5 "${where[@]}" set qos+=high,low >/dev/null
}

# assoc_tree CLUSTER: CLUSTER's associations as account|user|parent|shares|
# QOS lines, sorted: equal on two clusters iff they have the same tree.
assoc_tree() {
  sacctmgr -n -P show assoc cluster="$1" format=account,user,parentname,fairshare,qos | sort
}

# submit_as USER ARGS...: sbatch as a local user; prints the job id.
submit_as() {
  local user=$1; shift
  runuser -u "$user" -- sbatch --parsable -o /dev/null -e /dev/null "$@"
}

# raw_usage USER: USER's RawUsage (its one association) as sshare prints it;
# empty when sshare does not answer within 20 s (a slurmctld being killed
# or restarted).
raw_usage() {
  timeout 20 sshare -n -P -a -u "$1" -o user,rawusage | awk -F'|' -v u="$1" '$1==u{print $2; exit}'
}

# ended_job_usage [ID]: for job ID, or for each job slurmctld still holds,
# "ID USER CPU-SECONDS" of its allocation as slurmctld recorded it:
# NumCPUs x RunTime ([days-]hours:minutes:seconds), what a job charges
# with billing = CPUs. Not sacct: under load slurmdbd can list a
# job without its start (no run time) while slurmctld and the plugin have
# it right (a CI rehearsal, 2026-11-28). Ended jobs are kept MinJobAge
# (scripts/cluster: 120 s), so read them soon after they end.
ended_job_usage() {
  scontrol -o show job ${1:+"$1"} 2>/dev/null | awk '
    { id = user = cpus = run = ""
      for (i = 1; i <= NF; i++) {
        split($i, kv, "=")
        if (kv[1] == "JobId") id = kv[2]
        else if (kv[1] == "UserId") { user = kv[2]; sub(/\(.*/, "", user) }
        else if (kv[1] == "NumCPUs") cpus = kv[2]
        else if (kv[1] == "RunTime") run = kv[2]
      }
      days = 0
      if (index(run, "-")) { split(run, dr, "-"); days = dr[1]; run = dr[2] }
      n = split(run, t, ":")
      if (id == "" || user == "" || cpus == "" || n != 3) next
      print id, user, cpus * (((days * 24 + t[1]) * 60 + t[2]) * 60 + t[3]) }'
}

# wait_jobs_done: until no job is pending or running.
wait_jobs_done() {
  local limit=$((SECONDS + ${1:-300}))
  while [ -n "$(squeue -h -t PD,R,CG -o %i)" ]; do
    [ $SECONDS -gt $limit ] && { echo "timeout waiting for jobs" >&2; return 1; }
    sleep 1
  done
}

# wait_accounting_done [LIMIT]: until slurmdbd has every job's end record.
# slurmctld sends job records to slurmdbd asynchronously, so sacct can show
# a finished job as PENDING (no start, no CPUs) for a moment, or not list it
# at all: until the job's record arrives, and for a second or so after
# (Eligible=Unknown keeps it out of sacct's time window, 22.05.8; see
# two_clusters.sh). So every job slurmctld still holds (finished jobs stay
# MinJobAge=120 s) must be listed by sacct, in a final state. Callers wait
# for the jobs to end first (wait_jobs_done).
wait_accounting_done() {
  local limit=$((SECONDS + ${1:-60})) held listed recorded
  local unfinished='^(PENDING|RUNNING|COMPLETING|REQUEUED|SUSPENDED)'
  while :; do
    held=$(scontrol -o show job 2>/dev/null | grep -oE '^JobId=[0-9]+' | cut -d= -f2 | sort -u)
    listed=$(sacct -S 2000-01-01T00:00:00 -X -n -P -o jobidraw,state 2>/dev/null)
    recorded=$(awk -F'|' -v u="$unfinished" '$2 !~ u {print $1}' <<<"$listed" | sort -u)
    if ! cut -d'|' -f2 <<<"$listed" | grep -qE "$unfinished" &&
       [ -z "$(comm -23 <(printf '%s\n' $held) <(printf '%s\n' $recorded) | grep .)" ]; then
      return 0
    fi
    [ $SECONDS -gt $limit ] && { echo "timeout waiting for slurmdbd's job records" >&2; return 1; }
    sleep 1
  done
}

node_name() { sinfo -h -N -o %N | grep -v fwfuture | head -1; }
drain_node() { scontrol update nodename="$(node_name)" state=drain reason=fairway-test; }
resume_node() { scontrol update nodename="$(node_name)" state=resume >/dev/null 2>&1 || true; }

# capture OUT_PREFIX: what users see of priorities, in stable order.
capture() {
  local out=$1
  sprio -l -h | sort -n > "$out.sprio-l"
  sprio -w -h > "$out.sprio-w"
  sshare -a -l -P > "$out.sshare"
  scontrol show job | grep -oE '^JobId=[0-9]+|Priority=[0-9]+ Nice=-?[0-9]+' \
    | paste -d' ' - - | sort -n > "$out.scontrol"
  squeue -h -o '%i %Q %u %a %P' | sort -n > "$out.squeue"
}

# compare NAME A_PREFIX B_PREFIX: every captured file identical.
compare_captures() {
  local name=$1 a=$2 b=$3 kind ok=1
  for kind in sprio-l sprio-w sshare scontrol squeue; do
    if ! diff -u "$a.$kind" "$b.$kind" > "$b.$kind.diff"; then
      ok=0
      fail "$name: $kind differs between $(basename "$a") and $(basename "$b")"
      head -40 "$b.$kind.diff"
    elif [ ! -s "$a.$kind" ]; then
      ok=0
      fail "$name: $kind is empty"
    fi
  done
  [ $ok = 1 ] && pass "$name: sprio -l, sprio -w, sshare -a -l, scontrol and squeue identical"
}

summary() {
  printf '%d passed, %d failed\n' "$FW_PASSES" "$FW_FAILURES"
  [ "$FW_FAILURES" -eq 0 ]
}

# check_no_accounting_host DIR: runs test/host/no_accounting_host (the plugin
# loaded with the association manager and no accounting connection) on copies
# of DIR's saved association state: once with nothing else (the usage
# bootstrap's path: no crash, no decay) and once with assoc_usage and no
# decay clock (decay at most over the time since assoc_usage's save).
# Counts its PASS/FAIL lines. Needs a slurmctld that has saved its state
# (stopped or restarted at least once).
check_no_accounting_host() {
  local cdir=$1 host="$FW_TOP/test/host/no_accounting_host" case work out line
  [ -x "$host" ] || { fail "no-accounting host: $host not built"; return; }
  for case in without-usage with-usage; do
    work=$(mktemp -d /tmp/fairway-host.XXXXXX)
    cp "$cdir/state/assoc_mgr_state" "$cdir/state/last_tres" "$work/"
    # -p: assoc_usage's mtime tells the host how old the saved usage is.
    if [ "$case" = with-usage ]; then cp -p "$cdir/state/assoc_usage" "$cdir/state/qos_usage" "$work/"; fi
    out=$(timeout 60 "$host" "$work" "$FW_PLUGIN_DIR/priority_fairway.so" 2>&1)
    echo "$out" | grep -E '^(PASS|FAIL): ' | sed "s/^\(PASS\|FAIL\): /\1: no accounting connection, $case: /"
    FW_PASSES=$((FW_PASSES + $(echo "$out" | grep -c '^PASS: ')))
    line=$(echo "$out" | grep -cE '^FAIL: ')
    FW_FAILURES=$((FW_FAILURES + line))
    if ! echo "$out" | grep -qE '^[0-9]+ passed, [0-9]+ failed$'; then
      fail "no accounting connection, $case: the host process died"
      echo "$out" | tail -5
    fi
    rm -rf "$work"
  done
  # StateSaveLocation a regular file (ENOTDIR below it): nothing was ever
  # saved there, so the plugin's state is missing, as multifactor reads it,
  # never "damaged" with files to remove by hand.
  work=$(mktemp -d /tmp/fairway-host.XXXXXX)
  cp "$cdir/state/assoc_mgr_state" "$cdir/state/last_tres" "$work/"
  : > "$work/not-a-directory"
  out=$(timeout 60 "$host" "$work" "$FW_PLUGIN_DIR/priority_fairway.so" "$work/not-a-directory" 2>&1)
  echo "$out" | grep -E '^(PASS|FAIL): ' | sed "s/^\(PASS\|FAIL\): /\1: StateSaveLocation a file: /"
  FW_PASSES=$((FW_PASSES + $(echo "$out" | grep -c '^PASS: ')))
  FW_FAILURES=$((FW_FAILURES + $(echo "$out" | grep -cE '^FAIL: ')))
  if echo "$out" | grep -q 'a first start' && ! echo "$out" | grep -qiE 'damaged|by hand'; then
    pass "StateSaveLocation a file: the plugin's state read as missing (a first start), nothing called damaged"
  else
    fail "StateSaveLocation a file: not read as missing"
    echo "$out" | grep -iE 'state|damaged' | head -5
  fi
  rm -rf "$work"
}

# daemon_pid DIR NAME: the pid in DIR's pid file of daemon NAME (empty when
# none). Its first line only: see live_pid_in in scripts/cluster.
daemon_pid() { head -n1 "$1/run/$2.pid" 2>/dev/null | tr -dc '0-9'; }
# ctld_pid DIR: the pid in DIR's slurmctld pid file (empty when none).
ctld_pid() { daemon_pid "$1" slurmctld; }
# shorten_next_pid DIR: makes the kernel's next pid shorter than DIR's
# slurmctld's (ns_last_pid), as after the pid counter wraps (pid_max is
# 32768 on these machines). A slurmctld re-executed by scontrol
# reconfigure (23.11+) then writes a shorter pid over its longer one in
# its pid file, which it does not truncate (update_pidfile,
# slurm-25-11-7-1:src/common/daemonize.c). Does nothing where slurmctld's
# pid is already short or ns_last_pid cannot be written.
shorten_next_pid() {
  local pid
  pid=$(ctld_pid "$1")
  [ "${#pid}" -ge 4 ] && [ -w /proc/sys/kernel/ns_last_pid ] || return 0
  echo 299 2>/dev/null > /proc/sys/kernel/ns_last_pid || true
}
# ctld_alive PID: PID is a running (not zombie) slurmctld (Debian's
# slurmctld-wlm once it has re-executed itself, 23.11+).
ctld_alive() {
  [ -n "$1" ] && case $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) in
    Z | X | "") false ;;
    *) case $(cat "/proc/$1/comm" 2>/dev/null) in slurmctld | slurmctld-wlm) ;; *) false ;; esac ;;
  esac
}
# stop_ctld DIR: stops DIR's slurmctld alone (SIGTERM, SIGKILL after 30 s);
# the other daemons keep running.
stop_ctld() {
  local pid
  pid=$(ctld_pid "$1")
  ctld_alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 300); do ctld_alive "$pid" || return 0; sleep 0.1; done
  kill -KILL "$pid"
}
