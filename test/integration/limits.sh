#!/bin/bash
# TRES-minute limits under both plugins, on one release (FW_SLURM; default
# the host's), priority/multifactor and priority/fairway each on a fresh
# cluster of its own, side by side (the second on FAIRWAY_PORT_BASE + 500).
# Both must show the same sequence:
# - GrpTRESMins: an association whose decayed CPU usage exceeds its
#   GrpTRESMins limit has its next job held back (AssocGrpCPUMinutesLimit),
#   decay of that usage releases the job, and GrpTRESRaw after the first
#   job is the same under both;
# - run-minutes: a user association with GrpTRESRunMins=cpu=4 and, from
#   24.05 (where a QOS counts run-seconds per user, which the priority
#   plugin must release each pass and at the job's end), a QOS with
#   MaxTRESRunMinsPerUser=cpu=4. A job using the whole limit runs across a
#   decay pass; a second one waits on a run-minutes limit while it runs,
#   starts once it ends (nothing left charged: a run-second not released
#   would hold it for good), and after both every run-minute counter is 0.
set -u
. "$(dirname "$0")/lib.sh"

dir=$(mktemp -d /tmp/fairway-limits.XXXXXX)
chmod 755 "$dir"
trap 'for p in multifactor fairway; do stop_cluster "$dir/$p"; done; rm -rf "$FW_PLUGIN_DIR"; [ -n "${FW_KEEP:-}" ] || rm -rf "$dir"' EXIT
prepare_plugin_dir || exit 1

# One-minute half-life and passes: usage halves each minute. No passes on
# change (change_check=0; multifactor ignores PriorityParameters): a job's
# end would start a pass that decays the usage at once, while multifactor's
# stays undecayed until its next pass, so that right after the first job
# the two plugins' usage would straddle the limit of one CPU-minute
# (doc/differences.md, difference 15). Here both pass on the same timer.
cat > "$dir/limits.conf" <<CONF
PriorityDecayHalfLife=1
PriorityCalcPeriod=1
PriorityParameters=change_check=0
CONF

# run_minutes_used KIND: the run-minutes in use, from scontrol show
# assoc_mgr: "assoc" fwuser5's GrpTRESRunMins cpu=4(N), "qos" runq's
# MaxTRESRunMinsPU for fwuser5 (24.05+).
run_minutes_used() {
  case $1 in
    assoc) scontrol show assoc_mgr flags=assoc users=fwuser5 accounts=runlim 2>/dev/null \
      | grep -A12 'UserName=fwuser5' | grep -o 'GrpTRESRunMins=cpu=4([0-9]*)' | head -1 | grep -o '([0-9]*)' | tr -d '()' ;;
    qos) scontrol show assoc_mgr flags=qos qos=runq 2>/dev/null \
      | grep -o 'MaxTRESRunMinsPU=cpu=4([0-9]*)' | head -1 | grep -o '([0-9]*)' | tr -d '()' ;;
  esac
}

# run_plugin PLUGIN: the whole sequence on PLUGIN's cluster; KEY=VALUE
# lines into $dir/PLUGIN.vals.
run_plugin() {
  local plugin=$1 vals=$dir/$1.vals
  mkdir -p "$dir/$plugin"
  log "limits scenario with priority/$plugin"
  start_cluster "$dir/$plugin" "priority/$plugin" "$dir/limits.conf" \
    || { echo "start=no" > "$vals"; return; }
  echo "start=yes" > "$vals"
  local rel qos_limits=no
  rel=$(scontrol show config | awk '$1 == "SLURM_VERSION" {print $3}')
  # Per-user QOS run-seconds exist from 24.05.
  if [ "$(printf '%s\n24.05.0\n' "$rel" | sort -V | head -1)" = 24.05.0 ]; then qos_limits=yes; fi
  echo "qos_limits=$qos_limits" >> "$vals"
  "$FW_CLUSTER" users 6 >/dev/null 2>&1
  sacctmgr -i add account lim fairshare=1 grptresmins=cpu=1 >/dev/null
  sacctmgr -i add user fwuser6 account=lim >/dev/null
  sacctmgr -i add account runlim fairshare=1 >/dev/null
  sacctmgr -i add user fwuser5 account=runlim grptresrunmins=cpu=4 >/dev/null
  local qos=()
  if [ $qos_limits = yes ]; then
    sacctmgr -i add qos runq maxtresrunminsperuser=cpu=4 >/dev/null
    sacctmgr -i modify user fwuser5 set qos+=runq >/dev/null
    qos=(--qos=runq)
  fi
  # 2 CPUs x 60 s = 120 CPU-seconds, decayed while it runs to about 85:
  # over the 60 CPU-seconds limit.
  submit_as fwuser6 -A lim -n2 -t 2 --wrap 'sleep 60' >/dev/null
  wait_jobs_done 120
  sleep 1
  echo "usage_after=$(sshare -n -P -A lim -u fwuser6 -o user,grptresraw \
    | awk -F'|' '$1=="fwuser6"{print $2}' | grep -oE 'cpu=[0-9]+' | cut -d= -f2)" >> "$vals"
  local second reason state held=no released=no limit
  second=$(submit_as fwuser6 -A lim -n1 -t 1 --wrap 'sleep 1')
  # The scheduler sees the limit at once.
  for _ in $(seq 1 20); do
    reason=$(squeue -h -j "$second" -o %r 2>/dev/null)
    if [ "$reason" = AssocGrpCPUMinutesLimit ]; then held=yes; break; fi
    sleep 1
  done
  echo "held=$held" >> "$vals"
  # Run-minutes, while the GrpTRESMins job waits for decay: a job using
  # all 4 CPU-minutes of both limits, across a pass (one CPU of two).
  local a b a_state b_reason="" b_ran=no
  a=$(submit_as fwuser5 -A runlim "${qos[@]}" -n1 -t 4 --wrap 'sleep 70')
  for _ in $(seq 60); do [ "$(squeue -h -j "$a" -o %T)" = RUNNING ] && break; sleep 1; done
  b=$(submit_as fwuser5 -A runlim "${qos[@]}" -n1 -t 4 --wrap 'sleep 1')
  # Decay must release the GrpTRESMins job within a few passes.
  limit=$((SECONDS + 300))
  while [ $SECONDS -lt $limit ]; do
    if [ "$released" = no ]; then
      state=$(sacct -n -X -j "$second" -o state | head -1 | tr -d ' ')
      case "$state" in COMPLETED | RUNNING) released=yes ;; esac
    fi
    a_state=$(squeue -h -j "$a" -o %T 2>/dev/null)
    if [ "$a_state" = RUNNING ]; then
      b_reason=$(squeue -h -j "$b" -o %r 2>/dev/null)
    fi
    [ "$released" = yes ] && [ -z "$a_state" ] && break
    sleep 2
  done
  echo "released=$released" >> "$vals"
  echo "b_reason=$b_reason" >> "$vals"
  # A ended: B must start at once (within two scheduler passes).
  for _ in $(seq 40); do
    case $(sacct -n -X -j "$b" -o state | head -1 | tr -d ' ') in COMPLETED | RUNNING) b_ran=yes; break ;; esac
    sleep 1
  done
  echo "b_ran=$b_ran" >> "$vals"
  [ $b_ran = yes ] || squeue -h -j "$b" -o '%i %T %r' >&2
  wait_jobs_done 60
  echo "assoc_run_min=$(run_minutes_used assoc)" >> "$vals"
  [ $qos_limits = yes ] && echo "qos_run_min=$(run_minutes_used qos)" >> "$vals"
  log "$plugin: $(tr '\n' ' ' < "$vals")"
  stop_cluster "$dir/$plugin"
}

base=${FAIRWAY_PORT_BASE:-16817}
FAIRWAY_PORT_BASE=$base run_plugin multifactor > "$dir/multifactor.out" 2>&1 &
m_pid=$!
FAIRWAY_PORT_BASE=$((base + 500)) run_plugin fairway > "$dir/fairway.out" 2>&1 &
f_pid=$!
wait $m_pid $f_pid
cat "$dir/multifactor.out" "$dir/fairway.out" >&2

val() { sed -n "s/^$2=//p" "$dir/$1.vals" 2>/dev/null | tail -1; }
for plugin in multifactor fairway; do
  [ "$(val $plugin start)" = yes ] || { fail "$plugin: cluster start"; continue; }
  [ "$(val $plugin held)" = yes ] && pass "$plugin: job held by AssocGrpCPUMinutesLimit" \
    || fail "$plugin: job not held by AssocGrpCPUMinutesLimit"
  [ "$(val $plugin released)" = yes ] && pass "$plugin: decay released the held job" \
    || fail "$plugin: decay did not release the held job"
  r=$(val $plugin b_reason)
  if [ "$(val $plugin qos_limits)" = yes ]; then what="GrpTRESRunMins and QOS MaxTRESRunMinsPerUser"; else what=GrpTRESRunMins; fi
  [[ $r == *RunMinutes* || $r == *RunMins* ]] && pass "$plugin: the second job waited on a run-minutes limit ($r) while the first ran" \
    || fail "$plugin: the second job's reason while the first ran: '$r', expected a run-minutes limit"
  [ "$(val $plugin b_ran)" = yes ] && pass "$plugin: $what released when the first job ended: the second job ran" \
    || fail "$plugin: the second job never ran after the first ended ($what not released)"
  u=$(val $plugin assoc_run_min)
  [ "$u" = 0 ] && pass "$plugin: GrpTRESRunMins in use is 0 after both jobs" \
    || fail "$plugin: GrpTRESRunMins in use after both jobs: '$u', expected 0"
  if [ "$(val $plugin qos_limits)" = yes ]; then
    u=$(val $plugin qos_run_min)
    [ "$u" = 0 ] && pass "$plugin: QOS MaxTRESRunMinsPerUser in use is 0 after both jobs" \
      || fail "$plugin: QOS MaxTRESRunMinsPerUser in use after both jobs: '$u', expected 0"
  fi
done
m=$(val multifactor usage_after) f=$(val fairway usage_after)
# GrpTRESRaw (whole minutes) after the first job: the same under both.
if [ -n "$m" ] && [ "$m" = "$f" ]; then
  pass "GrpTRESRaw cpu after the first job equal ($m min)"
else
  fail "GrpTRESRaw cpu after the first job: multifactor '$m', fairway '$f'"
fi
summary
