#!/bin/bash
# One fairshare across clusters (issue 49; PriorityParameters=
# fairshare_clusters): cluster fwa (priority/fairway) counts the usage of
# cluster fwb, joined to its slurmdbd (scripts/cluster start --join). Both
# have the example tree. fwuser1 (account a) runs jobs on fwb only;
# fwuser4 (account d) a small one on fwa. Then, with fwa's node drained and
# a pending job of each on fwa:
# - fwa's remote state (StateSaveLocation/fairway_remote_usage) holds
#   fwb's jobs, each charged once, to their sacct CPU-seconds (billing =
#   CPUs here, decayed for the seconds since they ended);
# - after a pass, fwa's sshare has RawUsage local (0 for a) and EffectvUsage
#   from the sum, (remote + local) / (remote root + local root), and
#   fwuser1's pending job ranks below fwuser4's; without the parameter
#   (slurmctld restarted) the order returns to local usage, and with it
#   again the state file is recovered and the order flips back;
# - slurmdbd stopped across a sync (fwb runs a job meanwhile) and started
#   again: the sync says it failed, then charges the new job once, nothing
#   doubled;
# - fwa's slurmctld killed with kill -9 and restarted: the remote usage is
#   recovered, not charged twice;
# - fairway explain on fwa equals the controller and shows fwb's part;
# - in planned use, fwb's usage joins the ledger (a's u > 0 with no local
#   usage) and explain still equals the controller;
# - fairway report on fwa with --clusters fwb: each user's CPU-seconds over
#   both clusters, as sacct says.
set -u
. "$(dirname "$0")/lib.sh"

dir=$(mktemp -d /tmp/fairway-global.XXXXXX)
chmod 755 "$dir"
trap 'stop_cluster "$dir/b"; stop_cluster "$dir/a"; rm -rf "$FW_PLUGIN_DIR"; [ -n "${FW_KEEP:-}" ] || rm -rf "$dir"' EXIT
prepare_plugin_dir || exit 1

cat > "$dir/remote.conf" <<'EOF'
PriorityParameters=fairshare_clusters=fwb,fairshare_sync=5
EOF
# Without the parameter (slurm.conf takes no empty value).
cat > "$dir/local.conf" <<'EOF'
PriorityParameters=fairshare_sync=5
EOF
log "global fairshare: fwa counts fwb's usage (priority/fairway on both${FW_SLURM:+, Slurm $FW_SLURM})"
FAIRWAY_CLUSTER_NAME=fwa start_cluster "$dir/a" priority/fairway "$dir/remote.conf" \
  || { fail "cluster fwa start"; summary; exit 1; }
start_second_cluster "$dir/a" "$dir/b" priority/fairway fwb || { fail "cluster fwb start"; summary; exit 1; }
create_example_tree fwa,fwb
state="$dir/a/state/fairway_remote_usage"

# ended_jobs CLUSTER: ElapsedRaw|AllocCPUS of its completed jobs, by
# slurmdbd (sacct -s alone would look at the present moment only).
ended_jobs() {
  sacct -M "$1" -a -X -n -P -S 2020-01-01 -o state,elapsedraw,alloccpus 2>/dev/null | sed -n 's/^COMPLETED|//p'
}
# wait_sacct CLUSTER N: until slurmdbd lists N ended jobs of CLUSTER.
wait_sacct() {
  for _ in $(seq 120); do
    [ "$(ended_jobs "$1" | wc -l)" -ge "$2" ] && return 0
    sleep 0.5
  done
  return 1
}
# remote_state: the state file's fwb cluster as "charged path=usage ...".
remote_state() {
  /usr/bin/python3 - "$state" <<'PY'
import struct, sys
def value(hi, lo):
    f = lambda h: struct.unpack("<d", bytes.fromhex(h)[::-1])[0]
    return f(hi) + f(lo)
try:
    lines = open(sys.argv[1]).read().split("\n")
except OSError:
    print("0"); sys.exit()
charged, usage = 0, {}
for l in lines:
    p = l.split(" ")
    if p[0] == "cluster" and p[1] == "fwb":
        charged = int(p[6])
    elif p[0] in ("e", "r"):
        usage[p[1]] = usage.get(p[1], 0) + value(p[2], p[3])
print(charged, " ".join(f"{k}={v:.6f}" for k, v in sorted(usage.items())))
PY
}
# wait_charged N: until the state file holds N charged jobs of fwb.
wait_charged() {
  for _ in $(seq 120); do
    read -r n _ <<< "$(remote_state)"
    [ "${n:-0}" -ge "$1" ] && return 0
    sleep 0.5
  done
  return 1
}
# prio JOB: its priority on fwa.
prio() { with_cluster "$dir/a" squeue -h -j "$1" -o %Q; }
# pass_on_a: wait for a decay pass of fwa that starts after now.
pass_on_a() { local since; since=$(date +%s); wait_pass_since "$dir/a" "$since" 150; }

# ------------------------------------------------------------ the usage ---
with_cluster "$dir/b" submit_as fwuser1 -n2 --wrap 'sleep 8' > /dev/null
with_cluster "$dir/b" submit_as fwuser1 -n1 --wrap 'sleep 5' > /dev/null
with_cluster "$dir/a" submit_as fwuser4 -n1 --wrap 'sleep 3' > /dev/null
{ with_cluster "$dir/b" wait_jobs_done && with_cluster "$dir/a" wait_jobs_done; } || fail "the usage jobs did not end"
wait_sacct fwb 2 || fail "slurmdbd does not list fwb's 2 jobs"
with_cluster "$dir/a" drain_node
j1=$(with_cluster "$dir/a" submit_as fwuser1 -n1 --wrap 'sleep 1')
j4=$(with_cluster "$dir/a" submit_as fwuser4 -n1 --wrap 'sleep 1')

# -------------------------------------------------- charged once, exactly ---
if wait_charged 2; then
  read -r n usage <<< "$(remote_state)"
  want=$(ended_jobs fwb | awk -F'|' '{s += $1 * $2} END {print s}')
  got=$(tr ' ' '\n' <<< "$usage" | sed -n 's/^root\/a\/b|fwuser1=//p')
  # Decayed for the seconds since the jobs ended (half-life 7 days):
  # within 0.01 % of the undecayed CPU-seconds, never above.
  if [ "$n" = 2 ] && awk -v g="$got" -v w="$want" 'BEGIN {exit !(g <= w && g > w * 0.9999)}'; then
    pass "fwa's remote state: fwb's 2 jobs charged once, root/a/b|fwuser1 = $got of sacct's $want CPU-seconds"
  else
    fail "fwa's remote state: $n jobs, fwuser1 $got, sacct $want ($usage)"
  fi
else
  fail "fwa's remote state holds no charged job of fwb within 60 s: $(grep fairshare_clusters "$dir/a/log/slurmctld.log" | tail -2)"
fi
pass_on_a || fail "no decay pass on fwa"

# ------------------------------------------ sshare and priorities on sum ---
check_sum() {  # NAME
  local out
  read -r _ usage <<< "$(remote_state)"
  with_cluster "$dir/a" sshare -a -P -o account,user,rawusage,effectvusage > "$dir/sshare"
  out=$(/usr/bin/python3 - "$dir/sshare" "$usage" <<'PY'
import sys
remote = dict(kv.rsplit("=", 1) for kv in sys.argv[2].split()) if len(sys.argv) > 2 else {}
remote = {k: float(v) for k, v in remote.items()}
def remote_of(prefix):  # the subtree's remote usage
    return sum(v for k, v in remote.items() if k == prefix or k.startswith(prefix + "/") or k.startswith(prefix + "|"))
rows = [l.rstrip("\n").split("|") for l in open(sys.argv[1])][1:]
raw = {(a.strip(), u): float(r) for a, u, r, e in rows}
eff = {(a.strip(), u): float(e) for a, u, r, e in rows}
# sshare prints RawUsage as an integer (the usage truncated): each local
# usage lies in [RawUsage, RawUsage + 1), so the share does in an interval.
bad = []
for acct, path in (("a", "root/a"), ("d", "root/d")):
    r_sub, r_root = raw[(acct, "")], raw[("root", "")]
    lo = (r_sub + remote_of(path)) / (r_root + 1 + remote_of("root"))
    hi = (r_sub + 1 + remote_of(path)) / (r_root + remote_of("root"))
    if not lo - 1e-6 <= eff[(acct, "")] <= hi + 1e-6:
        bad.append(f"{acct} EffectvUsage {eff[(acct, '')]} not in [{lo:.6f}, {hi:.6f}]")
if raw[("a", "")] != 0:
    bad.append(f"a's RawUsage {raw[('a', '')]} is not local (0)")
print(len(bad), "; ".join(bad))
PY
)
  read -r nbad rest <<< "$out"
  if [ "$nbad" = 0 ]; then
    pass "$1: fwa's sshare: RawUsage local (a: 0), EffectvUsage of a and d = (local + fwb's) / (root local + fwb's)"
  else
    fail "$1: $rest"
  fi
}
check_order() {  # NAME lower|higher
  local p1 p4
  p1=$(prio "$j1") p4=$(prio "$j4")
  if { [ "$2" = lower ] && [ "$p1" -lt "$p4" ]; } || { [ "$2" = higher ] && [ "$p1" -gt "$p4" ]; }; then
    pass "$1: fwuser1's pending job ($p1) ranks $2 than fwuser4's ($p4)"
  else
    fail "$1: fwuser1's pending job has $p1, fwuser4's $p4: not $2"
  fi
}
check_sum "with fwb's usage"
check_order "with fwb's usage" lower

log "fwa restarted without fairshare_clusters, then with it again"
restart_ctld "$dir/a" priority/fairway "$dir/local.conf" > /dev/null || fail "restart without the parameter"
pass_on_a || fail "no decay pass without the parameter"
check_order "local usage only" higher
log_from=$(stat -c %s "$dir/a/log/slurmctld.log")
restart_ctld "$dir/a" priority/fairway "$dir/remote.conf" > /dev/null || fail "restart with the parameter"
pass_on_a || fail "no decay pass with the parameter again"
if tail -c +$((log_from + 1)) "$dir/a/log/slurmctld.log" | grep -q "fairshare_clusters: remote usage restored from"; then
  pass "the remote usage was restored from its state file at restart"
else
  fail "no 'remote usage restored' after the restart"
fi
read -r n _ <<< "$(remote_state)"
[ "$n" = 2 ] && pass "after the restart fwb's 2 jobs are still charged once" || fail "after the restart: $n charged jobs"
check_sum "after the restart"
check_order "fairshare_clusters again" lower

# ----------------------------------------------- slurmdbd down and back ---
log "slurmdbd stopped; fwb runs a job meanwhile; slurmdbd started again"
read -r _ before <<< "$(remote_state)"
dbd=$(daemon_pid "$dir/a" slurmdbd)
log_from=$(stat -c %s "$dir/a/log/slurmctld.log")
kill -TERM "$dbd"
for _ in $(seq 150); do [ -d "/proc/$dbd" ] || break; sleep 0.2; done
with_cluster "$dir/b" submit_as fwuser1 -n1 --wrap 'sleep 4' > /dev/null
with_cluster "$dir/b" wait_jobs_done
for _ in $(seq 60); do
  tail -c +$((log_from + 1)) "$dir/a/log/slurmctld.log" | grep -q "slurmdbd did not answer for cluster fwb" && break
  sleep 0.5
done
if tail -c +$((log_from + 1)) "$dir/a/log/slurmctld.log" | grep -q "slurmdbd did not answer for cluster fwb"; then
  pass "the sync with slurmdbd down says so and keeps the last usage: $(tail -c +$((log_from + 1)) "$dir/a/log/slurmctld.log" | grep -o 'its usage of .*' | head -1)"
else
  fail "no 'slurmdbd did not answer' line while slurmdbd was down"
fi
"$FW_CLUSTER" start-dbd --dir "$dir/a" > "$dir/start-dbd.out" 2>&1 \
  || { fail "slurmdbd did not start again"; cat "$dir/start-dbd.out"; }
wait_sacct fwb 3 || fail "slurmdbd does not list fwb's 3 jobs after its restart"
if wait_charged 3; then
  read -r n after <<< "$(remote_state)"
  third=$(ended_jobs fwb | tail -1 | awk -F'|' '{print $1 * $2}')
  b=$(tr ' ' '\n' <<< "$before" | sed -n 's/^root\/a\/b|fwuser1=//p')
  a=$(tr ' ' '\n' <<< "$after" | sed -n 's/^root\/a\/b|fwuser1=//p')
  if [ "$n" = 3 ] && awk -v a="$a" -v b="$b" -v t="$third" 'BEGIN {d = a - b - t; exit !(d < 0.001 * t && d > -0.001 * (b + t))}'; then
    pass "after slurmdbd's return: 3 jobs charged once each; fwuser1's remote usage grew by the new job's $third CPU-seconds ($b -> $a)"
  else
    fail "after slurmdbd's return: $n charged, fwuser1 $b -> $a (new job $third)"
  fi
else
  fail "fwb's third job was not charged after slurmdbd's return"
fi

# ------------------------------------------------------------- kill -9 ---
log "fwa's slurmctld killed with kill -9 and started again"
read -r n_before before <<< "$(remote_state)"
kill -9 "$(ctld_pid "$dir/a")"
sleep 1
log_from=$(stat -c %s "$dir/a/log/slurmctld.log")
"$FW_CLUSTER" restart-ctld --dir "$dir/a" > /dev/null 2>&1 || fail "slurmctld did not start after kill -9"
sleep 8  # one sync (fairshare_sync=5)
read -r n after <<< "$(remote_state)"
b=$(tr ' ' '\n' <<< "$before" | sed -n 's/^root\/a\/b|fwuser1=//p')
a=$(tr ' ' '\n' <<< "$after" | sed -n 's/^root\/a\/b|fwuser1=//p')
if tail -c +$((log_from + 1)) "$dir/a/log/slurmctld.log" | grep -q "remote usage restored from" \
   && [ "$n" = "$n_before" ] && awk -v a="$a" -v b="$b" 'BEGIN {exit !(a <= b && a > b * 0.9999)}'; then
  pass "after kill -9: remote usage restored, $n jobs charged once, fwuser1 $b -> $a (decay only)"
else
  fail "after kill -9: $n_before -> $n charged, fwuser1 $b -> $a"
fi
pass_on_a || fail "no decay pass after kill -9"
check_sum "after kill -9"
check_order "after kill -9" lower

# ------------------------------------------------ fairway explain on fwa ---
# It recomputes fairshare with what the last pass added of fwb's usage
# (StateSaveLocation/fairway_remote_used) and shows each cluster's part.
# fwb's part, printed to the CPU-second: sacct's sum (decayed by seconds).
fwb_secs=$(ended_jobs fwb | awk -F'|' '{s += $1 * $2} END {print s}')
if with_cluster "$dir/a" "$FAIRWAY" explain assoc b,fwuser1 > "$dir/explain.txt" 2>&1 \
   && grep -q "recomputed fairshare equals the controller's" "$dir/explain.txt" \
   && grep -Eq "b/fwuser1 +local 0 \+ fwb $fwb_secs = $fwb_secs" "$dir/explain.txt" \
   && grep -q "cluster fwb: last synced" "$dir/explain.txt"; then
  pass "fairway explain assoc b,fwuser1 on fwa equals the controller: $(grep -E 'b/fwuser1 +local' "$dir/explain.txt" | sed 's/^ *//'); $(grep 'cluster fwb:' "$dir/explain.txt" | sed 's/^ *//')"
else
  fail "fairway explain with fwb's usage: $(tail -5 "$dir/explain.txt")"
fi

# --------------------------------------------------------- planned use ---
# The other cluster's usage joins planned use's ledger: a (usage on fwb
# only) gets a usage index u > 0 on fwa, and explain still equals the
# controller (fwa's ledger file plus fairway_remote_used's entries).
cat > "$dir/planned.conf" <<'EOF'
PriorityParameters=fairshare=planned_use,fairshare_clusters=fwb,fairshare_sync=5
EOF
log_from=$(stat -c %s "$dir/a/log/slurmctld.log")
restart_ctld "$dir/a" priority/fairway "$dir/planned.conf" > "$dir/restart.pu" 2>&1 \
  || fail "restart in planned use: $(tail -3 "$dir/restart.pu")"
sleep 6  # one sync, then a pass
pass_on_a || fail "no decay pass in planned use"
with_cluster "$dir/a" sshare -a -P -o account,user,rawusage,effectvusage > "$dir/sshare.pu"
u_a=$(awk -F'|' '{sub(/^ +/, "", $1)} $1 == "a" && $2 == "" {print $4}' "$dir/sshare.pu")
raw_a=$(awk -F'|' '{sub(/^ +/, "", $1)} $1 == "a" && $2 == "" {print $3}' "$dir/sshare.pu")
if tail -c +$((log_from + 1)) "$dir/a/log/slurmctld.log" | grep -q "fairshare mode planned_use" \
   && [ "$raw_a" = 0 ] && awk -v u="$u_a" 'BEGIN {exit !(u > 0)}' \
   && with_cluster "$dir/a" "$FAIRWAY" explain assoc b,fwuser1 > "$dir/explain.pu" 2>&1 \
   && grep -q "recomputed fairshare equals the controller's" "$dir/explain.pu"; then
  pass "planned use on the sum: a's usage index u = $u_a from fwb's usage alone (RawUsage 0); explain equals the controller"
else
  fail "planned use on the sum: a RawUsage $raw_a, u $u_a; $(tail -3 "$dir/explain.pu")"
fi

# ------------------------------------------- fairway report over both ---
# slurmdbd's roll-ups of both clusters, then the report on fwa with fwb's
# usage added by path: each user's CPU-seconds over both clusters.
hour=$(( $(date +%s) / 3600 * 3600 - 7200 ))
tomorrow=$(( ($(date +%s) / 86400 + 2) * 86400 ))
sacctmgr -i rollup "$(date -u -d @"$hour" +%Y-%m-%dT%H:%M:%S)" "$(date -u -d @"$tomorrow" +%Y-%m-%dT%H:%M:%S)" > /dev/null \
  || fail "sacctmgr rollup failed"
MYSQL_UNIX_PORT="$dir/a/run/mysql.sock" with_cluster "$dir/a" "$FAIRWAY" report --by hour --clusters fwb \
  --start "$hour" --end "$(( ($(date +%s) / 3600 + 1) * 3600 ))" --format csv > "$dir/report.csv" 2> "$dir/report.err" \
  || fail "fairway report --clusters fwb: $(head -2 "$dir/report.err")"
want1=$(ended_jobs fwb | awk -F'|' '{s += $1 * $2} END {print s}')
want4=$(ended_jobs fwa | awk -F'|' '{s += $1 * $2} END {print s}')
got1=$(awk -F, '$1 == "total" && $6 == "fwuser1" {print $13}' "$dir/report.csv")
got4=$(awk -F, '$1 == "total" && $6 == "fwuser4" {print $13}' "$dir/report.csv")
if [ -n "$got1" ] && [ "$got1" = "$want1" ] && [ "$got4" = "$want4" ]; then
  pass "fairway report --clusters fwb on fwa: fwuser1 $got1 CPU-s (all on fwb), fwuser4 $got4 (on fwa), as sacct says"
else
  fail "fairway report --clusters fwb: fwuser1 $got1 (sacct $want1), fwuser4 $got4 (sacct $want4)"
fi

summary
