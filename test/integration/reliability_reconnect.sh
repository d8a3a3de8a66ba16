#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Reliability 8: slurmdbd reconnects while slurmctld runs from its cache,
# with the plugin built with AddressSanitizer + UBSan (issue 45 item 5,
# doc/slurm-integration.md §10.3, Slurm Ticket 25273). When slurmctld
# started without slurmdbd ("Association database appears down, reading
# from state files") and slurmdbd comes back, _assoc_cache_mgr calls
# assoc_mgr_refresh_lists, which replaces assoc_mgr's association, QOS and
# user lists and frees every old record, then repoints the jobs
# (_assoc_mgr_post_update_all, slurm-26-05-3-1:src/slurmctld/controller.c).
# A pointer to an association record kept by the plugin from one pass to
# the next would then be read after free: ASan stops slurmctld.
#
# The run: a 26.05.3 cluster (FW_SLURM; the fix of the partial refresh is
# in 26.05.2+) with priority/fairway built by test/asan_plugin.sh and gcc's
# libasan preloaded into slurmctld alone (FAIRWAY_CTLD_ENV of
# scripts/cluster; slurmctld itself is not instrumented, so detect_leaks=0).
# Classic fairshare (NO_FAIR_TREE), two accounts, two jobs running and two
# pending. slurmctld is stopped; the associations are changed in slurmdbd
# (rc1's shares 10 -> 30, fwuser4 added to rc1, fwuser3 removed); slurmdbd
# is stopped; slurmctld starts on its cache and runs a decay pass, sprio,
# sshare and a submission there; slurmdbd starts again; after the refresh,
# two more decay passes with sprio/sshare calls and submissions between.
# Asserts:
# - ASan is really in slurmctld (libasan and the ASan plugin mapped);
# - slurmctld ran from its cache (its log line) and fwuser4 was unknown
#   there; the refresh happened (the debug2 line of
#   _assoc_mgr_post_update_all) and fwuser4's job is accepted after it;
# - slurmctld is the same process at the end; no ASan or UBSan report in
#   their log files (slurmctld, sshare) or slurmctld's logs, through the
#   final stop too;
# - decay passes ran after the refresh, and what sshare shows comes from
#   the new records: rc1's NormShares 0.75, fwuser4 listed, fwuser3 gone;
#   every user's FairShare is 2^(-EffectvUsage/NormShares) and every
#   pending job's normalised fairshare factor equals its user's FairShare.
# FW_ASAN_PLUGIN_SO: an ASan plugin built beforehand (e.g. a scratch build
# with a bug injected, to see this scenario fail); otherwise one is built
# here (cached: test/asan_plugin.sh). FW_PLUGIN_SO is ignored.
# About 3 minutes (two calc periods after the refresh).
set -u
. "$(dirname "$0")/lib.sh"

export FW_SLURM=${FW_SLURM:-26.05.3}
dir=$(mktemp -d /tmp/fairway-reconnect.XXXXXX)
chmod 755 "$dir"
c=$dir/c
started=$SECONDS
cleanup() {
  stop_cluster "$c"
  rm -rf "$FW_PLUGIN_DIR"; [ -n "${FW_KEEP:-}" ] || rm -rf "$dir"
}
trap cleanup EXIT

so=${FW_ASAN_PLUGIN_SO:-}
if [ -z "$so" ]; then
  so=$dir/priority_fairway.so
  "$FW_TOP/test/asan_plugin.sh" "$FW_SLURM" "$so" || { fail "ASan build of the plugin for Slurm $FW_SLURM"; summary; exit 1; }
fi
FW_PLUGIN_SO=$so prepare_plugin_dir || { fail "no ASan plugin at $so"; summary; exit 1; }
libasan=$(readlink -f "$(gcc -print-file-name=libasan.so)")
[ -f "$libasan" ] || { fail "gcc's libasan.so not found"; summary; exit 1; }
asan=$dir/asan
mkdir -p "$asan"
san_opts() { echo "ASAN_OPTIONS=log_path=$asan/$1:abort_on_error=1:halt_on_error=1:detect_leaks=0 UBSAN_OPTIONS=log_path=$asan/$1-ubsan:print_stacktrace=1:halt_on_error=1"; }
FAIRWAY_CTLD_ENV="LD_PRELOAD=$libasan $(san_opts slurmctld)"
export FAIRWAY_CTLD_ENV
# sshare loads the priority plugin itself (slurm-26-05-3-1:src/sshare/sshare.c),
# so it needs the runtime too.
# shellcheck disable=SC2046  # san_opts's words are VAR=VALUE pairs
sshare_asan() { env LD_PRELOAD="$libasan" $(san_opts sshare) timeout 30 sshare "$@"; }

cat > "$dir/extra.conf" <<CONF
PriorityFlags=NO_FAIR_TREE
SlurmctldDebug=debug2
CONF
log "starting a Slurm $FW_SLURM cluster, priority/fairway with ASan"
start_cluster "$c" priority/fairway "$dir/extra.conf" || { fail "cluster start"; summary; exit 1; }
ctld_log=$c/log/slurmctld.log
"$FW_CLUSTER" users 4 >/dev/null 2>&1
sacctmgr -i add account rc1 fairshare=10 >/dev/null
sacctmgr -i add account rc2 fairshare=10 >/dev/null
sacctmgr -i add user fwuser1 account=rc1 fairshare=1 >/dev/null
sacctmgr -i add user fwuser2 account=rc2 fairshare=1 >/dev/null
sacctmgr -i add user fwuser3 account=rc2 fairshare=1 >/dev/null

pid=$(ctld_pid "$c")
if grep -qF "$libasan" "/proc/$pid/maps" && grep -q '/libubsan\.so' "/proc/$pid/maps" &&
   grep -qF "$FW_PLUGIN_DIR/priority_fairway.so" "/proc/$pid/maps"; then
  pass "ASan active: slurmctld (pid $pid) maps $(basename "$libasan"), libubsan and the ASan-built plugin"
else
  fail "slurmctld (pid $pid) does not map libasan and the ASan plugin"; grep -E 'asan|priority_' "/proc/$pid/maps" | awk '{print $6}' | sort -u
fi

# Two 1-CPU jobs fill the node; two more wait behind them.
r1=$(submit_as fwuser1 -n1 --wrap 'sleep 900')
r2=$(submit_as fwuser2 -n1 --wrap 'sleep 900')
p1=$(submit_as fwuser1 -n1 --wrap 'sleep 30')
p2=$(submit_as fwuser2 -n1 --wrap 'sleep 30')
for _ in $(seq 60); do [ "$(squeue -h -t R -o %i | wc -l)" -ge 2 ] && break; sleep 0.5; done
log "jobs: running $r1 $r2, pending $p1 $p2"
sleep 3  # usage to charge at the next pass

# ------------------------------------------------ associations changed ---
log "slurmctld stopped; associations changed in slurmdbd; slurmdbd stopped"
stop_ctld "$c"
sacctmgr -i modify account rc1 set fairshare=30 >/dev/null
sacctmgr -i add user fwuser4 account=rc1 fairshare=1 >/dev/null
sacctmgr -i delete user fwuser3 >/dev/null
dbd=$(daemon_pid "$c" slurmdbd)
kill -TERM "$dbd"
for _ in $(seq 150); do [ -d "/proc/$dbd" ] || break; sleep 0.2; done

# ------------------------------------------------------ on the cache ---
log_from=$(stat -c %s "$ctld_log")
since=$(date +%s)
"$FW_CLUSTER" restart-ctld --dir "$c" > "$dir/restart.out" 2>&1 || { fail "slurmctld start without slurmdbd"; cat "$dir/restart.out"; }
pid=$(ctld_pid "$c")
if tail -c +$((log_from + 1)) "$ctld_log" | grep -q "Association database appears down, reading from state files"; then
  pass "slurmctld (pid $pid) started without slurmdbd, from its state files"
else
  fail "slurmctld did not say it runs from its state files"
fi
wait_pass_since "$c" "$since" 90 && pass "a decay pass on the cache" || fail "no decay pass on the cache within 90 s"
sprio -h > /dev/null && sshare_asan -a -l -P > "$dir/cache.sshare" || fail "sprio/sshare on the cache"
c1=$(submit_as fwuser2 -n1 --wrap 'sleep 30') || fail "submission on the cache"
if submit_as fwuser4 -n1 --wrap 'sleep 30' > "$dir/fwuser4.cache" 2>&1; then
  fail "fwuser4 (added while slurmctld was down) could submit on the cache: is it really the cache?"
else
  pass "on the cache fwuser4 is unknown ($(head -1 "$dir/fwuser4.cache" | cut -c1-80))"
fi

# ---------------------------------------------------- slurmdbd is back ---
log "slurmdbd started again"
"$FW_CLUSTER" start-dbd --dir "$c" > "$dir/start-dbd.out" 2>&1 || { fail "slurmdbd did not start again"; cat "$dir/start-dbd.out"; }
refresh="got real data from the database refreshing the association ptr's"
t_back=$SECONDS refreshed=0
while [ $((SECONDS - t_back)) -lt 60 ]; do
  if tail -c +$((log_from + 1)) "$ctld_log" | grep -qF "$refresh"; then refreshed=1; break; fi
  ctld_alive "$pid" || break
  sprio -h > /dev/null 2>&1; sshare_asan -a -P > /dev/null 2>&1
  sleep 1
done
refreshed_at=$(date +%s)
if [ $refreshed = 1 ]; then
  pass "assoc_mgr refreshed its lists $((SECONDS - t_back)) s after slurmdbd came back: $(tail -c +$((log_from + 1)) "$ctld_log" | grep -F "$refresh" | tail -1 | sed 's/^\[[^]]*\] //')"
else
  fail "no association refresh within 60 s of slurmdbd's start"
fi
j4=$(submit_as fwuser4 -n1 --wrap 'sleep 30') && pass "after the refresh fwuser4's job $j4 is accepted" ||
  fail "fwuser4 still cannot submit after the refresh"

# Two passes on the new records, with readers and submissions between.
passes=0
for k in 1 2; do
  s=$(( k == 1 ? refreshed_at : $(last_decay_ran "$c") + 1 ))
  limit=$((SECONDS + 75))
  while [ "$(last_decay_ran "$c")" -lt "$s" ] && [ $SECONDS -lt $limit ] && ctld_alive "$pid"; do
    sprio -l -h > /dev/null 2>&1; sshare_asan -a -l -P > /dev/null 2>&1; scontrol show job > /dev/null 2>&1
    sleep 2
  done
  [ "$(last_decay_ran "$c")" -ge "$s" ] && passes=$((passes + 1))
  submit_as fwuser1 -n1 --wrap 'sleep 30' > /dev/null 2>&1
done
sleep 1
[ $passes = 2 ] && pass "two decay passes after the refresh" || fail "$passes of 2 decay passes after the refresh"

if ctld_alive "$pid" && timeout 10 scontrol ping | grep -q UP; then
  pass "slurmctld (pid $pid) alive and answering after the reconnect"
else
  fail "slurmctld (pid $pid) died after the reconnect"; tail -5 "$ctld_log"
fi

# ------------------------------------------------ what sshare shows now ---
sshare_asan -a -n -P -o account,user,normshares,effectvusage,fairshare > "$dir/after.sshare" 2> "$dir/after.sshare.err" ||
  { fail "sshare after the refresh"; cat "$dir/after.sshare.err"; }
row() { awk -F'|' -v OFS='|' -v a="$1" -v u="$2" '{ gsub(/^ +/, "", $1) } $1 == a && $2 == u' "$dir/after.sshare"; }
# Beside rc1 and rc2, root's own association holds 1 share: rc1 had 10/21
# on the cache, 30/41 now.
ns_cache=$(awk -F'|' '{ gsub(/^ +/, "", $1) } $1 == "rc1" && $2 == "" { print $4 }' "$dir/cache.sshare")
ns=$(row rc1 "" | cut -d'|' -f3)
if awk -v v="$ns_cache" -v w="$ns" 'BEGIN { exit !(v > 0.47618 && v < 0.47620 && w > 0.73170 && w < 0.73171) }'; then
  pass "rc1's NormShares: the old 10/21 on the cache ($ns_cache), the new 30/41 after the refresh ($ns)"
else
  fail "rc1's NormShares: '$ns_cache' on the cache (expected 10/21), '$ns' after the refresh (expected 30/41)"
fi
[ -n "$(row rc1 fwuser4)" ] && pass "fwuser4 listed under rc1: $(row rc1 fwuser4)" || fail "fwuser4 not in sshare"
[ -s "$dir/after.sshare" ] && [ -z "$(row rc2 fwuser3)" ] && pass "fwuser3 gone" || fail "fwuser3 still listed, or no sshare: $(row rc2 fwuser3)"
# Classic: F = 2^(-UE/S) for each user, from the values the pass wrote.
bad=$(awk -F'|' '$2 != "" {
        if ($5 == "" || $3 <= 0) { print $1 "/" $2 ": no FairShare"; next }
        f = 2 ^ (-$4 / $3); d = f - $5; if (d < 0) d = -d
        if (d > 0.0005) print $1 "/" $2 ": FairShare " $5 " != 2^(-" $4 "/" $3 ") = " f }' "$dir/after.sshare")
users=$(awk -F'|' '$2 != ""' "$dir/after.sshare" | wc -l)
[ -z "$bad" ] && [ "$users" -ge 4 ] && pass "every user's FairShare is 2^(-EffectvUsage/NormShares) ($users users)" ||
  { fail "FairShare inconsistent ($users users): $bad"; cat "$dir/after.sshare"; }
# Each pending job's fairshare factor is its user's FairShare.
sprio -h -n -o '%i|%u|%f' > "$dir/after.sprio"
bad=$(awk -F'|' 'NR == FNR { if ($2 != "") fs[$2] = $5; next }
        { gsub(/ /, ""); d = $3 - fs[$2]; if (d < 0) d = -d
          if (!($2 in fs) || d > 0.0005) print "job " $1 " (" $2 "): " $3 " vs " fs[$2] }' "$dir/after.sshare" "$dir/after.sprio")
jobs=$(wc -l < "$dir/after.sprio")
# Among them the job submitted on the cache and fwuser4's.
for j in "$c1" "$j4"; do grep -q "^ *$j|" "$dir/after.sprio" || bad="$bad job $j not in sprio;"; done
if [ -z "$bad" ] && [ "$jobs" -ge 4 ]; then
  pass "every pending job's fairshare factor is its user's FairShare ($jobs jobs, $c1 submitted on the cache and fwuser4's $j4 among them)"
else
  fail "pending jobs' fairshare factors ($jobs jobs): $bad"; cat "$dir/after.sprio"
fi

# ------------------------------------------------------ ASan's verdict ---
# After the stop, so that slurmctld's shutdown (the plugin's fini) is
# covered too. A report names the bad access, the freeing and the
# allocating stacks: their first frames are shown.
log "stopping the cluster (slurmctld's shutdown under ASan too)"
stop_cluster "$c"
reports=$(ls "$asan" 2>/dev/null | tr '\n' ' ')
if [ -z "$reports" ] && ! grep -qE 'AddressSanitizer|runtime error:' "$ctld_log" "$c/log/slurmctld.out" 2>/dev/null; then
  pass "no ASan or UBSan report from slurmctld or sshare, through slurmctld's stop"
else
  [ -n "$reports" ] || reports="none in $asan, but in slurmctld's log:"
  fail "sanitizer reports: $reports"
  for f in "$asan"/*; do
    [ -f "$f" ] || continue
    echo "--- $f"
    awk '/ERROR: |runtime error|^(READ|WRITE) of|^freed by|^previously allocated/ { print; n = 0; next }
         /^ +#[0-9]+ / && n++ < 4 { print }' "$f" | head -24
  done
  grep -hE 'AddressSanitizer|runtime error:' "$ctld_log" "$c/log/slurmctld.out" 2>/dev/null | head -5
fi
log "wall time $((SECONDS - started)) s"
summary
