#!/bin/bash
# Reliability 3: every state file damaged every way, with jobs running
# (issue 38). PriorityDecayHalfLife=0, PriorityUsageResetPeriod=NONE,
# PriorityCalcPeriod=1 and two users' 1-CPU jobs, so each user's RawUsage
# should equal the seconds their job has run. Each case stops slurmctld
# (SIGTERM), damages one file, starts slurmctld (its decay thread runs a
# pass at once, so a case costs one restart, not a calc-period wait) and
# checks after that first pass:
# - the controller is up;
# - one clear error line says what was damaged and from when jobs are
#   charged ("state in …" for the decay clock and assoc_usage; the ledger's
#   own line for fairway_planned_use);
# - no grp_used_tres_run_secs underflow line is logged;
# - usage grew by no more than the time between the last pass before the
#   stop and the first pass after the start (never charged twice), and by
#   no less than that minus one PriorityCalcPeriod (at most one period
#   lost); where usage is rebuilt from slurmdbd it equals the job's run
#   time within one calc period, never above.
# Files and ways: priority_last_decay_ran zero bytes, truncated, 16 random
# bytes, text, bit flip, future stamp, negative stamp, unreadable (a
# symbolic-link loop: root reads any file), a directory in its place with
# .damaged present, oversized, deleted; assoc_usage deleted, empty,
# truncated to its header, future, negative and bit-flipped save time,
# unreadable; fairway_planned_use deleted, unreadable, a directory with
# .damaged present, oversized (its other damage is in
# reliability_state.sh); slurmdbd down at the start with assoc_usage lost,
# then back. assoc_usage damage that Slurm itself refuses (a bad version,
# a cut record, appended bytes) stops slurmctld with either plugin before
# any plugin runs: not tested here (doc/reliability.md).
# FW_DAMAGE_TYPE=priority/multifactor runs the priority_last_decay_ran and
# assoc_usage cases on multifactor and only reports what happens
# (doc/reliability.md's comparison); it asserts nothing.
set -u
. "$(dirname "$0")/lib.sh"

type=${FW_DAMAGE_TYPE:-priority/fairway}
measure_only=0
[ "$type" = priority/fairway ] || measure_only=1
calc=60  # PriorityCalcPeriod=1 (minutes)
dir=$(mktemp -d /tmp/fairway-damage.XXXXXX)
chmod 755 "$dir"
c=$dir/c
dbd_pid=""
cleanup() {
  stop_cluster "$c"
  rm -rf "$FW_PLUGIN_DIR"; [ -n "${FW_KEEP:-}" ] || rm -rf "$dir"
}
trap cleanup EXIT
prepare_plugin_dir || exit 1
mkdir -p "$c"
st=$c/state
decay=$st/priority_last_decay_ran
usage=$st/assoc_usage
ledger=$st/fairway_planned_use
started=$SECONDS

stop_ctld() {
  local pid
  pid=$(ctld_pid "$c")
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 300); do
    [ -d "/proc/$pid" ] || break
    case $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) in Z | X | "") break ;; esac
    sleep 0.1
  done
}
# Starts slurmctld alone and waits until it answers (not for the node:
# nothing here needs it, and each case saves that wait). False if it exits.
start_ctld() {
  slurmctld </dev/null >> "$c/log/slurmctld.out" 2>&1 || return 1
  for _ in $(seq 150); do
    timeout 5 scontrol ping 2>/dev/null | grep -q UP && return 0
    [ -n "$(ctld_pid "$c")" ] && [ ! -d "/proc/$(ctld_pid "$c")" ] && return 1
    sleep 0.2
  done
  return 1
}
new_log() { tail -c +$(($1 + 1)) "$c/log/slurmctld.log"; }
log_size() { stat -c %s "$c/log/slurmctld.log"; }
# The 16 bytes of priority_last_decay_ran for (last_ran, last_reset).
clock_bytes() { python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('>qq', int(sys.argv[1]), int(sys.argv[2])))" "$1" "$2"; }
# last_ran of a valid clock file, else empty.
clock_ran() {
  [ -f "$decay" ] && [ "$(stat -c %s "$decay")" = 16 ] || return 0
  python3 -c "import struct,sys; print(struct.unpack('>qq', open(sys.argv[1],'rb').read())[0])" "$decay"
}
# Overwrites the 8-byte save time of assoc_usage (offset 2).
set_usage_time() {
  python3 -c "
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read()); b[2:10] = struct.pack('>q', int(sys.argv[2]))
open(sys.argv[1], 'wb').write(b)" "$usage" "$1"
}
# XORs a byte of FILE at OFFSET with MASK.
flip() {
  python3 -c "
import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[int(sys.argv[2])] ^= int(sys.argv[3], 0)
open(sys.argv[1], 'wb').write(b)" "$1" "$2" "$3"
}
# Clears the lowest set bit of byte 5 of last_ran: 65536 s or more older.
flip_older() {
  python3 -c "
import sys; b = bytearray(open(sys.argv[1], 'rb').read()); v = b[5]
b[5] = v & (v - 1) if v else 0; b[4] ^= 0 if v else 1
open(sys.argv[1], 'wb').write(b)" "$decay"
}

cat > "$dir/base.conf" <<CONF
PriorityDecayHalfLife=0
PriorityUsageResetPeriod=NONE
PriorityCalcPeriod=1
CONF
[ $measure_only = 0 ] && echo "PriorityParameters=fairshare=planned_use" >> "$dir/base.conf"
log "starting cluster ($type)"
start_cluster "$c" "$type" "$dir/base.conf" || { fail "cluster start"; summary; exit 1; }
"$FW_CLUSTER" users 2 >/dev/null 2>&1
sacctmgr -i add account dm1 fairshare=1 >/dev/null
sacctmgr -i add account dm2 fairshare=1 >/dev/null
sacctmgr -i add user fwuser1 account=dm1 >/dev/null
sacctmgr -i add user fwuser2 account=dm2 >/dev/null
users="fwuser1 fwuser2"
declare -A job_start
for u in $users; do
  id=$(submit_as "$u" -A "dm${u#fwuser}" -n1 --wrap 'sleep 100000')
  for _ in $(seq 60); do
    s=$(squeue -h -j "$id" -t R -o %S 2>/dev/null)
    [ -n "$s" ] && break
    sleep 0.5
  done
  job_start[$u]=$(date -d "$s" +%s)
done
log "jobs started at ${job_start[fwuser1]} and ${job_start[fwuser2]}"
# One restart so that every file exists (the ledger, assoc_usage, .old).
t=$(date +%s); stop_ctld; start_ctld; wait_pass_since "$c" "$t"
if [ $measure_only = 0 ]; then
  for f in "$decay" "$decay.old" "$usage" "$ledger" "$ledger.old"; do
    [ -s "$f" ] || { fail "no $(basename "$f") after two restarts"; summary; exit 1; }
  done
fi

declare -A before
L0=0
last_l1=0  # the previous case's pass time, when no clock file holds it
# Usage of each user and the last pass before it, read consistently.
snapshot() {
  local l1 l2 u
  for _ in 1 2 3; do
    l1=$(clock_ran); for u in $users; do before[$u]=$(raw_usage "$u"); done; l2=$(clock_ran)
    [ "$l1" = "$l2" ] && break
  done
  L0=${l1:-$last_l1}
}

# check_usage NAME L1 MODE: MODE "delta" compares growth with the time
# between the passes; "rebuilt" compares usage with each job's run time.
check_usage() {
  local name=$1 l1=$2 mode=$3 u now_raw d e ok=1 what=""
  for u in $users; do
    now_raw=$(raw_usage "$u")
    if [ "$mode" = delta ]; then
      d=$((now_raw - before[$u])); e=$((l1 - L0))
    else
      d=$now_raw; e=$((l1 - job_start[$u]))
    fi
    what="$what $u: +$d over $e s;"
    [ "$d" -le "$e" ] && [ "$d" -ge $((e - calc)) ] || ok=0
    # Never above the job's run time, whatever came before.
    [ "$now_raw" -le $((l1 - job_start[$u])) ] || { ok=0; what="$what (total $now_raw above run time $((l1 - job_start[$u])))"; }
  done
  if [ $measure_only = 1 ]; then
    echo "MEASURE: $name:$what"
  elif [ $ok = 1 ]; then
    pass "$name: usage within one calc period of the run time, never above ($what)"
  else
    fail "$name: usage wrong:$what"
  fi
}

# damage_case NAME ACTION EXPECT [MODE [WAIT [EXPECT2]]]: stop, damage,
# start, check.
# EXPECT: regex of the one error line (grep -E, after "error: ").
# MODE: delta (default), rebuilt (usage rebuilt from slurmdbd), none.
# WAIT: "log:REGEX" when no clock file can be written (wait for that line).
# EXPECT2: the ledger's one line, when the ledger is damaged the same way
# in the same restart.
damage_case() {
  local name=$1 action=$2 expect=$3 mode=${4:-delta} wait=${5:-} expect2=${6:-} before_log t0 l1 lines n e
  snapshot
  stop_ctld
  eval "$action"
  before_log=$(log_size)
  t0=$(date +%s)
  if ! start_ctld || ! timeout 10 scontrol ping | grep -q UP; then
    if [ $measure_only = 1 ]; then
      echo "MEASURE: $name: slurmctld did not start: $(new_log "$before_log" | grep -E 'fatal' | head -1 | sed 's/^\[[^]]*\] //')"
    else
      fail "$name: controller not up"; new_log "$before_log" | tail -5
    fi
    return 1
  fi
  if [ -n "$wait" ]; then
    for _ in $(seq 60); do new_log "$before_log" | grep -qE "${wait#log:}" && break; sleep 0.5; done
    l1=$(date +%s)  # no earlier than the first pass's own time
    sleep 1
  else
    wait_pass_since "$c" "$t0" 30 || { fail "$name: no pass within 30 s of the start"; return 1; }
    l1=$(clock_ran)
  fi
  timeout 10 scontrol ping | grep -q UP || { fail "$name: controller went down"; return 1; }
  last_l1=$l1
  if [ $measure_only = 1 ]; then
    echo "MEASURE: $name: up; log: $(new_log "$before_log" | grep -iE 'decay|assoc_usage|underflow|priority' | grep -v 'sched' | head -3 | sed 's/^\[[^]]*\] //' | tr '\n' '|')"
  else
    for e in "$expect" ${expect2:+"$expect2"}; do
      lines=$(new_log "$before_log" | grep -E "error: priority/fairway: ($e)" || true)
      n=$(printf '%s' "$lines" | grep -c . || true)
      if [ "$n" = 1 ]; then
        pass "$name: one clear line: $(printf '%s' "$lines" | sed 's/^\[[^]]*\] error: //' | cut -c1-220)"
      else
        fail "$name: expected one error line matching '$e', got $n"
        new_log "$before_log" | grep -F "priority/fairway" | head -8
      fi
    done
  fi
  if new_log "$before_log" | grep -q "underflow"; then
    [ $measure_only = 1 ] && echo "MEASURE: $name: $(new_log "$before_log" | grep -c underflow) underflow lines" \
      || fail "$name: underflow logged: $(new_log "$before_log" | grep underflow | head -1)"
  fi
  [ "$mode" = none ] || check_usage "$name" "$l1" "$mode"
}

# Stop, run ACTION (a repair), start, wait for the start's pass.
repair() {
  local t
  stop_ctld; eval "$1"; t=$(date +%s); start_ctld; wait_pass_since "$c" "$t" 30
}

# With the ledger (planned_use mode) each way that applies to both files
# damages both in the same restart; each file's line is checked.
ledger_too() { [ $measure_only = 0 ] && eval "$1"; return 0; }
D="priority_last_decay_ran is"
P="planned use: state file .*fairway_planned_use"
[ $measure_only = 0 ] || P="(no ledger)"
log "priority_last_decay_ran (and fairway_planned_use)"
damage_case "clock zero bytes" ': > "$decay"' "state in .*$D damaged \\(file is 0 bytes, expected 16\\).*charged from when assoc_usage was saved"
damage_case "clock truncated" 'head -c 7 "$decay" > "$dir/t" && mv "$dir/t" "$decay"' "state in .*$D damaged \\(file is 7 bytes"
damage_case "clock 16 random bytes" 'head -c 16 /dev/urandom > "$decay"' "state in .*$D damaged \\((negative time stamps|last_ran -?[0-9]+ is)"
damage_case "clock text" 'printf "last_ran=1795000000 last_reset=1795000000\n" > "$decay"' "state in .*$D damaged \\(file is 42 bytes"
damage_case "clock bit flip" 'flip_older' "state in .*priority_last_decay_ran's last_ran .* older than assoc_usage"
damage_case "clock future stamp" 'clock_bytes $(($(date +%s) + 86400 * 365)) 0 > "$decay"' "state in .*$D damaged \\(last_ran [0-9]+ is [0-9]+ s in the future"
damage_case "clock negative stamp" 'clock_bytes -5 0 > "$decay"' "state in .*$D damaged \\(negative time stamps"
damage_case "clock and ledger unreadable" 'rm -f "$decay"; ln -s "$decay" "$decay"; ledger_too '\''rm -f "$ledger"; ln -s "$ledger" "$ledger"'\' \
  "state in .*$D damaged \\(cannot open: Too many levels of symbolic links" delta "" "$P is damaged \\(cannot open: Too many levels"
# A directory in its place and a .damaged in the way: nothing can be moved
# or saved; .old must survive and the failure be said once.
old_sum=$(md5sum < "$decay.old")
damage_case "clock and ledger are directories, .damaged present" \
  'rm -f "$decay" "$decay.damaged"; mkdir -p "$decay/x"; echo keep > "$decay.damaged"; ledger_too '\''rm -f "$ledger" "$ledger.damaged"; mkdir -p "$ledger/x"; echo keep > "$ledger.damaged"'\' \
  "state in .*$D damaged \\(read error: Is a directory" delta "log:cannot save state file .*priority_last_decay_ran" "$P is damaged \\(read error: Is a directory"
if [ $measure_only = 0 ]; then
  [ -f "$decay.old" ] && [ "$(md5sum < "$decay.old")" = "$old_sum" ] && [ -s "$ledger.old" ] \
    && pass "directories: both .old copies are kept intact" || fail "directories: an .old copy was lost or changed"
  for f in priority_last_decay_ran fairway_planned_use; do
    n=$(grep -cE "error: priority/fairway: cannot move the damaged .*$f aside" "$c/log/slurmctld.log")
    m=$(grep -cE "error: priority/fairway: cannot save state file .*$f: rename" "$c/log/slurmctld.log")
    [ "$n" = 1 ] && [ "$m" = 1 ] && pass "$f is a directory: said once that it cannot be moved aside and once that it cannot be saved" \
      || fail "$f is a directory: $n 'cannot move' and $m 'cannot save' lines (want 1 and 1)"
  done
  # Issue 38 item 3: the next start still finds the directory; usage must
  # not jump.
  damage_case "clock still a directory at the next start" ':' "state in .*$D damaged \\(read error: Is a directory" delta "log:cannot save state file .*priority_last_decay_ran"
fi
damage_case "clock and ledger deleted" 'rm -rf "$decay" "$decay.damaged"; ledger_too '\''rm -rf "$ledger" "$ledger.damaged"'\' \
  "state in .*$D missing; running jobs are charged from when assoc_usage was saved" delta "" "$P is missing; ledger restored from .*fairway_planned_use.old"
damage_case "clock and ledger oversized" 'truncate -s 32M "$decay"; ledger_too '\''truncate -s 300M "$ledger"'\' \
  "state in .*$D damaged \\(file is 33554432 bytes" delta "" "$P is damaged \\(file is larger than any state file"
rm -f "$decay.damaged" "$ledger.damaged"

log "assoc_usage"
U="state in .*assoc_usage"
damage_case "assoc_usage deleted" 'rm -f "$usage"' "$U is missing: .*rebuilt from slurmdbd" rebuilt
damage_case "assoc_usage empty" ': > "$usage"' "$U is damaged \\(file is 0 bytes.*rebuilt from slurmdbd" rebuilt
damage_case "assoc_usage truncated to its header" 'head -c 10 "$usage" > "$dir/t" && mv "$dir/t" "$usage"' "$U holds no association record" rebuilt
damage_case "assoc_usage save time in the future" 'set_usage_time $(($(date +%s) + 86400 * 365))' "$U's header is damaged \\(its save time [0-9]+ is [0-9]+ s in the future"
damage_case "assoc_usage save time negative" 'set_usage_time -7' "$U's header is damaged \\(its save time -7 is before 2010"
damage_case "assoc_usage save time bit flip" 'flip "$usage" 3 0x40' "$U's header is damaged \\(its save time [0-9]+ is [0-9]+ s in the future"
damage_case "assoc_usage unreadable" 'rm -f "$usage"; ln -s "$usage" "$usage"' "$U is damaged \\(cannot open: Too many levels" rebuilt

if [ $measure_only = 0 ]; then
  log "slurmdbd down at the start, assoc_usage lost, then slurmdbd back"
  dbd_pid=$(daemon_pid "$c" slurmdbd)
  damage_case "slurmdbd down at the start" 'kill -TERM $dbd_pid; while [ -d /proc/$dbd_pid ]; do sleep 0.2; done; rm -f "$usage"' \
    "usage bootstrap: (slurmdbd returned no job records|slurmctld has no accounting connection)" none
  before_log=$(log_size)
  (cd "$c" && SLURM_CONF=$c/etc/slurm.conf MYSQL_UNIX_PORT=$c/run/mysql.sock slurmdbd </dev/null >> "$c/log/slurmdbd.out" 2>&1)
  t_back=$(date +%s)
  for _ in $(seq 150); do
    new_log "$before_log" | grep -q "usage bootstrap: rebuilt" && break
    sleep 1
  done
  line=$(new_log "$before_log" | grep "error: priority/fairway: usage bootstrap: rebuilt" || true)
  if [ -n "$line" ]; then
    pass "slurmdbd back: a pass rebuilt usage $(( $(date +%s) - t_back )) s later: $(echo "$line" | sed 's/^\[[^]]*\] error: //')"
  else
    fail "slurmdbd back: no rebuild within 150 s"; new_log "$before_log" | grep -F priority/fairway | head
  fi
  sleep 2
  check_usage "slurmdbd back" "$(clock_ran)" rebuilt

  # Issue 45 item 3: slurmdbd down at the start with assoc_usage kept, then
  # back. assoc_mgr's refresh copies the old root's usage into the new root
  # and adds every leaf again (doc/differences.md, row 13): the root's
  # RawUsage doubles. The next pass finds it above its children's, says so
  # once, and writes the sum back: root's RawUsage is then the users' sum
  # (every usage here is a user's; sshare rounds each row, so one unit per
  # row may differ).
  log "slurmdbd down at the start, assoc_usage kept, then slurmdbd back"
  dbd_pid=$(daemon_pid "$c" slurmdbd)
  repair 'kill -TERM $dbd_pid; while [ -d /proc/$dbd_pid ]; do sleep 0.2; done'
  before_log=$(log_size)
  (cd "$c" && SLURM_CONF=$c/etc/slurm.conf MYSQL_UNIX_PORT=$c/run/mysql.sock slurmdbd </dev/null >> "$c/log/slurmdbd.out" 2>&1)
  R="fairshare: the root association's RawUsage [0-9]+ is more than the [0-9]+ of the associations under it"
  for _ in $(seq 150); do
    new_log "$before_log" | grep -qE "$R" && break
    sleep 1
  done
  sleep 2
  n=$(new_log "$before_log" | grep -cE "error: priority/fairway: $R" || true)
  root_raw=$(timeout 20 sshare -a -n -P -o account,user,rawusage | awk -F'|' '$1 ~ /^ *root$/ && $2 == "" {print $3; exit}')
  read -r users_raw user_rows < <(timeout 20 sshare -a -n -P -o user,rawusage | awk -F'|' '$1 != "" {s += $2; n++} END {print s + 0, n + 0}')
  if [ "$n" = 1 ] && [ -n "$root_raw" ] && [ $((root_raw - users_raw)) -le "$user_rows" ] && [ $((users_raw - root_raw)) -le "$user_rows" ]; then
    pass "slurmdbd back, usage kept: the root's doubled usage said once and repaired (root $root_raw, users' sum $users_raw)"
  else
    fail "slurmdbd back, usage kept: $n repair lines, root RawUsage $root_raw, users' sum $users_raw over $user_rows rows"
    new_log "$before_log" | grep -F priority/fairway | head -5
  fi
fi

timeout 10 scontrol ping | grep -q UP && pass "controller up after every case" || fail "controller down at the end"
if [ $measure_only = 0 ] && grep -qiE '\bfatal\b|segfault|core dumped' "$c/log/slurmctld.log"; then
  fail "slurmctld's log has fatal/crash lines"; grep -iE '\bfatal\b|segfault' "$c/log/slurmctld.log" | head -3
fi
stop_cluster "$c"
log "wall time $((SECONDS - started)) s (cluster start and stop included)"
summary
