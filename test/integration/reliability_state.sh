#!/bin/bash
# Reliability 2: damaged state. fairway_planned_use truncated, zero-length,
# wrong version, bit-flipped and garbage (slurmctld stopped, file damaged,
# slurmctld started):
# - the controller is up;
# - slurmctld.log has exactly one error naming the damaged file (and says
#   whether the .old copy was used);
# - association usage (sshare RawUsage of every row) and the ledger's totals
#   are unchanged: nothing is silently reset;
# - after the next pass the file is valid again.
# (priority_last_decay_ran and assoc_usage damaged every way, with running
# jobs, are in reliability_damage.sh.)
# Then StateSaveLocation on a small tmpfs, first remounted read-only, then
# full: the controller keeps running, logs an error naming the file, the
# previous file is kept intact, and once writable again the next pass
# rewrites it.
set -u
. "$(dirname "$0")/lib.sh"

dir=$(mktemp -d /tmp/fairway-state.XXXXXX)
chmod 755 "$dir"
c=$dir/c
cleanup() {
  stop_cluster "$c"
  mountpoint -q "$c/state" && umount "$c/state"
  rm -rf "$FW_PLUGIN_DIR"; [ -n "${FW_KEEP:-}" ] || rm -rf "$dir"
}
trap cleanup EXIT
prepare_plugin_dir || exit 1
mkdir -p "$c"
st=$c/state
decay=$st/priority_last_decay_ran
ledger=$st/fairway_planned_use

# Stop slurmctld with SIGTERM and wait until the process (all its threads)
# is gone; a shutdown that did not save Slurm's state ("Saving all slurm
# state", which writes assoc_usage) is a crash, counted in $unclean.
unclean=0
stop_ctld() {
  local pid before
  pid=$(ctld_pid "$c")
  [ -n "$pid" ] || return 0
  before=$(log_size)
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 300); do
    [ -d "/proc/$pid" ] || break
    [ "$(ls "/proc/$pid/task" 2>/dev/null | wc -l)" -le 1 ] \
      && case $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) in Z | X | "") break ;; esac
    sleep 0.1
  done
  [ -d "/proc/$pid/task/$pid" ] && [ "$(ls "/proc/$pid/task" | wc -l)" -gt 1 ] && kill -KILL "$pid"
  if ! new_log "$before" | grep -q "Saving all slurm state"; then
    unclean=$((unclean + 1))
    log "slurmctld (pid $pid) ended without saving its state: $(dmesg 2>/dev/null | grep -E "\[$pid\]|rpcmgr|srvcn|fw_decay" | tail -1)"
  fi
}
start_ctld() { "$FW_CLUSTER" restart-ctld --dir "$c" >> "$dir/restart.log" 2>&1; }
usage_rows() { timeout 20 sshare -a -n -P -o account,user,rawusage | sort; }
# A ledger the plugin accepts: "OK <sum of all H+c>", else "BAD: why".
ledger_check() {
  python3 - "$1" <<'PY'
import struct, sys
try:
    text = open(sys.argv[1], 'rb').read().decode('ascii')
except Exception as e:
    print("BAD:", e); sys.exit()
lines = text.split('\n')
if not lines[0] == 'FWPU 1' or not text.endswith('\n') or not lines[-2].startswith('checksum '):
    print("BAD: header/checksum line"); sys.exit()
body = text[:text.rfind('checksum ')].encode()
h = 0xcbf29ce484222325
for b in body:
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
if '%016x' % h != lines[-2].split()[1].lower():
    print("BAD: checksum mismatch"); sys.exit()
d = lambda w: struct.unpack('>d', bytes.fromhex(w))[0]
print('OK %.6f' % sum(d(p[1]) + d(p[2]) + d(p[3]) + d(p[4]) for p in (l.split() for l in lines[3:-2])))
PY
}
decay_valid() {  # 16 bytes, both stamps plausible (after $1)
  [ "$(stat -c %s "$decay" 2>/dev/null)" = 16 ] && [ "$(last_decay_ran "$c")" -ge "$1" ]
}
new_log() { tail -c +$(($1 + 1)) "$c/log/slurmctld.log"; }
log_size() { stat -c %s "$c/log/slurmctld.log"; }

cat > "$dir/base.conf" <<CONF
PriorityDecayHalfLife=0
PriorityUsageResetPeriod=YEARLY
PriorityCalcPeriod=1
PriorityParameters=fairshare=planned_use,planned_use_interval=1
CONF
log "starting cluster"
start_cluster "$c" priority/fairway "$dir/base.conf" || { fail "cluster start"; summary; exit 1; }
"$FW_CLUSTER" users 2 >/dev/null 2>&1
sacctmgr -i add account st1 fairshare=1 >/dev/null
sacctmgr -i add account st2 fairshare=2 >/dev/null
sacctmgr -i add user fwuser1 account=st1 >/dev/null
sacctmgr -i add user fwuser2 account=st2 >/dev/null
submit_as fwuser1 -A st1 -n1 --wrap 'sleep 4' >/dev/null
submit_as fwuser2 -A st2 -n2 --wrap 'sleep 6' >/dev/null
wait_jobs_done 120
# The jobs' last slices are charged at their end; two passes later both
# files hold them (the second pass also writes a .old equal to the file).
# Two restarts: each runs a pass at once (the second also keeps a .old
# equal to the file).
for _ in 1 2; do t=$(date +%s); stop_ctld; start_ctld; wait_pass_since "$c" "$t"; done
usage_rows > "$dir/usage.ref"
ledger_ref=$(ledger_check "$ledger")
# Good copies of both files and their .old, restored before every case so
# that each case starts from the same valid state.
stop_ctld
for f in "$decay" "$decay.old" "$ledger" "$ledger.old"; do cp -p "$f" "$dir/ref.$(basename "$f")"; done
start_ctld
restore_refs() {
  local f
  for f in "$ledger" "$ledger.old"; do cp -p "$dir/ref.$(basename "$f")" "$f"; done
}
log "reference usage: $(tr '\n' ' ' < "$dir/usage.ref"); ledger $ledger_ref"
grep -q '|[1-9][0-9]*$' "$dir/usage.ref" && [ "${ledger_ref%% *}" = OK ] \
  || { fail "no usage or no ledger to protect ($ledger_ref)"; summary; exit 1; }

# damage_case NAME FILE ACTION EXPECT_REGEX [OLD_TOO]
damage_case() {
  local name=$1 file=$2 action=$3 expect=$4 old_too=${5:-}
  local before t0 errors ok=1 lines
  stop_ctld
  restore_refs
  cp -p "$file" "$dir/saved"
  eval "$action"
  [ -n "$old_too" ] && eval "${action//\$file/\$file.old}"
  before=$(log_size)
  t0=$(date +%s)
  if ! start_ctld || ! timeout 10 scontrol ping | grep -q UP; then
    fail "$name: controller not up"; tail -20 "$c/log/slurmctld.log"; return
  fi
  wait_pass_since "$c" "$t0" || { fail "$name: no pass after the start"; return; }
  lines=$(new_log "$before" | grep -F "priority/fairway:" | grep -F "$file is damaged" || true)
  errors=$(printf '%s' "$lines" | grep -c . || true)
  if [ "$errors" = 1 ] && printf '%s' "$lines" | grep -qE "error:.*($expect)"; then
    pass "$name: one error naming the file: $(printf '%s' "$lines" | sed 's/^\[[^]]*\] //')"
  else
    fail "$name: expected one error matching '$expect' naming $file, got $errors:"
    printf '%s\n' "$lines"; new_log "$before" | grep -F "priority/fairway:" | head
    ok=0
  fi
  usage_rows > "$dir/usage.now"
  if [ -n "$old_too" ]; then
    : # the ledger starts empty after a logged error: checked below
  elif ! diff -q "$dir/usage.ref" "$dir/usage.now" >/dev/null; then
    fail "$name: sshare RawUsage changed"; diff "$dir/usage.ref" "$dir/usage.now"; ok=0
  fi
  local now
  now=$(ledger_check "$file")
  if [ -n "$old_too" ]; then
    [ "${now%% *}" = OK ] && pass "$name: the next pass wrote a valid ledger ($now)" \
      || fail "$name: ledger not repaired: $now"
    new_log "$before" | grep -q "error:.*priority/fairway: planned use: no usable previous copy" \
      && pass "$name: the empty restart is logged as an error, not silent" \
      || fail "$name: no error for the ledger starting empty"
  elif [ "$now" = "$ledger_ref" ]; then
    pass "$name: the next pass wrote a valid ledger with the same totals ($now)"
  else
    fail "$name: ledger after repair '$now', expected '$ledger_ref'"
  fi
  # The pass that repaired the file keeps the previous file as .old: the
  # damaged one. Until the next pass there is no usable backup.
  if [ -z "$old_too" ]; then
    local o
    o=$(ledger_check "$file.old")
    [ "${o%% *}" = OK ] || bad_old="$bad_old
    $name: $(basename "$file").old after the repair: $o"
  fi
}

bad_old=""
flip_byte() {  # flip_byte FILE OFFSET: xor one byte with 0x04
  python3 -c "
import sys; p, o = sys.argv[1], int(sys.argv[2]); b = bytearray(open(p,'rb').read())
b[o] ^= 0x04; open(p,'wb').write(b)" "$1" "$2"
}

log "damaged fairway_planned_use"
damage_case "ledger truncated" "$ledger" 'head -c $(($(stat -c %s "$dir/saved") / 2)) "$dir/saved" > "$file"' "fairway_planned_use is damaged \\(planned-use ledger: truncated or corrupted \\(no checksum line\\)\\); kept as .*fairway_planned_use.damaged, trying .*fairway_planned_use.old"
damage_case "ledger zero-length" "$ledger" ': > "$file"' "damaged \\(planned-use ledger: truncated \\(0 bytes, no header\\)\\)"
damage_case "ledger wrong version" "$ledger" 'sed "1s/^FWPU 1$/FWPU 2/" "$dir/saved" > "$file"' "unsupported version '2' \\(expected 1\\)"
damage_case "ledger bit-flipped" "$ledger" 'flip_byte "$file" $(($(stat -c %s "$file") / 2))' "checksum mismatch|malformed"
damage_case "ledger garbage" "$ledger" 'head -c 300 /dev/urandom > "$file"' "bad magic"
damage_case "ledger and .old both damaged" "$ledger" 'sed "1s/^FWPU 1$/FWPU 2/" "$dir/saved" > "$file"' "unsupported version" old_too
if timeout 10 scontrol ping | grep -q UP; then pass "controller still up after all damage cases"; else fail "controller down"; fi
# The pass that repairs a file keeps the previous file as .old: the damaged
# one. Until the next pass there is no usable backup.
if [ -z "$bad_old" ]; then
  pass "after every repair the .old copy is still usable"
else
  fail "after a repair, .old is the damaged file until the next pass (one more damage then finds no usable copy):$bad_old"
fi

# ---- read-only and full StateSaveLocation --------------------------------
log "StateSaveLocation on a small tmpfs"
stop_ctld
cp -a "$st" "$dir/state.copy"
kb=$(( $(du -sk "$st" | cut -f1) + 2048 ))
mount -t tmpfs -o size=${kb}k,mode=700 fairway-state "$st" || { fail "mount tmpfs"; summary; exit 1; }
cp -a "$dir/state.copy/." "$st/"
start_ctld || fail "start on tmpfs"
wait_pass_since "$c" "$(date +%s)"
ledger_ref=$(ledger_check "$ledger")

mount -o remount,ro "$st"
before=$(log_size); t0=$(date +%s); ran0=$(last_decay_ran "$c")
wait_log() {  # wait_log BEFORE REGEX: until a new log line matches (<= 75 s)
  for _ in $(seq 75); do new_log "$1" | grep -qE "$2" && { sleep 1; return 0; }; sleep 1; done
  return 1
}
wait_log "$before" "cannot save state file .*fairway_planned_use|cannot save state file .*priority_last_decay_ran.new"
if timeout 10 scontrol ping | grep -q UP; then pass "read-only StateSaveLocation: controller up"; else fail "read-only: controller down"; fi
for f in "$decay" "$ledger"; do
  if new_log "$before" | grep -E "error:.*priority/fairway:.*cannot save state file $f\.new: Read-only file system" >/dev/null; then
    pass "read-only: error names $(basename "$f"): $(new_log "$before" | grep -F "cannot save state file $f.new" | head -1 | sed 's/^\[[^]]*\] //')"
  else
    fail "read-only: no error naming $f.new"; new_log "$before" | grep -iE 'fairway|error' | head
  fi
done
[ "$(last_decay_ran "$c")" = "$ran0" ] && [ "$(ledger_check "$ledger")" = "$ledger_ref" ] \
  && pass "read-only: the previous files are intact" || fail "read-only: previous files changed"
mount -o remount,rw "$st"
t0=$(date +%s); wait_pass_since "$c" "$t0" \
  && [ "$(ledger_check "$ledger")" = "$ledger_ref" ] \
  && pass "read-only then writable: the next pass wrote both files again" \
  || fail "read-only then writable: files not rewritten ($(last_decay_ran "$c") < $t0?)"

dd if=/dev/zero of="$st/filler" bs=64k 2>/dev/null
log "tmpfs full: $(df -k "$st" | tail -1)"
before=$(log_size); ran0=$(last_decay_ran "$c")
wait_log "$before" "priority_last_decay_ran.new: No space"
if timeout 10 scontrol ping | grep -q UP; then pass "full StateSaveLocation: controller up"; else fail "full: controller down"; fi
for f in "$decay" "$ledger"; do
  if new_log "$before" | grep -E "error:.*priority/fairway:.*cannot save state file $f\.new: No space left on device \(the previous file is kept\)" >/dev/null; then
    pass "full: error names $(basename "$f"): $(new_log "$before" | grep -F "cannot save state file $f.new" | head -1 | sed 's/^\[[^]]*\] //')"
  else
    fail "full: no ENOSPC error naming $f.new"; new_log "$before" | grep -iE 'fairway' | head
  fi
done
[ "$(last_decay_ran "$c")" = "$ran0" ] && [ "$(ledger_check "$ledger")" = "$ledger_ref" ] \
  && [ ! -e "$decay.new" ] && [ ! -e "$ledger.new" ] \
  && pass "full: the previous files are intact, no .new left behind" || fail "full: previous files changed or .new left"
rm -f "$st/filler"
t0=$(date +%s); wait_pass_since "$c" "$t0" && decay_valid "$t0" \
  && [ "$(ledger_check "$ledger")" = "$ledger_ref" ] \
  && pass "space freed: the next pass wrote both files again" \
  || fail "space freed: files not rewritten"
usage_rows > "$dir/usage.now"
diff -q "$dir/usage.ref" "$dir/usage.now" >/dev/null && pass "usage unchanged through all of it" \
  || { fail "usage changed"; diff "$dir/usage.ref" "$dir/usage.now"; }
[ $unclean = 0 ] && pass "every SIGTERM stop of slurmctld saved its state (no crash at shutdown)" \
  || fail "$unclean of the SIGTERM stops ended without \"Saving all slurm state\" (slurmctld died during shutdown: assoc_usage not saved)"
if grep -qiE '\bfatal\b|segfault|core dumped' "$c/log/slurmctld.log"; then
  fail "slurmctld's log has fatal/crash lines"; grep -iE '\bfatal\b|segfault' "$c/log/slurmctld.log" | head
else
  pass "no fatal or crash line in slurmctld's log"
fi
stop_cluster "$c"
umount "$st"
summary
