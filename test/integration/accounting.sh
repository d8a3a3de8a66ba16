#!/bin/bash
# Accounting integration on the cluster's real MariaDB and slurmdbd
# (doc/accounting.md):
# (a) wipe the controller's state and restart: the usage bootstrap rebuilds
#     every user's RawUsage from slurmdbd to within 2% or 2 billing-seconds
#     (whichever is larger) of the values before the wipe, and the FairShare
#     order is identical;
# (b) `fairway usage audit` agrees with the controller (sshare), before the
#     wipe (usage charged pass by pass) and after it (rebuilt usage);
# (c) `fairway usage export | fairway simulate - --policy fifo` reproduces
#     the recorded order of job starts;
# (d) bad credentials, an unreachable database, a world-readable
#     slurmdbd.conf, a wrong cluster and a malformed job row give clear
#     errors (or a skipped-row warning), never a crash.
set -u
. "$(dirname "$0")/lib.sh"

dir=$(mktemp -d /tmp/fairway-acct.XXXXXX)
chmod 755 "$dir"
trap 'stop_cluster "$dir/c"; rm -rf "$FW_PLUGIN_DIR"' EXIT
prepare_plugin_dir || exit 1
FAIRWAY="$FW_TOP/fairway"
c="$dir/c"
mkdir -p "$c"

log "cluster"
start_cluster "$c" priority/fairway || { fail "cluster start"; summary; exit 1; }
# StorageHost=localhost: the connector uses the private server's socket.
export MYSQL_UNIX_PORT="$c/run/mysql.sock"
create_example_tree

# A workload whose real start order is its submission order: each job is
# submitted only once the previous one has left the queue, so at most one
# job is pending at a time. Distinct amounts per user give a strict
# FairShare order; the 2-CPU job makes later ones wait for CPUs.
submit_started() {  # USER SECONDS CPUS
  local id state limit=$((SECONDS + 120))
  id=$(submit_as "$1" -n"$3" --wrap "sleep $2") || return 1
  while :; do
    state=$(squeue -h -j "$id" -o %T 2>/dev/null)
    [ "$state" != PENDING ] && break
    [ $SECONDS -gt $limit ] && { echo "job $id pending too long" >&2; return 1; }
    sleep 0.5
  done
}
log "workload"
t_work=$SECONDS
ok=1
for job in "fwuser1 30 1" "fwuser4 20 1" "fwuser5 8 2" "fwuser1 20 1" "fwuser2 12 1" \
    "fwuser4 8 1" "fwuser5 4 1"; do
  # shellcheck disable=SC2086
  submit_started $job || ok=0
done
wait_jobs_done 300 || ok=0
[ $ok = 1 ] || fail "workload did not run"
log "workload ran in $((SECONDS - t_work))s"
# Two passes: every ended job fully charged.
wait_decay_passes "$c" 2 || fail "no decay pass after the workload"

# account/user RawUsage FairShare, users only.
snapshot() {
  sshare -a -n -P -o account,user,rawusage,fairshare | awk -F'|' '$2 != "" && $2 != "root" {
    gsub(/ /, "", $1); print $1 "/" $2, $3, $4 }' | sort
}
order_of() { sort -k3,3gr -k1,1 "$1" | awk '{print $1}' | tr '\n' ' '; }
snapshot > "$dir/before"
log "before the wipe: $(tr '\n' ';' < "$dir/before")"

# (b) before the wipe: the controller's own pass-by-pass charges.
if "$FAIRWAY" usage audit > "$dir/audit-before.txt" 2>&1; then
  pass "audit: fairway usage audit agrees with the controller's charged usage (before the wipe)"
else
  fail "audit: fairway usage audit disagrees before the wipe (exit $?)"
  cat "$dir/audit-before.txt"
fi

# (a) wipe and restart.
log "stopping slurmctld and wiping $c/state"
pid=$(ctld_pid "$c")
kill "$pid"
for _ in $(seq 1 100); do
  [ -d "/proc/$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = slurmctld ] || break
  sleep 0.2
done
rm -rf "${c:?}"/state/*
log_lines=$(wc -l < "$c/log/slurmctld.log")
t_restart=$SECONDS
restart_ctld "$c" priority/fairway >/dev/null 2>&1 || fail "slurmctld restart after the wipe"
wait_decay_passes "$c" 1 || fail "no decay pass after the restart"
log "restart and first pass in $((SECONDS - t_restart))s"
if tail -n +"$((log_lines + 1))" "$c/log/slurmctld.log" | grep -q "usage bootstrap: rebuilt the usage of"; then
  pass "bootstrap: slurmctld rebuilt the usage from slurmdbd after the wipe ($(tail -n +"$((log_lines + 1))" "$c/log/slurmctld.log" | grep -o 'rebuilt the usage of [0-9]* associations from [0-9]* jobs' | head -1))"
else
  fail "bootstrap: no 'usage bootstrap: rebuilt the usage of' in slurmctld.log after the restart"
  tail -n +"$((log_lines + 1))" "$c/log/slurmctld.log" | grep -i bootstrap
fi
snapshot > "$dir/after"
log "after the restart: $(tr '\n' ';' < "$dir/after")"
# Tolerance: 2% or 2 billing-seconds, whichever is larger (sshare prints
# whole billing-seconds; the controller charges in passes).
if join "$dir/before" "$dir/after" | awk '
    { d = $4 - $2; if (d < 0) d = -d; m = ($2 > $4 ? $2 : $4) * 0.02; if (m < 2) m = 2
      if (d > m) { printf "%s: before %s after %s\n", $1, $2, $4; bad = 1 } }
    END { exit bad }' && [ "$(wc -l < "$dir/before")" = "$(wc -l < "$dir/after")" ] &&
    [ "$(wc -l < "$dir/before")" -ge 5 ]; then
  pass "bootstrap: every user's RawUsage within 2% or 2 billing-seconds of before the wipe"
else
  fail "bootstrap: RawUsage after the restart differs from before the wipe"
  paste "$dir/before" "$dir/after"
fi
before_order=$(order_of "$dir/before")
after_order=$(order_of "$dir/after")
if [ "$before_order" = "$after_order" ]; then
  pass "bootstrap: FairShare order identical after the wipe ($before_order)"
else
  fail "bootstrap: FairShare order changed: before '$before_order', after '$after_order'"
fi

# (b) after the restart: the rebuilt usage.
if "$FAIRWAY" usage audit > "$dir/audit-after.txt" 2>&1; then
  pass "audit: fairway usage audit exits 0 against the restarted cluster"
else
  fail "audit: fairway usage audit after the restart (exit $?)"
  cat "$dir/audit-after.txt"
fi
if "$FAIRWAY" usage audit --json 2>/dev/null | python3 -c '
import json, sys
j = json.load(sys.stdin)
users = [a for a in j["associations"] if a["user"] and a["user"] != "root" and a["db"] > 0]
sys.exit(0 if j["jobs"] >= 7 and len(users) >= 4 and j["beyond_tolerance"] == 0 else 1)'; then
  pass "audit: --json covers the workload's jobs and users"
else
  fail "audit: --json output incomplete"
fi

# (c) export | simulate, FIFO.
if "$FAIRWAY" usage export --trace "$dir/trace.csv" 2>"$dir/export.err" |
    "$FAIRWAY" simulate - --policy fifo --no-plots --out "$dir/sim" > "$dir/sim.txt" 2>&1; then
  recorded=$(tail -n +2 "$dir/trace.csv" | sort -t, -k2,2n -k4,4n | cut -d, -f4 | tr '\n' ' ')
  simulated=$(tail -n +2 "$dir/sim/fifo/jobs.csv" | sort -t, -k4,4n -k1,1n | cut -d, -f1 | tr '\n' ' ')
  if [ -n "$recorded" ] && [ "$recorded" = "$simulated" ]; then
    pass "export: fairway usage export | fairway simulate - --policy fifo reproduces the recorded start order ($recorded)"
  else
    fail "export: start order recorded '$recorded', simulated '$simulated'"
    cat "$dir/trace.csv" "$dir/sim/fifo/jobs.csv"
  fi
else
  fail "export: fairway usage export | fairway simulate - failed"
  cat "$dir/export.err" "$dir/sim.txt"
fi

# (d) errors: a message naming the problem, non-zero exit, no crash.
expect_error() {  # NAME REGEX CMD...
  local name=$1 regex=$2 rc
  shift 2
  "$@" > "$dir/err.out" 2> "$dir/err.txt"
  rc=$?
  if [ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -Eq "$regex" "$dir/err.txt"; then
    pass "errors: $name: exit $rc, '$(head -1 "$dir/err.txt")'"
  else
    fail "errors: $name: exit $rc, expected /$regex/"
    cat "$dir/err.txt"
  fi
}
cp "$c/etc/slurmdbd.conf" "$dir/badpass.conf"
sed -i 's/^StoragePass=.*/StoragePass=not-the-password/' "$dir/badpass.conf"
chmod 600 "$dir/badpass.conf"
expect_error "bad credentials" "refused user 'slurm'" \
  "$FAIRWAY" usage audit --slurmdbd-conf "$dir/badpass.conf"
if grep -q not-the-password "$dir/err.txt"; then fail "errors: the password appears in the message"; fi
MYSQL_UNIX_PORT="$dir/no-such.sock" expect_error "unreachable database" \
  "cannot reach the database server at localhost \(unix socket $dir/no-such.sock\)" \
  "$FAIRWAY" usage export
cp "$c/etc/slurmdbd.conf" "$dir/open.conf"
chmod 644 "$dir/open.conf"
expect_error "world-readable slurmdbd.conf" "open.conf has mode 0644: .*refusing" \
  "$FAIRWAY" usage audit --slurmdbd-conf "$dir/open.conf"
expect_error "unknown cluster" "table nosuch_job_table does not exist" \
  "$FAIRWAY" usage audit --cluster nosuch
# A malformed row (written with the server's root account: the tool itself
# never writes): reported with its job id and skipped.
bad_job=$(tail -n +2 "$dir/trace.csv" | head -1 | cut -d, -f4)
mariadb --no-defaults --socket="$MYSQL_UNIX_PORT" -u root slurm_acct_db \
  -e "UPDATE ${FAIRWAY_CLUSTER_NAME:-fairway}_job_table SET tres_alloc='1=two' WHERE id_job=$bad_job" || fail "cannot damage a row"
"$FAIRWAY" usage export > "$dir/export-bad.scenario" 2> "$dir/export-bad.err"
rc=$?
if [ $rc = 0 ] && grep -q "warning: job $bad_job skipped: tres_alloc '1=two'" "$dir/export-bad.err" &&
    grep -q "1 malformed job row skipped" "$dir/export-bad.err" &&
    ! grep -q " id $bad_job\$" "$dir/export-bad.scenario"; then
  pass "errors: malformed row: job $bad_job reported and skipped, export still written"
else
  fail "errors: malformed row: exit $rc"
  cat "$dir/export-bad.err"
fi
"$FAIRWAY" usage audit > /dev/null 2> "$dir/audit-bad.err"
rc=$?
if [ $rc -lt 128 ] && grep -q "job $bad_job skipped" "$dir/audit-bad.err"; then
  pass "errors: audit with a malformed row reports it (exit $rc)"
else
  fail "errors: audit with a malformed row: exit $rc"
  cat "$dir/audit-bad.err"
fi

summary
