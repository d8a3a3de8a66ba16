#!/bin/sh
# The Slurm boundary is C (doc/architecture.md): Slurm's private headers
# are C, and from Slurm 23.11 they cannot be compiled as C++. This fails
# when a file outside plugins/priority/fairway/*.c|*.h includes one of
# Slurm's private headers (src/...): only Slurm's public API (slurm/*.h,
# used by the tool's libslurm client) is written to be included from C++.
# It also fails when the code that includes Slurm's headers, where every
# release difference lives, grows past its budget of 3,280 lines (3,279
# on 2026-11-29, as clang-format writes them; doc/architecture.md gives
# it per file and says why it is what it is). The budget was 2,700 until
# jobs.c was split into job_find.c, job_gather.c and job_store.c, each with
# a header (issue 46): 94 more lines, of file comments, includes, guards,
# contracts and two wrappers of a few lines. It was 2,800 until
# fairshare_clusters (issue 49) needed to ask slurmdbd for other clusters'
# associations and jobs: remote_fetch.c, 105 lines (its thread and state
# file, remote_sync.c, include no Slurm header). It was 2,900 until the job
# path lost its callbacks from the core into Slurm (issue 46): the
# lookups of job_list's records by id, and the stamp that tells whether a
# job changed between gather and store, are the boundary's now (the rule
# of which ids to look up stays the core's). It was 2,950 until global fairshare's sync
# asked for the associations only when the paths the core keeps do not do,
# timed itself and trimmed malloc after a window-sized fetch (issue 49's
# scale case, remote_fetch.c, 45 lines). It was 3,000 until passes
# on change (issue 47) needed to read what no callback reports:
# changes.c, 143 lines, a fingerprint of partitions, associations and QOS
# and sdiag's counters (the thread that compares them includes no Slurm
# header). It was 3,150 until one pass table replaced two (issue 46's
# memory): the gather writes the table sprio reads, so both take the
# table lock (job_find.c, job_gather.c, sprio.c: 31 lines). It was 3,180
# until the plugin wrote Slurm's assoc_usage and qos_usage itself instead
# of calling dump_assoc_mgr_state, whose save leaves no assoc_usage for an
# instant that 25.05+ slurmctld cannot start from (usage_save.c, 91 lines:
# Slurm's format with Slurm's pack functions). It was 3,270 until a pass
# hashed the associations' usage itself (changes.c fw_changes_usage,
# 8 lines) instead of taking two whole looks for changes. Code that
# needs no Slurm type
# belongs in the core or behind fw_host.h, and a new release's
# differences must not double it unseen. A header that declares functions
# taking Slurm's types under #ifdef FW_SLURM_AT_LEAST (fw_plugin.h's, so
# that the Slurm-free files can include the rest of it) counts whole.
top=${srcdir:-.}
status=0
slurm_include='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](slurm/|src/(common|slurmctld|interfaces|plugins)/)'
private_include='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]src/(common|slurmctld|interfaces|plugins)/'
for f in $(cd "$top" && find src tool plugins test bench -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' \) 2>/dev/null); do
  case $f in
    plugins/priority/fairway/*.c|plugins/priority/fairway/*.h) continue ;;
    test/host/*.c|test/host/*.h) continue ;;  # C programs standing in for slurmctld
  esac
  if grep -qE "$private_include" "$top/$f"; then
    echo "FAIL: $f includes a Slurm header the boundary alone may include"
    status=1
  fi
done
lines=$(cd "$top/plugins/priority/fairway" && grep -lE "$slurm_include|include \"fw_plugin.h\"|ifdef FW_SLURM_AT_LEAST" *.c *.h | xargs cat | wc -l)
budget=3280
if [ "$lines" -gt "$budget" ]; then
  echo "FAIL: the files that include Slurm headers hold $lines lines, over the budget of $budget (test/boundary_is_c.sh, doc/architecture.md)"
  status=1
fi
[ "$status" = 0 ] && echo "PASS: only the C boundary includes Slurm's private headers ($lines lines in the files that include Slurm headers, budget $budget)"
exit $status
