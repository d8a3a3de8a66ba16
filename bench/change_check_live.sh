#!/bin/bash
# The cost of one look for changes (issue 47; doc/architecture.md, "What
# triggers a pass") on a live slurmctld: the fingerprint of partitions,
# associations and QOS under their read locks, with N user associations
# (default 10,000) in 100 accounts. Reads the looks' count, mean and
# longest wall time that the plugin writes to fairway_pass_stats after a
# pass. As root:
#   FAIRWAY_PORT_BASE=51817 bench/change_check_live.sh [N]
set -u
. "$(dirname "$0")/../test/integration/lib.sh"

n=${1:-10000}
dir=$(mktemp -d /tmp/fairway-looks.XXXXXX)
chmod 755 "$dir"
trap 'stop_cluster "$dir/c"; rm -rf "$FW_PLUGIN_DIR"; [ -n "${FW_KEEP:-}" ] || rm -rf "$dir"' EXIT
prepare_plugin_dir || exit 1
start_cluster "$dir/c" priority/fairway || exit 1
state=$dir/c/state
log "adding $n user associations in 100 accounts"
accounts=$(seq -f 'la%g' 1 100 | paste -sd,)
sacctmgr -i add account "$accounts" fairshare=1 > /dev/null
per=$(((n + 99) / 100))
for a in $(seq 1 100); do
  users=$(seq -f "lu${a}_%g" 1 "$per" | paste -sd,)
  sacctmgr -i add user "$users" account="la$a" fairshare=1 > /dev/null || { echo "sacctmgr failed" >&2; exit 1; }
done
total=$(sacctmgr -n -P show assoc format=id | wc -l)
log "$total associations in slurmdbd; waiting for the plugin to have them, then for two timer passes"
# The first pass after the burst of additions is triggered by it; then
# looks run every change_check seconds with nothing to find until the
# timer (PriorityCalcPeriod=1) passes.
for i in 1 2; do
  since=$(date +%s)
  until grep -q '^trigger=timer$' "$state/fairway_pass_stats" 2> /dev/null &&
    [ "$(sed -n 's/^pass_start=//p' "$state/fairway_pass_stats")" -ge "$since" ]; do
    sleep 1
  done
done
grep -E '^(trigger|change_check|duration_ms|jobs_computed)' "$state/fairway_pass_stats"
