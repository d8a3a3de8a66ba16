#!/bin/bash
# Decay-pass CPU of several plugin builds on one kept benchmark cluster
# (make bench with BENCH_KEEP=1 BENCH_DIR=DIR), interleaved so that each
# build meets the same machine: for each of ROUNDS rounds, slurmctld is
# restarted with every PLUGIN in turn, the pass that runs at the start is
# left out, and PASSES passes are measured with bench/live_probe.py (the
# decay thread's CPU) and, for Fairway, its own per-phase log line. Prints
# one line per round and plugin with RssAnon after the passes.
#
# Usage: bench/ab.sh DIR ROUNDS PASSES LABEL=PLUGIN...
#   PLUGIN: a priority_fairway.so to load, or "multifactor".
#   e.g.  bench/ab.sh /var/tmp/fwbench 2 3 new=.libs/priority_fairway.so \
#           old=/tmp/old/priority_fairway.so mf=multifactor
# As root, like make bench. The cluster keeps the last plugin loaded.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/test/integration/lib.sh"
# shellcheck source=bench_lib.sh
. "$TOP/bench/bench_lib.sh"
[ $# -ge 4 ] || { sed -n '2,15p' "$0" >&2; exit 2; }
DIR=$1 ROUNDS=$2 PASSES=$3
shift 3
export SLURM_CONF=$DIR/etc/slurm.conf
[ -d "$DIR/bin" ] && export PATH=$DIR/bin:$PATH
echo "memory: $(bench_memory)"
FW_PLUGIN_DIR=$(mktemp -d /tmp/fw-ab-plugin.XXXXXX)
chmod 755 "$FW_PLUGIN_DIR"
for ((r = 1; r <= ROUNDS; r++)); do
  for spec in "$@"; do
    label=${spec%%=*} so=${spec#*=}
    if [ "$so" = multifactor ]; then
      type=priority/multifactor comm=decay
    else
      type=priority/fairway comm=fw_decay
      cp "$so" "$FW_PLUGIN_DIR/priority_fairway.so"
    fi
    t0=$(date +%s)
    restart_ctld "$DIR" "$type" > /dev/null 2>&1 || { echo "round $r $label: restart failed"; continue; }
    for ((i = 0; i < 600; i++)); do
      [ "$(last_decay_ran "$DIR")" -ge "$t0" ] && break
      sleep 0.2
    done
    pid=$(ctld_pid "$DIR")
    job=$(squeue -h -t PD -o %i | head -1)
    scontrol setdebug verbose
    out=$(python3 "$TOP/bench/live_probe.py" --pid "$pid" --comm "$comm" --state-dir "$DIR/state" \
      --job "$job" --passes "$PASSES" --timeout $((PASSES * 60 + 120)) 2>&1)
    sleep 1  # Fairway logs its phases just after the pass's state write
    scontrol setdebug info
    cpu=$(echo "$out" | grep -E '^pass_cpu' | tr '\n' ' ')
    phases=""
    [ "$comm" = fw_decay ] && phases=$(grep 'decay pass CPU' "$DIR/log/slurmctld.log" |
      tail -n "$PASSES" | sed 's/.*decay pass CPU //' | tr '\n' '|')
    anon=$(awk '/^RssAnon/ {print $2}' "/proc/$pid/status")
    echo "round $r $label: anon_kb=$anon $cpu$phases"
  done
done
echo "memory: $(bench_memory)"
rm -rf "$FW_PLUGIN_DIR"
