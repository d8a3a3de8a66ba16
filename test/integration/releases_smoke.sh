#!/bin/bash
# Other Slurm releases, live. For each release of FW_IT_RELEASES (default
# "24.11.5 26.05.3"), a cluster of that release (scripts/cluster --slurm;
# scripts/slurm-release makes the release on first use: a trixie chroot, or
# a build from the tarball) running FW_IT_PRIORITY_TYPE (default
# priority/multifactor; priority/fairway once the plugin is built for that
# release). Checks: the controller and the clients are that release and
# the controller mapped that priority plugin; an account and a user added
# with sacctmgr; a job of that user runs, is recorded by slurmdbd and
# charged to the user's association (sshare's RawUsage); a pending job shows
# in sprio -l with the priority squeue gives it, and sshare -a -l has the
# user's row; restarted on PriorityFlags=MAX_TRES_GRES,NO_NORMAL_QOS,
# NO_NORMAL_PART, slurmctld holds the flags `fairway check-config` claims
# for that release; after restart-ctld every daemon still runs; stop leaves no
# daemon, no slurmstepd and no mount behind.
set -u
. "$(dirname "$0")/lib.sh"

releases=${FW_IT_RELEASES:-24.11.5 26.05.3}
type=${FW_IT_PRIORITY_TYPE:-priority/multifactor}
dir=$(mktemp -d /tmp/fairway-releases.XXXXXX)
chmod 755 "$dir"
c=""
trap '[ -z "$c" ] || stop_cluster "$c"; [ -z "$FW_PLUGIN_DIR" ] || rm -rf "$FW_PLUGIN_DIR"; [ -n "${FW_KEEP:-}" ] || rm -rf "$dir"' EXIT
if [ "$type" = priority/fairway ]; then prepare_plugin_dir || exit 1; fi
path0=$PATH

# alive PID: a live process (not a zombie).
alive() { case $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) in Z | X | "") false ;; *) true ;; esac; }

for rel in $releases; do
  c=$dir/$rel
  mkdir -p "$c"
  PATH=$path0
  t0=$SECONDS
  log "Slurm $rel: starting a cluster with $type"
  FW_SLURM=$rel start_cluster "$c" "$type" || { fail "$rel: cluster start"; c=""; continue; }
  log "Slurm $rel: cluster up in $((SECONDS - t0)) s"

  ctld=$(scontrol show config | awk '$1 == "SLURM_VERSION" {print $3}')
  client=$(sprio --version | awk '{print $NF}')
  [ "$ctld" = "$rel" ] && [ "$client" = "$rel" ] \
    && pass "$rel: slurmctld and the clients are Slurm $rel ($(command -v sprio))" \
    || fail "$rel: slurmctld says '$ctld', sprio --version '$client'"
  so=$(grep -o '[^/ ]*/priority_[a-z0-9_]*\.so' "/proc/$(ctld_pid "$c")/maps" 2>/dev/null | sort -u | tr '\n' ' ')
  [[ $so == *"priority_${type#priority/}.so"* ]] \
    && pass "$rel: slurmctld mapped $so" || fail "$rel: slurmctld mapped '$so', not priority_${type#priority/}.so"

  "$FW_CLUSTER" users 1 >/dev/null 2>&1
  sacctmgr -i add account smoke fairshare=10 >/dev/null
  sacctmgr -i add user fwuser1 account=smoke >/dev/null
  assoc=$(sacctmgr -n -P show assoc where account=smoke user=fwuser1 format=account,user)
  [ "$assoc" = "smoke|fwuser1" ] && pass "$rel: sacctmgr added account smoke and user fwuser1" \
    || fail "$rel: association smoke/fwuser1 is '$assoc'"

  ran=$(submit_as fwuser1 -A smoke -n1 --wrap 'sleep 2')
  wait_jobs_done 60 && wait_accounting_done 60
  rec=$(sacct -X -n -P -j "$ran" -o state,user,account)
  [ "$rec" = "COMPLETED|fwuser1|smoke" ] && pass "$rel: job $ran ran as fwuser1 (sacct: $rec)" \
    || fail "$rel: job $ran: sacct says '$rec'"
  usage=$(sshare -n -P -A smoke -u fwuser1 -o account,user,rawusage | awk -F'|' '$2 == "fwuser1" {print $3}')
  [ "${usage:-0}" -gt 0 ] && pass "$rel: the job is charged to smoke/fwuser1 (RawUsage $usage)" \
    || fail "$rel: smoke/fwuser1 RawUsage is '$usage'"

  # A pending job (drained node: sprio lists pending jobs only).
  drain_node
  pend=$(submit_as fwuser1 -A smoke -n1 --wrap 'sleep 1')
  sleep 1
  sprio -l > "$c.sprio"
  sshare -a -l > "$c.sshare"
  squeue -o '%i %u %a %P %T %Q' > "$c.squeue"
  log "Slurm $rel: sprio -l"; cat "$c.sprio" >&2
  log "Slurm $rel: sshare -a -l"; cat "$c.sshare" >&2
  log "Slurm $rel: squeue"; cat "$c.squeue" >&2
  s=$(sprio -h -j "$pend" -o '%i %u %Y' | tr -s ' ' | sed 's/^ //')
  q=$(squeue -h -j "$pend" -o '%i %u %Q')
  [ -n "$s" ] && [ "$s" = "$q" ] && pass "$rel: sprio -l lists the pending job with squeue's priority ($s)" \
    || fail "$rel: sprio '$s', squeue '$q'"
  grep -qE '^ +smoke +fwuser1 ' "$c.sshare" && pass "$rel: sshare -a -l has smoke/fwuser1" \
    || fail "$rel: sshare -a -l has no smoke/fwuser1 row"

  # restart-ctld follows the release; slurmd, told to register again
  # (SIGHUP), re-executes itself from 23.11 on: all five daemons still run.
  # It restarts on PriorityFlags whose reading and printing changed in
  # 25.05 and 25.11, and `fairway check-config` (built for this release,
  # FW_TOOL, else told the release) must claim what slurmctld prints.
  printf 'PriorityFlags=MAX_TRES_GRES,NO_NORMAL_QOS,NO_NORMAL_PART\n' > "$c.flags"
  restart_ctld "$c" "$type" "$c.flags" >/dev/null 2>&1
  held=$(scontrol show config | awk -F' = ' '$1 ~ /^PriorityFlags *$/ {print $2}')
  relarg=(); [ -n "${FW_TOOL:-}" ] || relarg=(--slurm-version "$rel")
  claim=$("$FAIRWAY" check-config "${relarg[@]}" --json "$SLURM_CONF" 2>"$c.check.err" \
    | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["controllers"]["scontrol_show_config"]["PriorityFlags"])')
  [ -n "$held" ] && [ "$claim" = "$held" ] \
    && pass "$rel: check-config claims PriorityFlags $claim, as slurmctld holds them" \
    || { fail "$rel: slurmctld holds PriorityFlags '$held', check-config claims '$claim'"; cat "$c.check.err"; }
  if "$FW_CLUSTER" status --dir "$c" > "$c.status" 2>&1 && [ "$(scontrol show config | awk '$1 == "SLURM_VERSION" {print $3}')" = "$rel" ]; then
    pass "$rel: after restart-ctld all five daemons run and slurmctld is $rel again"
  else
    fail "$rel: after restart-ctld:"; cat "$c.status"
  fi

  # Stop: nothing of the cluster may stay running or mounted.
  pids=$(head -qn1 "$c"/run/*.pid 2>/dev/null | tr -dc '0-9\n' | tr '\n' ' ')
  stop_cluster "$c"
  left=""
  for p in $pids; do alive "$p" && left="$left $p($(cat "/proc/$p/comm" 2>/dev/null))"; done
  for p in /proc/[0-9]*; do
    case $(cat "$p/comm" 2>/dev/null) in slurmstepd | slurmstepd-wlm) ;; *) continue ;; esac
    for fd in "$p"/fd/*; do
      case $(readlink "$fd" 2>/dev/null) in *"$c/"*) left="$left ${p#/proc/}(slurmstepd)"; break ;; esac
    done
  done
  mounts=$(grep -lsF -e " $c " -e "$c/" /proc/[0-9]*/mountinfo | tr '\n' ' ')
  [ -z "$left" ] && [ -z "$mounts" ] && pass "$rel: stop left no process ($pids) and no mount" \
    || fail "$rel: after stop: processes '$left', mounts held by '$mounts'"
  c=""
done
summary
