#!/bin/bash
# check-config tells the truth: for each bad (or surprising) priority setting,
# `fairway check-config --json` claims whether slurmctld starts under
# priority/multifactor and under priority/fairway, what slurmctld then holds
# (PriorityMaxAge, PriorityDecayHalfLife, PriorityCalcPeriod and the weights,
# as `scontrol show config` prints them) and whether Fairway's TRES factors
# are on or off. This script starts the real controller of each plugin on the
# same configuration and compares every claim with what it does.
#
# Cheap by design: one cluster (slurmdbd, slurmd) is started once; per case
# only slurmctld is started with the case's slurm.conf, and every wait ends
# on its condition (answers `scontrol ping`, or its process is gone).
set -u
. "$(dirname "$0")/lib.sh"

FAIRWAY=${FAIRWAY:-$FW_TOP/fairway}
dir=$(mktemp -d /tmp/fairway-truth.XXXXXX)
chmod 755 "$dir"
c=$dir/c
trap 'stop_ctld "$c"; stop_cluster "$c"; rm -rf "$FW_PLUGIN_DIR"; [ -n "${FW_KEEP:-}" ] || rm -rf "$dir"' EXIT
prepare_plugin_dir || exit 1
[ -x "$FAIRWAY" ] || { echo "check_config_truth.sh: $FAIRWAY not built" >&2; exit 1; }
mkdir -p "$c"
conf=$c/etc/slurm.conf
t_start=$SECONDS


# start_ctld: slurmctld on $conf as it stands. Echoes "up" (answers ping)
# or "down" (refused: exited before or after daemonising). Leaves it running.
start_ctld() {
  local pid i
  stop_ctld "$c"
  rm -f "$c/run/slurmctld.pid"
  # A value slurm.conf's reader rejects fails the command itself, before
  # slurmctld daemonises; a plugin's fatal() ends the daemon later.
  slurmctld </dev/null >>"$c/log/slurmctld.out" 2>&1 || { echo down; return; }
  for i in $(seq 300); do
    pid=$(ctld_pid "$c")
    if [ -n "$pid" ] && ! ctld_alive "$pid"; then echo down; return; fi
    if [ -z "$pid" ] && [ "$i" -gt 50 ]; then echo down; return; fi
    if [ -n "$pid" ] && timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP'; then echo up; return; fi
    sleep 0.1
  done
  echo down
}

# Debian's python3 (scripts/install-deps), not a version manager's shim,
# which costs a second per call.
PYTHON=$(command -v /usr/bin/python3 || command -v python3)

# read_claims TYPE: check-config's claims in $dir/claims.json, read once:
# sets want (up/down), tres (on/off/none), mode and summary, and writes
# $dir/claims.config (KEY<TAB>VALUE as scontrol show config should print
# it) and $dir/claims.logs (each line Fairway is claimed to log, up to "...").
read_claims() {
  eval "$("$PYTHON" - "$dir" "$1" <<'PY'
import json, re, shlex, sys
d, plugin = sys.argv[1], sys.argv[2]
j = json.load(open(f"{d}/claims.json"))
c = j["controllers"]
shown = c["scontrol_show_config"]
with open(f"{d}/claims.config", "w") as f:
    for k, v in shown.items():
        f.write(f"{k}\t{v}\n")
with open(f"{d}/claims.logs", "w") as f:
    for finding in j["findings"]:
        for said in re.findall(r'logs "([^"]*)', finding.get("priority/fairway", {}).get("does", "")):
            f.write(said.split(" ...")[0] + "\n")
fw = c["priority/fairway"]
summary = (f"MaxAge {shown['PriorityMaxAge']}, HalfLife {shown['PriorityDecayHalfLife']}, "
           f"CalcPeriod {shown['PriorityCalcPeriod']}, QOS weight {shown['PriorityWeightQOS']}, "
           f"PriorityFlags '{shown['PriorityFlags']}'")
for name, value in (("want", "up" if c[plugin]["starts"] else "down"),
                    ("tres", fw["tres_factors"]), ("mode", fw["mode"]), ("summary", summary)):
    print(f"{name}={shlex.quote(value)}")
PY
)"
}

# The value of KEY in `scontrol show config` as saved in $dir/config
# (keys compared without case: Slurm prints PriorityWeightFairShare).
shown() { awk -v k="$1" 'tolower($1) == tolower(k) { sub(/^[^=]*= */, ""); print; exit }' "$dir/config"; }

log "starting cluster"
start_cluster "$c" priority/fairway || { fail "cluster start"; summary; exit 1; }
cp "$conf" "$dir/slurm.conf.base"
stop_ctld "$c"

# check_case NAME LINE...: each LINE is KEY=VALUE (replaces KEY) or -KEY
# (removes it). Compares check-config's claims with both controllers.
check_case() {
  local name=$1 type want got key value before lines t0=$SECONDS tres mode summary
  shift
  cp "$dir/slurm.conf.base" "$dir/case.conf"
  for line in "$@"; do
    key=${line%%=*}
    key=${key#-}
    sed -i "/^${key}=/Id" "$dir/case.conf"
    [ "${line:0:1}" = - ] || printf '%s\n' "$line" >> "$dir/case.conf"
  done
  for type in priority/multifactor priority/fairway; do
    sed -i "s|^PriorityType=.*|PriorityType=$type|" "$dir/case.conf"
    "$FAIRWAY" check-config --json "$dir/case.conf" > "$dir/claims.json"
    read_claims "$type"
    cp "$dir/case.conf" "$conf"
    before=$(stat -c %s "$c/log/slurmctld.log" 2>/dev/null || echo 0)
    got=$(start_ctld)
    if [ "$got" != "$want" ]; then
      fail "$name, $type: check-config says $want, the controller is $got"
      tail -c +$((before + 1)) "$c/log/slurmctld.log" | grep -E 'error|fatal' | head -3
      tail -3 "$c/log/slurmctld.out"
      continue
    fi
    local checked="controller $got"
    if [ "$got" = up ]; then
      local mismatch=""
      timeout 10 scontrol show config > "$dir/config" 2>/dev/null
      while IFS=$'\t' read -r key value; do
        local real
        real=$(shown "$key")
        if [ "$real" != "$value" ]; then
          mismatch+=" $key: check-config says '$value', scontrol shows '$real';"
        fi
      done < "$dir/claims.config"
      if [ "$type" = priority/fairway ]; then
        lines=$(tail -c +$((before + 1)) "$c/log/slurmctld.log")
        case $tres in
          off) grep -q 'TRES factors disabled' <<<"$lines" || mismatch+=" TRES factors claimed off, no 'TRES factors disabled' line;"
               checked+=", TRES factors off" ;;
          on) grep -q 'TRES factors disabled' <<<"$lines" && mismatch+=" TRES factors claimed on, but logged disabled;"
              checked+=", TRES factors on" ;;
        esac
        # Fairway's start line names the fairshare mode in force.
        grep -q "fairshare mode $mode;" <<<"$lines" || mismatch+=" mode claimed $mode, log says '$(grep -o 'fairshare mode [a-z_]*' <<<"$lines" | tail -1)';"
        checked+=", mode $mode"
        # Every 'logs "..."' claim names the start of a line Fairway logs.
        while IFS= read -r said; do
          [ -z "$said" ] && continue
          grep -qF -- "$said" <<<"$lines" || mismatch+=" no log line '$said';"
          checked+=", logged '${said:0:50}'"
        done < "$dir/claims.logs"
      fi
      if [ -n "$mismatch" ]; then
        fail "$name, $type:$mismatch"
        continue
      fi
      checked+=", $summary as claimed"
    fi
    pass "$name, $type: $checked"
  done
  log "$name: $((SECONDS - t0)) s"
}

check_case "half-life 0, PriorityUsageResetPeriod=NONE written" PriorityDecayHalfLife=0 PriorityUsageResetPeriod=NONE
check_case "half-life 0, no PriorityUsageResetPeriod line" PriorityDecayHalfLife=0 -PriorityUsageResetPeriod
check_case "half-life INFINITE" PriorityDecayHalfLife=INFINITE
check_case "PriorityMaxAge=INFINITE" PriorityMaxAge=INFINITE
check_case "PriorityMaxAge=999999-0 (32-bit wrap)" PriorityMaxAge=999999-0
check_case "PriorityMaxAge=30000-0 (wraps negative)" PriorityMaxAge=30000-0
check_case "PriorityMaxAge=35791394 (minutes round up past 2^31)" PriorityMaxAge=35791394
check_case "PriorityMaxAge of 23 digits (sscanf saturates, wraps to 0)" PriorityMaxAge=99999999999999999999999
check_case "PriorityMaxAge=0" PriorityMaxAge=0
check_case "PriorityMaxAge=-5" PriorityMaxAge=-5
check_case "PriorityMaxAge=abc" PriorityMaxAge=abc
check_case "PriorityCalcPeriod=0" PriorityCalcPeriod=0
check_case "PriorityCalcPeriod=71582789 (wraps to 44 s)" PriorityCalcPeriod=71582789
check_case "PriorityWeightTRES=cpu=abc" PriorityWeightTRES=cpu=abc
check_case "PriorityWeightTRES for a TRES not configured" PriorityWeightTRES=cpu=1000,gres/gpu=5
check_case "PriorityWeightTRES=cpu=-1" PriorityWeightTRES=cpu=-1
check_case "FairShareDampeningFactor=0" FairShareDampeningFactor=0
check_case "unknown and substring PriorityFlags" PriorityFlags=BOGUS,NO_FAIR_TREES
check_case "PriorityFlags in lower case, joined by ;" "PriorityFlags=max_tres;depth_oblivious"
check_case "PriorityParameters bad key and value" "PriorityParameters=fairshar=ranged,usage_bootstrap=sometimes"
check_case "PriorityParameters bad mode" "PriorityParameters=fairshare=rangedd"
check_case "PriorityWeightQOS=010 (octal)" PriorityWeightQOS=010
check_case "PriorityWeightAge=abc" PriorityWeightAge=abc
check_case "weights summing above 2^32 - 1" PriorityWeightQOS=4294967295

# Back to the base configuration, so the cluster stops cleanly.
cp "$dir/slurm.conf.base" "$conf"
[ "$(start_ctld)" = up ] && pass "base configuration: controller up again" || fail "base configuration: controller down"
log "check_config_truth took $((SECONDS - t_start)) s"
summary
