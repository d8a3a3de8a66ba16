#!/bin/bash
# Reliability 4: bad configuration. For every Priority* setting (and
# FairShareDampeningFactor) and every PriorityParameters key: malformed,
# negative, huge, empty, very long and non-ASCII values. Each is put into
# slurm.conf and slurmctld (priority/fairway) is started with it:
# - values Fairway parses itself (PriorityParameters, FairShareDampeningFactor
#   0, PriorityWeightTRES): the controller is up and a "priority/fairway:"
#   error line names the key and the value (or what is used instead);
# - values Slurm's own parser sees first: if Slurm refuses to start, the same
#   value is tried under priority/multifactor, which must refuse it too
#   (identical behaviour is the requirement); if Slurm accepts it, the
#   controller must be up and answer sprio/sshare.
set -u
. "$(dirname "$0")/lib.sh"

dir=$(mktemp -d /tmp/fairway-config.XXXXXX)
chmod 755 "$dir"
c=$dir/c
trap 'stop_ctld "$c"; stop_cluster "$c"; rm -rf "$FW_PLUGIN_DIR"; [ -n "${FW_KEEP:-}" ] || rm -rf "$dir"' EXIT
prepare_plugin_dir || exit 1
mkdir -p "$c"
conf=$c/etc/slurm.conf

# try_start TYPE KEY VALUE: slurmctld with KEY=VALUE on the base conf.
# Echoes "up" (answers scontrol ping within 60 s, as scripts/cluster waits
# for a start) or "down" (exited, or never answered); leaves it running. A
# start that is merely slow (other clusters busy on the same cores) is not a
# refusal: the wait ends early when the process exits.
try_start() {
  local type=$1 key=$2 value=$3 pid
  stop_ctld "$c"
  cp "$dir/slurm.conf.base" "$conf"
  sed -i "s|^PriorityType=.*|PriorityType=$type|" "$conf"
  printf '%s=%s\n' "$key" "$value" > "$dir/case.conf"
  merge_conf "$c" "$dir/case.conf"
  rm -f "$c/run/slurmctld.pid"
  # slurmctld reads slurm.conf before it daemonises: a refused value makes
  # the command itself fail.
  slurmctld </dev/null >>"$c/log/slurmctld.out" 2>&1 || { echo down; return; }
  for i in $(seq 300); do
    pid=$(ctld_pid "$c")
    if [ -n "$pid" ] && timeout 5 scontrol ping 2>/dev/null | grep -q UP; then echo up; return; fi
    if [ -n "$pid" ] && ! ctld_alive "$pid"; then echo down; return; fi
    if [ -z "$pid" ] && [ "$i" -gt 50 ]; then echo down; return; fi
    sleep 0.2
  done
  echo down
}
new_log() { tail -c +$(($1 + 1)) "$c/log/slurmctld.log"; }

long=$(head -c 6000 /dev/zero | tr '\0' 'x')
nonascii='Ünïcødé✓'
log "starting cluster"
start_cluster "$c" priority/fairway || { fail "cluster start"; summary; exit 1; }
cp "$conf" "$dir/slurm.conf.base"
"$FW_CLUSTER" users 1 >/dev/null 2>&1
sacctmgr -i add account cfg fairshare=1 >/dev/null
sacctmgr -i add user fwuser1 account=cfg >/dev/null
drain_node
submit_as fwuser1 -A cfg -n1 --wrap 'sleep 1' >/dev/null

# case KIND KEY VALUE [EXPECT_REGEX]
#  KIND fairway: Fairway must stay up and log an error matching EXPECT
#  KIND slurm:   Slurm parses it: up (and then EXPECT if given) or down as
#                multifactor is
check_case() {
  local kind=$1 key=$2 value=$3 expect=${4:-} before state mf lines shown
  shown=$value
  [ ${#shown} -gt 40 ] && shown="${shown:0:20}...(${#value} chars)"
  before=$(stat -c %s "$c/log/slurmctld.log")
  before_out=$(stat -c %s "$c/log/slurmctld.out" 2>/dev/null || echo 0)
  state=$(try_start priority/fairway "$key" "$value")
  lines=$(new_log "$before" | grep -F 'priority/fairway:' | grep -E 'error:' | sed 's/^\[[^]]*\] //' || true)
  if [ "$state" = up ]; then
    if ! timeout 20 sprio -h >/dev/null 2>&1 || ! timeout 20 sshare -a >/dev/null 2>&1; then
      fail "$key=$shown: controller up but sprio/sshare fail"
      return
    fi
    if [ -n "$expect" ]; then
      if printf '%s\n' "$lines" | grep -qE -- "$expect"; then
        pass "$key=$shown: up; logged: $(printf '%s\n' "$lines" | grep -E -- "$expect" | head -1 | cut -c1-220)"
      else
        fail "$key=$shown: up, but no priority/fairway error matching '$expect'"
        new_log "$before" | grep -iE 'error|fairway' | head -5
      fi
    else
      pass "$key=$shown: up (Slurm accepted it)${lines:+; fairway logged: $(printf '%s' "$lines" | head -1 | cut -c1-200)}"
    fi
    return
  fi
  local why
  why=$({ new_log "$before"; tail -c +$((before_out + 1)) "$c/log/slurmctld.out"; } | grep -E 'error:|fatal:' | grep -v 'priority/fairway' | head -2 | sed 's/^\[[^]]*\] //' | tr '\n' ' ' | cut -c1-200)
  if [ "$kind" = fairway ]; then
    fail "$key=$shown: controller did not start under priority/fairway"
    new_log "$before" | tail -5
    return
  fi
  before=$(stat -c %s "$c/log/slurmctld.log")
  mf=$(try_start priority/multifactor "$key" "$value")
  if [ "$mf" = down ]; then
    pass "$key=$shown: refused by Slurm's parser, as under multifactor ($why)"
  else
    fail "$key=$shown: priority/fairway refuses to start but priority/multifactor starts"
    echo "  fairway: $why"
  fi
}

log "PriorityParameters keys (parsed by Fairway)"
P=PriorityParameters
check_case fairway $P "fairshare=bogus" "bad value 'bogus' for key 'fairshare'"
check_case fairway $P "fairshare=" "bad value '' for key 'fairshare'"
check_case fairway $P "fairshare=$nonascii" "bad value '$nonascii' for key 'fairshare'"
# A very long value must not push the key and the fallback out of the line.
check_case fairway $P "fairshare=$long" "for key 'fairshare'.*using"
check_case fairway $P "planned_use_interval=-5" "bad value '-5' for key 'planned_use_interval'"
check_case fairway $P "planned_use_interval=0" "bad value '0' for key 'planned_use_interval'"
check_case fairway $P "planned_use_interval=99999999999999999999999" "for key 'planned_use_interval'"
check_case fairway $P "planned_use_interval=abc" "bad value 'abc' for key 'planned_use_interval'"
check_case fairway $P "planned_use_interval=" "bad value '' for key 'planned_use_interval'"
check_case fairway $P "planned_use_capacity=-1" "bad value '-1' for key 'planned_use_capacity'"
check_case fairway $P "planned_use_capacity=1e999" "bad value '1e999' for key 'planned_use_capacity'"
check_case fairway $P "planned_use_capacity=nan" "bad value 'nan' for key 'planned_use_capacity'"
check_case fairway $P "planned_use_capacity=inf" "bad value 'inf' for key 'planned_use_capacity'"
check_case fairway $P "planned_use_capacity=12abc" "bad value '12abc' for key 'planned_use_capacity'"
check_case fairway $P "planned_use_charge=later" "bad value 'later' for key 'planned_use_charge'"
check_case fairway $P "planned_use_charge=$nonascii" "for key 'planned_use_charge'"
check_case fairway $P "färshare=classic" "unknown key 'färshare'"
check_case fairway $P "fairshare" "'fairshare' is not of the form key=value"
check_case fairway $P "=ranged" "is not of the form key=value|unknown key ''"
check_case slurm $P ",,,fairshare=ranged,,,"
check_case fairway $P "%s%s%n%n=%x%x" "unknown key '%s%s%n%n'"
check_case fairway $P "$long=1" "unknown key 'x+.*ignored"

log "Priority* settings and FairShareDampeningFactor"
check_case fairway FairShareDampeningFactor 0 "FairShareDampeningFactor: 0 would divide by zero \(using 1\)"
check_case slurm FairShareDampeningFactor 70000
check_case slurm FairShareDampeningFactor -1
check_case fairway PriorityWeightTRES "bogus/tres=5" "PriorityWeightTRES"
check_case fairway PriorityWeightTRES "cpu=abc" "PriorityWeightTRES"
check_case slurm PriorityWeightTRES "cpu=-1"
check_case fairway PriorityWeightTRES "$nonascii=1" "PriorityWeightTRES"
check_case fairway PriorityWeightTRES "$long" "PriorityWeightTRES"
check_case slurm PriorityWeightTRES ""
for w in Age Assoc Fairshare JobSize Partition QOS; do
  check_case slurm PriorityWeight$w -1
  check_case slurm PriorityWeight$w abc
done
check_case slurm PriorityWeightAge 4294967295 "sum of the PriorityWeight\* values .* exceeds 2\^32 - 1"
check_case slurm PriorityWeightAge 99999999999999999999
check_case slurm PriorityWeightAge ""
check_case slurm PriorityWeightAge "$nonascii"
check_case slurm PriorityWeightAge "$long"
for v in -1 abc 99999999999 "" INFINITE "$nonascii"; do
  check_case slurm PriorityDecayHalfLife "$v"
done
for v in 0 -1 abc 99999999999 71582789 INFINITE ""; do
  check_case slurm PriorityCalcPeriod "$v"
done
for v in -1 abc 99999999999 ""; do check_case slurm PriorityMaxAge "$v"; done
for v in bogus "" "$nonascii" "$long"; do check_case slurm PriorityUsageResetPeriod "$v"; done
for v in BOGUS "" "DEPTH_OBLIVIOUS,NO_FAIR_TREE,,BOGUS" "$nonascii"; do check_case slurm PriorityFlags "$v"; done
for v in maybe "" "$nonascii"; do check_case slurm PriorityFavorSmall "$v"; done
check_case slurm PrioritySiteFactorParameters "$long$nonascii"
check_case slurm PrioritySiteFactorPlugin "site_factor/bogus"

# The controller with the last case is left running; back to the base conf.
state=$(try_start priority/fairway PriorityWeightAge 1000)
[ "$state" = up ] && pass "base configuration: controller up again" || fail "base configuration: controller down"
if grep -qiE 'segfault|core dumped|assert' "$c/log/slurmctld.log"; then
  fail "crash lines in slurmctld's log"; grep -iE 'segfault|core dumped|assert' "$c/log/slurmctld.log" | head
else
  pass "no crash line in slurmctld's log"
fi
summary
