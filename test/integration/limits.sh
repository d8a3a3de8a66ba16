#!/bin/bash
# GrpTRESMins under both plugins: an association whose decayed CPU usage
# exceeds its GrpTRESMins limit has its next job held back
# (AssocGrpCPUMinutesLimit), and decay of that usage releases the job. Run
# once with priority/multifactor and once with priority/fairway on fresh
# clusters; both must show the same sequence, and the same usage to within
# the timing of one decay pass.
set -u
. "$(dirname "$0")/lib.sh"

dir=$(mktemp -d /tmp/fairway-limits.XXXXXX)
chmod 755 "$dir"
trap 'for p in multifactor fairway; do stop_cluster "$dir/$p"; done; rm -rf "$FW_PLUGIN_DIR"' EXIT
prepare_plugin_dir || exit 1

# One-minute half-life and passes: usage halves each minute.
cat > "$dir/limits.conf" <<CONF
PriorityDecayHalfLife=1
PriorityCalcPeriod=1
CONF

declare -A held released usage_after
for plugin in multifactor fairway; do
  mkdir -p "$dir/$plugin"
  log "limits scenario with priority/$plugin"
  start_cluster "$dir/$plugin" "priority/$plugin" "$dir/limits.conf" \
    || { fail "$plugin: cluster start"; continue; }
  "$FW_CLUSTER" users 6 >/dev/null 2>&1
  sacctmgr -i add account lim fairshare=1 grptresmins=cpu=1 >/dev/null
  sacctmgr -i add user fwuser6 account=lim >/dev/null
  # 2 CPUs x 60 s = 120 CPU-seconds, decayed while it runs to about 85:
  # over the 60 CPU-seconds limit.
  submit_as fwuser6 -A lim -n2 -t 2 --wrap 'sleep 60' >/dev/null
  wait_jobs_done 120
  sleep 1
  usage_after[$plugin]=$(sshare -n -P -A lim -u fwuser6 -o user,grptresraw \
    | awk -F'|' '$1=="fwuser6"{print $2}' | grep -oE 'cpu=[0-9]+' | cut -d= -f2)
  second=$(submit_as fwuser6 -A lim -n1 -t 1 --wrap 'sleep 1')
  # The scheduler sees the limit at once.
  held[$plugin]=no
  for _ in $(seq 1 20); do
    reason=$(squeue -h -j "$second" -o %r 2>/dev/null)
    if [ "$reason" = AssocGrpCPUMinutesLimit ]; then held[$plugin]=yes; break; fi
    sleep 1
  done
  # Decay must release it within a few passes.
  released[$plugin]=no
  limit=$((SECONDS + 300))
  while [ $SECONDS -lt $limit ]; do
    state=$(sacct -n -X -j "$second" -o state | head -1 | tr -d ' ')
    case "$state" in COMPLETED|RUNNING) released[$plugin]=yes; break ;; esac
    sleep 3
  done
  log "$plugin: usage after first job cpu=${usage_after[$plugin]} min, held=${held[$plugin]}, released=${released[$plugin]}"
  stop_cluster "$dir/$plugin"
done

for plugin in multifactor fairway; do
  [ "${held[$plugin]:-no}" = yes ] && pass "$plugin: job held by AssocGrpCPUMinutesLimit" \
    || fail "$plugin: job not held by AssocGrpCPUMinutesLimit"
  [ "${released[$plugin]:-no}" = yes ] && pass "$plugin: decay released the held job" \
    || fail "$plugin: decay did not release the held job"
done
m=${usage_after[multifactor]:-x} f=${usage_after[fairway]:-y}
# GrpTRESRaw (whole minutes) after the first job: the same under both.
if [ "$m" = "$f" ]; then
  pass "GrpTRESRaw cpu after the first job equal ($m min)"
else
  fail "GrpTRESRaw cpu after the first job: multifactor $m, fairway $f"
fi
summary
