#!/bin/bash
# Two clusters on one slurmdbd (issue 49, item 5): scripts/cluster start
# --join starts cluster fwb on cluster fwa's munged, MariaDB and slurmdbd.
# Not in scenarios.list: it tests the harness the plugin's global-fairshare
# scenarios will use; run it alone (as root):
#   FAIRWAY_PORT_BASE=19817 FW_SECOND_PORT_BASE=19917 test/integration/two_clusters.sh
# (FW_SLURM=RELEASE: both clusters on that release; FW_IT_PRIORITY_TYPE:
# priority/multifactor, the default, or priority/fairway, the built plugin.)
# Checks:
# - a joined cluster with another release or the same ClusterName is refused;
# - fwb runs on its own ClusterName, ports and node, with fwa's slurmdbd;
# - create_example_tree fwa,fwb gives both clusters the same association tree;
# - a job on each cluster, as a test user, runs and is in sacct under its own
#   cluster alone (sacct -M fwa / -M fwb), and both clusters' job tables are
#   in MariaDB with one job each;
# - sshare on each cluster lists the tree;
# - stopping fwb leaves fwa working (a job runs, status all up), and fwb
#   started again keeps its state; stopping fwa stops fwb first.
# Cluster names fwa/fwb, not a/b: the tree has accounts a..f.
set -u
. "$(dirname "$0")/lib.sh"

type=${FW_IT_PRIORITY_TYPE:-priority/multifactor}
dir=$(mktemp -d "${FW_TWO_CLUSTERS_TMP:-/tmp}/fairway-two.XXXXXX")
chmod 755 "$dir"
# fwb first: the normal order (stop_cluster of fwa would stop it anyway).
trap 'stop_cluster "$dir/b"; stop_cluster "$dir/a"; [ -z "$FW_PLUGIN_DIR" ] || rm -rf "$FW_PLUGIN_DIR"; [ -n "${FW_KEEP:-}" ] || rm -rf "$dir"' EXIT
if [ "$type" = priority/fairway ]; then prepare_plugin_dir || exit 1; fi

log "two clusters: fwa, then fwb joined to its slurmdbd ($type${FW_SLURM:+, Slurm $FW_SLURM})"
FAIRWAY_CLUSTER_NAME=fwa start_cluster "$dir/a" "$type" || { fail "cluster fwa start"; summary; exit 1; }

# Refusals come before anything starts.
other=26.05.3
[ "${FW_SLURM:-22.05.8}" != 26.05.3 ] || other=22.05.8
if "$FW_CLUSTER" start --dir "$dir/x" --join "$dir/a" --cluster-name fwx --slurm "$other" > /dev/null 2> "$dir/refuse.err"; then
  fail "a joined cluster on Slurm $other was not refused"
  stop_cluster "$dir/x"
elif grep -q 'same release' "$dir/refuse.err"; then
  pass "a joined cluster on another release ($other) is refused: $(sed 's/^cluster: error: //' "$dir/refuse.err" | cut -c1-100)..."
else
  fail "start --join --slurm $other failed, but not for the release: $(cat "$dir/refuse.err")"
fi
if "$FW_CLUSTER" start --dir "$dir/x" --join "$dir/a" --cluster-name fwa > /dev/null 2> "$dir/refuse.err"; then
  fail "a joined cluster named as the first was not refused"
  stop_cluster "$dir/x"
elif grep -q 'named fwa too' "$dir/refuse.err"; then
  pass "a joined cluster with the first one's ClusterName is refused"
else
  fail "start --join --cluster-name fwa failed, but not for the name: $(cat "$dir/refuse.err")"
fi

if start_second_cluster "$dir/a" "$dir/b" "$type" fwb 2> "$dir/b.start.err"; then
  pass "cluster fwb started, joined to fwa ($(grep -o 'up in .*' "$dir/b.start.err"))"
else
  fail "cluster fwb start"
  tail -20 "$dir/b.start.err"
  summary
  exit 1
fi

conf_a=$dir/a/etc/slurm.conf conf_b=$dir/b/etc/slurm.conf
key() { sed -n "s/^$2=//Ip" "$1" | tail -n1; }
clusters=$(sacctmgr -n -P show cluster format=cluster | sort | tr '\n' ' ')
node_a=$(node_name) node_b=$(with_cluster "$dir/b" node_name)
if [ "$(key "$conf_b" ClusterName)" = fwb ] && [ "$clusters" = "fwa fwb " ] &&
  [ "$(key "$conf_b" AccountingStoragePort)" = "$(key "$conf_a" AccountingStoragePort)" ] &&
  [ "$(key "$conf_b" SlurmctldPort)" != "$(key "$conf_a" SlurmctldPort)" ] &&
  [ "$(key "$conf_b" SlurmdPort)" != "$(key "$conf_a" SlurmdPort)" ] &&
  [ -n "$node_b" ] && [ "$node_a" != "$node_b" ] && [ ! -e "$dir/b/run/slurmdbd.pid" ]; then
  pass "fwb: ClusterName fwb, ports $(key "$conf_b" SlurmctldPort)/$(key "$conf_b" SlurmdPort), node $node_b, fwa's slurmdbd (port $(key "$conf_b" AccountingStoragePort)); the DB knows: $clusters"
else
  fail "fwb's configuration: clusters '$clusters', nodes $node_a/$node_b"
  grep -iE '^(ClusterName|Slurm(ctld|d)Port|AccountingStorage(Port|Pass)|AuthInfo)=' "$conf_a" "$conf_b"
fi

log "the example tree on both clusters"
create_example_tree fwa,fwb
assoc_tree fwa > "$dir/tree.fwa"
assoc_tree fwb > "$dir/tree.fwb"
if [ "$(grep -c fwuser "$dir/tree.fwa")" = 5 ] && [ "$(wc -l < "$dir/tree.fwa")" -ge 13 ] &&
  diff -u "$dir/tree.fwa" "$dir/tree.fwb" > "$dir/tree.diff"; then
  pass "create_example_tree fwa,fwb: the same tree on both ($(wc -l < "$dir/tree.fwa") associations each)"
else
  fail "the trees of fwa and fwb differ or are incomplete"
  head -30 "$dir/tree.diff" "$dir/tree.fwa"
fi

# wait_completed CLUSTER JOB: until sacct -M CLUSTER (no -j) lists JOB as
# COMPLETED. wait_accounting_done alone passes while slurmdbd has no record
# of the job yet; and for a second or so after the job's end, sacct -j
# showed it COMPLETED with Eligible=Unknown while sacct without -j (a time
# window, which needs the eligible time) did not list it at all (22.05.8).
wait_completed() {
  local limit=$((SECONDS + 60))
  until sacct -M "$1" -X -n -P -o jobid,state 2>/dev/null | grep -qx "$2|COMPLETED"; do
    [ $SECONDS -gt $limit ] && return 1
    sleep 0.5
  done
}

log "one job on each cluster"
job_a=$(submit_as fwuser1 -n1 --wrap 'sleep 1')
job_b=$(with_cluster "$dir/b" submit_as fwuser4 -n1 --wrap 'sleep 1')
{ wait_jobs_done 120 && with_cluster "$dir/b" wait_jobs_done 120 &&
  wait_completed fwa "$job_a" && wait_completed fwb "$job_b"; } ||
  fail "the jobs did not finish (or are not COMPLETED in sacct)"
# -M CLUSTER from fwa's slurm.conf: slurmdbd answers for any cluster.
sacct -M fwa -X -n -P -o jobid,cluster,user,account,state,nodelist > "$dir/sacct.fwa"
sacct -M fwb -X -n -P -o jobid,cluster,user,account,state,nodelist > "$dir/sacct.fwb"
if [ "$(cat "$dir/sacct.fwa")" = "$job_a|fwa|fwuser1|b|COMPLETED|$node_a" ]; then
  pass "sacct -M fwa: fwa's job alone ($(cat "$dir/sacct.fwa"))"
else
  fail "sacct -M fwa: expected job $job_a of fwuser1 on $node_a only; got: $(tr '\n' ' ' < "$dir/sacct.fwa")"
fi
if [ "$(cat "$dir/sacct.fwb")" = "$job_b|fwb|fwuser4|e|COMPLETED|$node_b" ]; then
  pass "sacct -M fwb: fwb's job alone ($(cat "$dir/sacct.fwb"))"
else
  fail "sacct -M fwb: expected job $job_b of fwuser4 on $node_b only; got: $(tr '\n' ' ' < "$dir/sacct.fwb")"
fi

# The DB itself: one job table per cluster (fwa's MariaDB, root by socket).
db() {
  local client
  client=$(command -v mariadb || command -v mysql)
  "$client" --no-defaults --socket="$dir/a/run/mysql.sock" -u root -N -B slurm_acct_db -e "$1"
}
tables=$(db "show tables like '%job_table'" 2>&1 | sort | tr '\n' ' ')
counts=$(db "select (select count(*) from fwa_job_table), (select count(*) from fwb_job_table)" 2>&1 | tr '\t' ' ')
if [ "$tables" = "fwa_job_table fwb_job_table " ] && [ "$counts" = "1 1" ]; then
  pass "MariaDB: fwa_job_table and fwb_job_table, one job each"
else
  fail "MariaDB: tables '$tables', job counts '$counts' (expected fwa_job_table fwb_job_table, 1 1)"
fi

# sshare asks each cluster's slurmctld, which got the tree from slurmdbd.
for c in a b; do
  with_cluster "$dir/$c" sshare -a -n -P -o account,user > "$dir/sshare.$c"
  n_acc=$(awk -F'|' '$2 == "" && $1 ~ /^ *[a-f]$/' "$dir/sshare.$c" | wc -l)
  n_usr=$(grep -c '|fwuser[1-5]$' "$dir/sshare.$c")
  if [ "$n_acc" = 6 ] && [ "$n_usr" = 5 ]; then
    pass "sshare on fw$c: the tree's 6 accounts and 5 users"
  else
    fail "sshare on fw$c: $n_acc of 6 accounts, $n_usr of 5 users"
    head -20 "$dir/sshare.$c"
  fi
done

log "stopping fwb; fwa keeps working"
ctld_b=$(ctld_pid "$dir/b")
"$FW_CLUSTER" stop --dir "$dir/b" 2> "$dir/b.stop.err" || fail "stop --dir fwb failed"
if [ -n "$ctld_b" ] && ! ctld_alive "$ctld_b" && grep -q 'stopping slurmctld' "$dir/b.stop.err" &&
  ! grep -qE 'stopping (munged|mariadbd|slurmdbd)' "$dir/b.stop.err"; then
  pass "stop --dir fwb stopped its slurmctld and slurmd alone"
else
  fail "stop --dir fwb: $(tr '\n' ' ' < "$dir/b.stop.err")"
fi
job_a2=$(submit_as fwuser2 -n1 --wrap 'sleep 1')
{ wait_jobs_done 120 && wait_completed fwa "$job_a2"; } || fail "fwa's job after fwb's stop did not finish"
state=$(sacct -M fwa -X -n -P -j "$job_a2" -o state 2>&1)
if [ "$state" = COMPLETED ] && "$FW_CLUSTER" status --dir "$dir/a" > "$dir/a.status" 2>&1; then
  pass "fwa after fwb's stop: all daemons up, job $job_a2 COMPLETED"
else
  fail "fwa after fwb's stop: job $job_a2 '$state'; $(grep -v running "$dir/a.status" | head -3 | tr '\n' ' ')"
fi

log "fwb again, then stopping fwa stops fwb first"
start_second_cluster "$dir/a" "$dir/b" "$type" fwb 2> "$dir/b.start2.err" || fail "fwb's second start"
job_b2=$(with_cluster "$dir/b" submit_as fwuser5 -n1 --wrap 'true')
{ with_cluster "$dir/b" wait_jobs_done 120 && wait_completed fwb "$job_b2"; } ||
  fail "fwb's job after its restart did not finish"
if [ "$job_b2" -gt "$job_b" ] && [ "$(sacct -M fwb -X -n -P -o jobid | wc -l)" = 2 ]; then
  pass "fwb restarted on its state: job $job_b2 after $job_b, both in sacct -M fwb"
else
  fail "fwb after restart: job $job_b2 (first $job_b); sacct -M fwb: $(sacct -M fwb -X -n -P -o jobid,state | tr '\n' ' ')"
fi
ctld_b=$(ctld_pid "$dir/b")
"$FW_CLUSTER" stop --dir "$dir/a" 2> "$dir/a.stop.err" || fail "stop --dir fwa failed"
if ! ctld_alive "$ctld_b" && grep -q 'stopping the cluster fwb' "$dir/a.stop.err" &&
  ! "$FW_CLUSTER" status --dir "$dir/b" > /dev/null 2>&1; then
  pass "stop --dir fwa stopped fwb first, then fwa"
else
  fail "stop --dir fwa with fwb running: $(head -3 "$dir/a.stop.err" | tr '\n' ' ')"
fi

summary
