#!/bin/bash
# Fairway live on other Slurm releases, each against that release's own
# multifactor: for every RELEASE given (default 24.11.5 26.05.3), at the
# same time (one lane each, own ports), the smoke scenario with
# priority/fairway (releases_smoke.sh) and then the parity scenario
# (parity.sh with FW_SLURM). The plugin for RELEASE is
# $FAIRWAY_RELEASE_PLUGINS/RELEASE/priority_fairway.so (test/compile_matrix.sh
# with FAIRWAY_COMPILE_KEEP builds them); the release must be runnable
# (scripts/slurm-release RELEASE). Ends with "N passed, M failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
plugins=${FAIRWAY_RELEASE_PLUGINS:-/var/tmp/fairway-release-plugins}
releases=${*:-24.11.5 26.05.3}
base=${FAIRWAY_PORT_BASE:-16817}
logs=$(mktemp -d /tmp/fairway-releases-live.XXXXXX)
lane=0
pids=()
for r in $releases; do
  lane=$((lane + 1))
  so=$plugins/$r/priority_fairway.so
  (
    export FAIRWAY_PORT_BASE=$((base + 1000 * lane)) FW_PLUGIN_SO=$so
    [ -f "$so" ] || { echo "FAIL: $r: no plugin built for it at $so"; exit 1; }
    FW_IT_RELEASES=$r FW_IT_PRIORITY_TYPE=priority/fairway "$here/releases_smoke.sh"
    FW_SLURM=$r "$here/parity.sh"
  ) > "$logs/$r.log" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
passed=0 failed=0
for r in $releases; do
  echo "--- Slurm $r"
  cat "$logs/$r.log"
  p=$(grep -c '^PASS:' "$logs/$r.log"); f=$(grep -c '^FAIL:' "$logs/$r.log")
  passed=$((passed + p)); failed=$((failed + f))
done
rm -rf "$logs"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
