#!/bin/bash
# Fairway live on other Slurm releases, each against that release's own
# multifactor: for every RELEASE given (default 24.11.5 26.05.3), the
# scenarios below with FW_SLURM=RELEASE, all at the same time, each lane on
# its own ports (FAIRWAY_PORT_BASE + 1000 x lane, as run-all.sh):
#   1. the smoke scenario with priority/fairway (releases_smoke.sh), then
#      parity.sh (sprio/sshare/scontrol/squeue identical to multifactor,
#      `fairway explain job` of every pending job);
#   2. limits.sh (GrpTRESMins, GrpTRESRunMins and, 24.05+, QOS
#      MaxTRESRunMinsPerUser, under both plugins), then
#      reliability_privacy.sh (sprio, sshare, `fairway explain` run by
#      plain users, under both plugins), then freshness.sh (seconds from
#      each kind of change to the new priority in sprio and squeue, both
#      plugins; about 4 minutes);
#   3. modes.sh (ranged and planned use, `fairway explain`, restart),
#      then, on 26.05.3 only, reliability_reconnect.sh (slurmdbd back
#      while slurmctld runs from its cache, the plugin built with ASan:
#      about 2.5 minutes);
#   4. reliability_crash.sh with FW_CRASH_ITERATIONS=2 and
#      FW_CRASH_PLANNED_ITERATIONS=1 (slurmctld killed and restarted
#      with a job running; a subset of the host's 3 + 2), then
#      global_fairshare.sh (a second cluster of the same release joined to
#      the first one's slurmdbd, fairshare_clusters; about 4 minutes).
# Lanes 3 and 4 were the two shortest (about 250 and 135 s); with these
# additions every lane takes 6 to 8 minutes, so the run's wall time, its
# longest lane's, grows by a minute at most. Lane 2 was then the shortest
# (about 225 s); with freshness it took 338 to 396 s in the runs of
# 2026-11-27, under the longest lane (parity, about 440 s).
# The plugin for RELEASE is $FAIRWAY_RELEASE_PLUGINS/RELEASE/
# priority_fairway.so (test/compile_matrix.sh with FAIRWAY_COMPILE_KEEP);
# the fairway tool for it is linked first (test/release_tool.sh, FW_TOOL);
# the release must be runnable (scripts/slurm-release RELEASE). Prints each
# lane's log and wall time; ends with "N passed, M failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
plugins=${FAIRWAY_RELEASE_PLUGINS:-/var/tmp/fairway-release-plugins}
releases=${*:-24.11.5 26.05.3}
base=${FAIRWAY_PORT_BASE:-16817}
logs=$(mktemp -d /tmp/fairway-releases-live.XXXXXX)
chmod 755 "$logs"
lanes=("releases_smoke parity" "limits reliability_privacy freshness" "modes reliability_reconnect" "reliability_crash global_fairshare")
t0=$SECONDS

# lane RELEASE SCENARIO...: the scenarios one after another.
lane() {
  local r=$1 s; shift
  for s in "$@"; do
    case $s in
      releases_smoke) FW_IT_RELEASES=$r FW_IT_PRIORITY_TYPE=priority/fairway "$here/releases_smoke.sh" ;;
      reliability_crash) FW_SLURM=$r FW_CRASH_ITERATIONS=2 FW_CRASH_PLANNED_ITERATIONS=1 "$here/$s.sh" ;;
      # Its own plugin (test/asan_plugin.sh), not FW_PLUGIN_SO.
      reliability_reconnect) [ "$r" != 26.05.3 ] || FW_SLURM=$r "$here/$s.sh" ;;
      *) FW_SLURM=$r "$here/$s.sh" ;;
    esac
  done
}

k=0
pids=()
for r in $releases; do
  so=$plugins/$r/priority_fairway.so
  if [ ! -f "$so" ]; then echo "FAIL: $r: no plugin built for it at $so" > "$logs/$r.0.log"; continue; fi
  if ! tool=$(cd "$top" && test/release_tool.sh "$r" "$logs/tool-$r" 2> "$logs/tool-$r.err"); then
    { echo "FAIL: $r: the fairway tool could not be linked with its libslurm:"; cat "$logs/tool-$r.err"; } > "$logs/$r.0.log"
    continue
  fi
  for i in "${!lanes[@]}"; do
    k=$((k + 1))
    (
      export FAIRWAY_PORT_BASE=$((base + 1000 * k)) FW_PLUGIN_SO=$so FW_TOOL=$tool
      s0=$SECONDS
      # shellcheck disable=SC2086  # the lane's scenario names
      lane "$r" ${lanes[i]}
      echo "(lane ${lanes[i]}: $((SECONDS - s0)) s)"
    ) > "$logs/$r.$((i + 1)).log" 2>&1 &
    pids+=($!)
  done
done
for p in "${pids[@]}"; do wait "$p"; done
passed=0 failed=0
for r in $releases; do
  echo "--- Slurm $r"
  for f in "$logs/$r".*.log; do
    [ -f "$f" ] || continue
    cat "$f"
    p=$(grep -c '^PASS:' "$f"); n=$(grep -c '^FAIL:' "$f")
    passed=$((passed + p)); failed=$((failed + n))
  done
done
rm -rf "$logs"
echo "(releases_live: $((SECONDS - t0)) s)"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
