#!/bin/bash
# Reliability 1: crash and restart. A real job charges usage with no decay
# (PriorityDecayHalfLife=0, PriorityUsageResetPeriod=YEARLY: usage is exactly
# billing x elapsed); after one clean restart (so that Slurm's assoc_usage
# exists, as on any controller that has run a while) slurmctld is killed
# with SIGKILL at chosen and random moments (right after a start while its
# first pass runs, the instant a periodic pass writes its state, right after
# the second pass of a controller up for two periods, at random offsets;
# in planned-use mode also after 75 s of downtime) and restarted, in a loop
# bounded in count and time. First, the assoc_usage and qos_usage the
# plugin writes must be byte for byte the files slurmctld writes for the
# same usage (same_usage_files). After each kill, assoc_usage is there.
# After each restart and its pass:
# - last_ran never goes backwards;
# - the job's association usage never exceeds billing x (last_ran - job
#   start) (never double-charged);
# - the crash lost at most one PriorityCalcPeriod of accrual (usage after
#   >= usage before + billing x (time between the two passes) - one period).
# Then the same in planned-use mode (planned_use_interval=1, one-minute
# intervals, no decay so the ledger's H + c is the exact sum of charges):
# the ledger file is never missing or unparseable after a kill, and its total
# for the association obeys the same two bounds.
set -u
. "$(dirname "$0")/lib.sh"

ITERATIONS=${FW_CRASH_ITERATIONS:-3}
PLANNED_ITERATIONS=${FW_CRASH_PLANNED_ITERATIONS:-2}
PHASE_LIMIT=${FW_CRASH_PHASE_LIMIT:-240}   # seconds per phase, whatever the count
PERIOD=60                                   # PriorityCalcPeriod=1 (minutes)
SLACK=3                                     # billing-seconds of rounding

dir=$(mktemp -d /tmp/fairway-crash.XXXXXX)
chmod 755 "$dir"
trap 'stop_cluster "$dir/c"; rm -rf "$FW_PLUGIN_DIR"; [ -n "${FW_KEEP:-}" ] || rm -rf "$dir"' EXIT
prepare_plugin_dir || exit 1
c=$dir/c
mkdir -p "$c"

kill_ctld() {
  local pid
  pid=$(ctld_pid "$c")
  ctld_alive "$pid" || return 1
  kill -KILL "$pid"
  for _ in $(seq 50); do
    case $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) in Z | X | "") return 0 ;; esac
    sleep 0.1
  done
}
start_ctld() {
  FAIRWAY_START_TIMEOUT=60 "$FW_CLUSTER" restart-ctld --dir "$c" >> "$dir/restart.log" 2>&1
}
# Association usage as the controller holds it (float, billing-seconds).
assoc_usage() {
  timeout 20 scontrol show assoc_mgr flags=assoc users=fwuser1 accounts=crash 2>/dev/null \
    | grep -A3 'UserName=fwuser1' | grep -o 'UsageRaw/Norm/Efctv=[0-9.]*' | head -1 | cut -d= -f2
}
# Ledger total (H + c, hi + lo words) of association id $1; "MISSING" or
# "BAD: why" if the file is unusable.
ledger_total() {
  python3 - "$c/state/fairway_planned_use" "$1" <<'PY'
import struct, sys
path, want = sys.argv[1], sys.argv[2]
try:
    text = open(path, 'rb').read().decode('ascii')
except FileNotFoundError:
    print("MISSING"); sys.exit()
lines = text.split('\n')
if not lines[0].startswith('FWPU 1') or not text.endswith('\n') or not lines[-2].startswith('checksum '):
    print("BAD: header/checksum line"); sys.exit()
body = text[:text.rfind('checksum ')].encode()
h = 0xcbf29ce484222325
for b in body:
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
if '%016x' % h != lines[-2].split()[1].lower():
    print("BAD: checksum mismatch"); sys.exit()
d = lambda w: struct.unpack('>d', bytes.fromhex(w))[0]
total = 0.0
for line in lines[3:-2]:
    p = line.split()
    if p[0] == want:
        total = d(p[1]) + d(p[2]) + d(p[3]) + d(p[4])
print('%.3f' % total)
PY
}
ge() { awk -v a="$1" -v b="$2" 'BEGIN{exit !(a >= b)}'; }

cat > "$dir/base.conf" <<CONF
PriorityDecayHalfLife=0
PriorityUsageResetPeriod=YEARLY
PriorityCalcPeriod=1
CONF
log "starting cluster"
start_cluster "$c" priority/fairway "$dir/base.conf" || { fail "cluster start"; summary; exit 1; }
"$FW_CLUSTER" users 1 >/dev/null 2>&1
sacctmgr -i add account crash fairshare=1 >/dev/null
sacctmgr -i add user fwuser1 account=crash >/dev/null
assoc_id=$(sacctmgr -n -P show assoc where user=fwuser1 account=crash format=id | head -1)
job=$(submit_as fwuser1 -A crash -n1 -t 60 --wrap 'sleep 3000')
for _ in $(seq 60); do [ "$(squeue -h -j "$job" -o %T)" = RUNNING ] && break; sleep 1; done
billing=$(scontrol show job "$job" | grep -o 'billing=[0-9]*' | head -1 | cut -d= -f2)
job_start=$(date -d "$(squeue -h -j "$job" -o %S)" +%s)
log "job $job running since $job_start, billing $billing, assoc $assoc_id"
[ -n "$billing" ] && [ "$billing" -gt 0 ] || { fail "no billing for job $job"; summary; exit 1; }

# One crash iteration. $1: phase label, $2: kill mode. Sets globals.
kills=0 cumulative=1 usage_file=1
no_double=1 bounded_loss=1 monotonic=1 alive=1 ledger_ok=1 ledger_no_double=1 ledger_loss=1
iteration() {
  local phase=$1 mode=$2 before_ran before_usage before_ledger t0 after_ran usage ledger
  local upper lower lf
  # Observe the state the kill will interrupt.
  before_ran=$(last_decay_ran "$c")
  before_usage=$(assoc_usage)
  [ "$phase" = planned ] && before_ledger=$(ledger_total "$assoc_id")
  case $mode in
    pass)   # the instant a periodic pass writes a state file (mid-pass:
            # the ledger is written before last_ran)
      local watch=$c/state/priority_last_decay_ran m0 limit=$((SECONDS + 75))
      [ "$phase" = planned ] && watch=$c/state/fairway_planned_use
      m0=$(stat -c %Y.%i "$watch" 2>/dev/null)
      while [ "$(stat -c %Y.%i "$watch" 2>/dev/null)" = "$m0" ] && [ $SECONDS -lt $limit ]; do
        sleep 0.01
      done ;;
    random | down) sleep $((RANDOM % 40 + 3)).$((RANDOM % 10)) ;;
    long)   # a controller up for two periods: kill right after its second pass
      local k r0
      for k in 1 2; do
        r0=$(last_decay_ran "$c")
        while [ "$(last_decay_ran "$c")" = "$r0" ]; do sleep 0.05; done
      done ;;
  esac
  kill_ctld || { alive=0; fail "$phase/$mode: slurmctld was not running before the kill"; return; }
  t0=$(date +%s)
  # Slurm 25.05+ will not start without it (see same_usage_files).
  [ -s "$c/state/assoc_usage" ] || { usage_file=0; fail "$phase/$mode: no assoc_usage after the kill"; }
  if [ "$phase" = planned ]; then
    lf=$(ledger_total "$assoc_id")
    case $lf in MISSING | BAD*) ledger_ok=0; fail "$phase/$mode: ledger after the kill: $lf" ;; esac
  fi
  # a controller down for more than a period while the job keeps running
  [ "$mode" = down ] && sleep 75
  start_ctld || { alive=0; fail "$phase/$mode: slurmctld did not restart"; tail -20 "$c/log/slurmctld.log"; return; }
  if [ "$mode" = startup ]; then
    # kill again while the first pass after the start runs (or just after)
    sleep 0.$((RANDOM % 10))
    kill_ctld
    start_ctld || { alive=0; fail "$phase/$mode: slurmctld did not restart"; return; }
  fi
  wait_pass_since "$c" "$t0" || { alive=0; fail "$phase/$mode: no pass after the restart"; return; }
  after_ran=$(last_decay_ran "$c")
  usage=$(assoc_usage)
  if [ "$after_ran" -lt "$before_ran" ]; then
    monotonic=0; fail "$phase/$mode: last_ran went backwards ($before_ran -> $after_ran)"
  fi
  upper=$((billing * (after_ran - job_start) + SLACK))
  lower=$(awk -v u="$before_usage" -v b="$billing" -v a="$after_ran" -v r="$before_ran" \
    -v p=$PERIOD -v s=$SLACK 'BEGIN{print u + b * (a - r) - b * p - s}')
  log "$phase/$mode: last_ran $before_ran -> $after_ran, usage $before_usage -> $usage (bounds $lower .. $upper)"
  if ! ge "$upper" "$usage"; then
    no_double=0; fail "$phase/$mode: usage $usage > billing x elapsed $upper (double charge)"
  fi
  kills=$((kills + 1))
  if [ "$phase" = fairtree ] && ! ge "$usage" "$((billing * (after_ran - job_start - kills * PERIOD) - SLACK))"; then
    cumulative=0
    log "$phase/$mode: cumulative: usage $usage < billing x (elapsed $((after_ran - job_start)) - $kills periods)"
  fi
  if ! ge "$usage" "$lower"; then
    bounded_loss=0
    fail "$phase/$mode: usage $usage < $lower: the crash lost more than one PriorityCalcPeriod ($(awk -v l="$lower" -v u="$usage" -v p=$PERIOD -v s=$SLACK 'BEGIN{print l - u + p + s}') billing-s lost)"
  fi
  if [ "$phase" = planned ]; then
    ledger=$(ledger_total "$assoc_id")
    case $ledger in
      MISSING | BAD*) ledger_ok=0; fail "$phase/$mode: ledger after the restart: $ledger"; return ;;
    esac
    upper=$((billing * (after_ran - planned_from) + SLACK))
    lower=$(awk -v u="$before_ledger" -v b="$billing" -v a="$after_ran" -v r="$before_ran" \
      -v p=$PERIOD -v s=$SLACK 'BEGIN{print u + b * (a - r) - b * p - s}')
    log "$phase/$mode: ledger $before_ledger -> $ledger (bounds $lower .. $upper)"
    if ! ge "$upper" "$ledger"; then
      ledger_no_double=0; fail "$phase/$mode: ledger $ledger > billing x elapsed $upper (double charge)"
    fi
    if ! ge "$ledger" "$lower"; then
      ledger_loss=0; fail "$phase/$mode: ledger $ledger < $lower: more than one period lost"
    fi
  fi
}

# The plugin writes Slurm's assoc_usage and qos_usage itself after each
# pass that charged (usage_save.c), renamed over the old files so that a
# kill never leaves the name missing (25.05+ slurmctld then stops at start,
# fatal "No Assoc usage file"). They must be the files slurmctld writes for
# the same usage: after a pass replaced both, slurmctld is stopped cleanly
# at once (its own state save; the next pass is a period away, so usage
# does not move in between) and the files are compared byte for byte after
# their 10-byte header (protocol version, time of the save).
same_usage_files() {
  local f ino_a ino_q clock limit=$((SECONDS + 90)) same=1
  ino_a=$(stat -c %i "$c/state/assoc_usage" 2>/dev/null)
  ino_q=$(stat -c %i "$c/state/qos_usage" 2>/dev/null)
  clock=$(last_decay_ran "$c")
  while [ $SECONDS -lt $limit ] && { [ "$(last_decay_ran "$c")" = "$clock" ] ||
      [ "$(stat -c %i "$c/state/assoc_usage" 2>/dev/null)" = "$ino_a" ] ||
      [ "$(stat -c %i "$c/state/qos_usage" 2>/dev/null)" = "$ino_q" ]; }; do
    sleep 0.05
  done
  [ $SECONDS -lt $limit ] || { fail "usage files: no pass replaced assoc_usage and qos_usage in 90 s"; return; }
  for f in assoc_usage qos_usage; do cp "$c/state/$f" "$dir/fairway.$f"; done
  stop_ctld "$c"
  for f in assoc_usage qos_usage; do
    if cmp -s <(tail -c +11 "$dir/fairway.$f") <(tail -c +11 "$c/state/$f"); then
      log "usage files: $f: $(stat -c %s "$c/state/$f") bytes, the same as slurmctld's after the header"
    else
      same=0
      fail "usage files: the plugin's $f differs from slurmctld's for the same usage"
      cmp -l <(tail -c +11 "$dir/fairway.$f") <(tail -c +11 "$c/state/$f") | head -5
    fi
  done
  [ $same = 1 ] && pass "usage files: the plugin's assoc_usage and qos_usage are slurmctld's, byte for byte after the header"
}

modes=(startup pass long random startup)
# Then a clean start: slurmctld wrote assoc_usage at the clean shutdown (and
# does every 300 s), as on any controller that has run a while.
same_usage_files
start_ctld || { fail "clean restart"; summary; exit 1; }
[ -s "$c/state/assoc_usage" ] && log "assoc_usage written at the clean stop" || log "no assoc_usage after a clean stop?"
wait_pass_since "$c" "$job_start" 90
phase_end=$((SECONDS + PHASE_LIMIT))
n=0
for ((i = 0; i < ITERATIONS && SECONDS < phase_end; i++)); do
  iteration fairtree "${modes[i % ${#modes[@]}]}"; n=$((n + 1))
  [ $alive = 1 ] || break
done
log "fair tree: $n kill/restart iterations"
[ $alive = 1 ] && pass "fair tree: slurmctld came back after $n SIGKILLs, job $job still $(squeue -h -j "$job" -o %T)"
[ $monotonic = 1 ] && pass "fair tree: last_ran never went backwards"
[ $no_double = 1 ] && pass "fair tree: usage never exceeded billing x elapsed (no double charge)"
[ $bounded_loss = 1 ] && pass "fair tree: no crash lost more than one PriorityCalcPeriod of usage"
[ $usage_file = 1 ] && pass "fair tree: assoc_usage was there after every kill"
[ $cumulative = 1 ] && pass "fair tree: in all, usage >= billing x (elapsed - $kills periods)" \
  || fail "fair tree: in all, usage lost more than one period per crash (see the log lines above)"

# ---- planned use -------------------------------------------------------
if [ $alive = 1 ]; then
  printf 'PriorityParameters=fairshare=planned_use,planned_use_interval=1\n' > "$dir/planned.conf"
  merge_conf "$c" "$dir/planned.conf"
  rm -f "$c"/state/fairway_planned_use*
  planned_from=$(date +%s)
  start_ctld || fail "planned use: restart"   # stops slurmctld cleanly first
  # The ledger charges from the last pass before the switch.
  wait_pass_since "$c" "$planned_from" 90
  planned_from=$(last_decay_ran "$c")
  first=$(ledger_total "$assoc_id")
  log "planned use: ledger $first at $planned_from"
  planned_from=$(awk -v t="$planned_from" -v l="$first" -v b="$billing" 'BEGIN{printf "%d", t - l / b}')
  modes=(pass down startup)
  no_double=1 bounded_loss=1 monotonic=1 ledger_ok=1 ledger_no_double=1 ledger_loss=1
  phase_end=$((SECONDS + PHASE_LIMIT))
  n=0
  for ((i = 0; i < PLANNED_ITERATIONS && SECONDS < phase_end; i++)); do
    iteration planned "${modes[i % ${#modes[@]}]}"; n=$((n + 1))
    [ $alive = 1 ] || break
  done
  log "planned use: $n kill/restart iterations"
  [ $alive = 1 ] && pass "planned use: slurmctld came back after $n SIGKILLs"
  [ $usage_file = 1 ] && pass "planned use: assoc_usage was there after every kill"
  [ $ledger_ok = 1 ] && pass "planned use: the ledger file was never missing or unparseable after a kill"
  [ $ledger_no_double = 1 ] && pass "planned use: the ledger never exceeded billing x elapsed (no double charge)"
  [ $ledger_loss = 1 ] && pass "planned use: no crash lost more than one period from the ledger"
  [ $no_double = 1 ] && [ $bounded_loss = 1 ] && pass "planned use: association usage bounds held too"
fi
if grep -qiE '\bfatal\b|segfault|core dumped' "$c/log/slurmctld.log"; then
  fail "slurmctld's log has fatal/crash lines"; grep -iE '\bfatal\b|segfault' "$c/log/slurmctld.log" | head
else
  pass "no fatal or crash line in slurmctld's log"
fi
summary
