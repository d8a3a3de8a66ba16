#!/bin/bash
# Reliability 3: the wall clock jumping. slurmctld alone runs under
# libfaketime (LD_PRELOAD, offset read from a file at every call, so it can
# change while slurmctld runs); clients, slurmd and munged keep the real
# clock (munge credentials are encoded and checked by munged with the real
# clock, so slurmctld's skew does not break authentication). A job charges
# usage with a one-hour half-life, DAILY usage reset, planned-use mode with
# one-minute intervals. Asserted:
# - forwards by one day across local midnight: exactly one usage reset
#   (last_reset moves once, to that midnight, and stays), usage not beyond
#   billing x (fake) elapsed, passes continue, the ledger rolls to the
#   current interval and stays valid;
# - backwards by one day (back to the real clock): no negative decay (usage
#   never exceeds what was there plus billing x real elapsed), no reset, the
#   ledger's interval index does not move backwards, and the decay thread
#   keeps running passes on the PriorityCalcPeriod cadence.
# (The backwards jump comes last: libfaketime converts a blocked timed wait
# to real time once, so a later jump would not wake a thread it has stalled.)
set -u
. "$(dirname "$0")/lib.sh"

FAKELIB=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
dir=$(mktemp -d /tmp/fairway-time.XXXXXX)
chmod 755 "$dir"
c=$dir/c
trap 'stop_cluster "$c"; rm -rf "$FW_PLUGIN_DIR"; [ -n "${FW_KEEP:-}" ] || rm -rf "$dir"' EXIT
if [ ! -f "$FAKELIB" ]; then
  echo "libfaketime is not installed (scripts/install-deps)"; fail "no libfaketime"; summary; exit 1
fi
prepare_plugin_dir || exit 1
mkdir -p "$c"
offset_file=$dir/faketime
echo "+0" > "$offset_file"
chmod 644 "$offset_file"

fake_now() { FAKETIME_TIMESTAMP_FILE=$offset_file FAKETIME_NO_CACHE=1 LD_PRELOAD=$FAKELIB date +%s; }
set_offset() { echo "$1" > "$offset_file.tmp" && mv "$offset_file.tmp" "$offset_file"; }
last_reset() {
  local f=$c/state/priority_last_decay_ran
  echo $((16#$(od -An -tx1 -j8 -N8 "$f" | tr -d ' \n')))
}
assoc_usage() {
  timeout 20 scontrol show assoc_mgr flags=assoc users=fwuser1 accounts=tm 2>/dev/null \
    | grep -A3 'UserName=fwuser1' | grep -o 'UsageRaw/Norm/Efctv=[0-9.]*' | head -1 | cut -d= -f2
}
ledger_info() {  # "interval_index total"
  python3 - "$c/state/fairway_planned_use" <<'PY'
import struct, sys, math
try:
    lines = open(sys.argv[1]).read().split('\n')
    d = lambda w: struct.unpack('>d', bytes.fromhex(w))[0]
    vals = [d(p[1]) + d(p[2]) + d(p[3]) + d(p[4]) for p in (l.split() for l in lines[3:-2])]
    ok = lines[0] == 'FWPU 1' and all(math.isfinite(v) and v >= 0 for v in vals)
    print(lines[1].split()[1] if ok else 'BAD', '%.3f' % max(vals or [0]))
except Exception as e:
    print('BAD', e)
PY
}
# Passes seen: distinct mtimes of the decay file over $1 seconds of real time.
count_passes() {
  local n=0 m last end=$((SECONDS + $1))
  last=$(stat -c %Y.%Z "$c/state/priority_last_decay_ran")
  while [ $SECONDS -lt $end ]; do
    sleep 1
    m=$(stat -c %Y.%Z "$c/state/priority_last_decay_ran")
    [ "$m" != "$last" ] && n=$((n + 1)) && last=$m
  done
  echo $n
}
ctld_alive() { timeout 10 scontrol ping 2>/dev/null | grep -q UP; }

cat > "$dir/base.conf" <<CONF
PriorityDecayHalfLife=60
PriorityUsageResetPeriod=DAILY
PriorityCalcPeriod=1
PriorityParameters=fairshare=planned_use,planned_use_interval=1
SlurmdTimeout=0
CONF
log "starting cluster"
start_cluster "$c" priority/fairway "$dir/base.conf" || { fail "cluster start"; summary; exit 1; }
"$FW_CLUSTER" users 1 >/dev/null 2>&1
sacctmgr -i add account tm fairshare=1 >/dev/null
sacctmgr -i add user fwuser1 account=tm >/dev/null

# slurmctld alone under libfaketime (restart-ctld's own clients run under it
# too, with the same offset: harmless). Only the wall clock is faked: a real
# clock step (ntpd, an operator's `date -s`) moves CLOCK_REALTIME, never
# CLOCK_MONOTONIC, on which the decay thread times its passes.
log "restarting slurmctld under libfaketime"
if LD_PRELOAD=$FAKELIB FAKETIME_TIMESTAMP_FILE=$offset_file FAKETIME_NO_CACHE=1 \
   FAKETIME_DONT_RESET=1 FAKETIME_DONT_FAKE_MONOTONIC=1 "$FW_CLUSTER" restart-ctld --dir "$c" > "$dir/restart.log" 2>&1 \
   && ctld_alive && grep -q faketime "/proc/$(ctld_pid "$c")/maps"; then
  pass "slurmctld runs under libfaketime (clients on the real clock authenticate)"
else
  fail "slurmctld does not run under libfaketime"; tail -20 "$dir/restart.log" "$c/log/slurmctld.log"
  summary; exit 1
fi
job=$(submit_as fwuser1 -A tm -n1 --wrap 'sleep 3000')
for _ in $(seq 60); do [ "$(squeue -h -j "$job" -o %T)" = RUNNING ] && break; sleep 1; done
billing=$(scontrol show job "$job" | grep -o 'billing=[0-9]*' | head -1 | cut -d= -f2)
job_start=$(date -d "$(squeue -h -j "$job" -o %S)" +%s)
log "job $job running since $job_start billing $billing"
# The restart's own pass (at the decay thread's start) has charged nothing
# for this job yet; the next one, on the period's cadence, has.
passes=$(count_passes 62)
[ "$passes" -ge 1 ] && pass "offset 0: $passes pass(es) in 62 s" || fail "offset 0: no pass in 62 s"
u0=$(assoc_usage); ran0=$(last_decay_ran "$c"); reset0=$(last_reset); read -r idx0 _ <<< "$(ledger_info)"
t0=$(date +%s)
log "before: usage $u0 last_ran $ran0 last_reset $reset0 ledger interval $idx0"

# ---- forwards one day, across local midnight ------------------------------
set_offset "+1d"
fake=$(fake_now)
midnight=$(date -d "$(date -d @"$fake" +%F) 00:00:00" +%s)
log "clock +1d (fake now $(date -d @"$fake" +%FT%T), crossing midnight $(date -d @"$midnight" +%FT%T))"
# The thread wakes at its next deadline (<= 60 s), finds every deadline of
# the jumped day passed and runs them back to back.
passes=$(count_passes 62)
reset1=$(last_reset); u2=$(assoc_usage); read -r idx2 _ <<< "$(ledger_info)"
passes2=$(count_passes 8)
reset2=$(last_reset); u3=$(assoc_usage); read -r idx3 _ <<< "$(ledger_info)"
log "after +1d: passes $passes+$passes2 (file mtimes seen), last_reset $reset0 -> $reset1 -> $reset2, usage $u0 -> $u2 -> $u3, ledger interval $idx0 -> $idx2 -> $idx3"
ctld_alive && pass "forwards: controller up" || fail "forwards: controller down"
[ "$passes" -ge 1 ] && pass "forwards: passes continue ($passes + $passes2 state writes seen)" \
  || fail "forwards: passes stalled ($passes, $passes2)"
if [ "$reset1" = "$midnight" ] && [ "$reset2" = "$reset1" ]; then
  pass "forwards across midnight: exactly one reset, at $(date -d @"$reset1" +%FT%T)"
else
  fail "forwards: last_reset $reset0 -> $reset1 -> $reset2, expected one move to $midnight"
fi
fake=$(fake_now)
awk -v u="$u3" -v b="$billing" -v e=$((fake - job_start)) 'BEGIN{exit !(u <= b * e + 2)}' \
  && pass "forwards: no runaway usage ($u3 <= billing x fake elapsed $((fake - job_start)))" \
  || fail "forwards: usage $u3 beyond billing x $((fake - job_start))"
exp_idx=$((fake / 60))
[ "$idx3" != BAD ] && [ $((exp_idx - idx3)) -le 2 ] && [ "$idx3" -le "$exp_idx" ] \
  && pass "forwards: ledger valid and rolled to the current interval ($idx3)" \
  || fail "forwards: ledger interval $idx3, expected about $exp_idx"

# ---- backwards one day (back to the real clock) ---------------------------
u0=$(assoc_usage); ran0=$(last_decay_ran "$c"); reset0=$(last_reset); read -r idx0 _ <<< "$(ledger_info)"
t0=$(date +%s)
set_offset "+0"
log "clock -1d (back to real time $(date -d @"$(fake_now)" +%FT%T))"
passes=$(count_passes 75)
u1=$(assoc_usage); ran1=$(last_decay_ran "$c"); reset1=$(last_reset); read -r idx1 _ <<< "$(ledger_info)"
elapsed=$(( $(date +%s) - t0 ))
log "after -1d: $passes passes in 75 s, usage $u0 -> $u1, last_ran $ran0 -> $ran1 (clock now $(fake_now)), last_reset $reset0 -> $reset1, ledger interval $idx0 -> $idx1"
ctld_alive && pass "backwards: controller up" || fail "backwards: controller down"
if [ "$passes" -ge 1 ]; then
  pass "backwards: the decay thread kept running passes ($passes in 75 s)"
else
  fail "backwards 1 day: no decay pass in 75 s (PriorityCalcPeriod is 60 s); last_ran stays at $(date -d @"$ran1" +%FT%T), a day in the clock's future (the fw_decay thread waits for an absolute CLOCK_REALTIME deadline, now a day away: usage charging, fairshare and priority recalculation stall until the clock catches up)"
fi
awk -v a="$u1" -v b="$u0" -v r="$billing" -v e="$elapsed" 'BEGIN{exit !(a <= b + r * e + 2)}' \
  && pass "backwards: no negative decay (usage $u0 -> $u1 within ${elapsed}s of charges)" \
  || fail "backwards: usage grew from $u0 to $u1 in ${elapsed}s (negative decay?)"
[ "$reset1" = "$reset0" ] && pass "backwards: no reset fired" || fail "backwards: last_reset moved $reset0 -> $reset1"
[ "$idx1" != BAD ] && [ "$idx1" -ge "$idx0" ] && pass "backwards: ledger interval index did not move back ($idx0 -> $idx1)" \
  || fail "backwards: ledger interval $idx0 -> $idx1"
ctld_alive && pass "end: controller up" || fail "end: controller down"
if grep -qiE '\bfatal\b|segfault|core dumped' "$c/log/slurmctld.log"; then
  fail "fatal/crash lines in slurmctld's log"; grep -iE '\bfatal\b|segfault' "$c/log/slurmctld.log" | head
else
  pass "no fatal or crash line in slurmctld's log"
fi
summary
