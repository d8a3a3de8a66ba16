#!/bin/sh
# Usage: test/plugin_exports.sh TREE
# Prints, one per line and sorted, the symbols priority_fairway.so built
# against the configured Slurm tree TREE must export, and nothing else:
# the priority_p_* operations of that release's own syms[] list (read from
# its source: src/interfaces/priority.c from 23.02, slurm_priority.c
# before), the plugin identification and init/fini, the slurmctld globals
# a process without slurmctld lacks, and from 24.05 last_part_update,
# which the per-partition priorities read (defined by the plugin for
# sshare, as multifactor). Fails when TREE has no syms[] list.
# Used by test/plugin_symbols.sh and test/compile_matrix.sh.
set -eu
tree=$1
iface=$tree/src/interfaces/priority.c
[ -f "$iface" ] || iface=$tree/src/common/slurm_priority.c
ops=$(sed -n '/syms\[\] *= *{/,/};/p' "$iface" | grep -o '"priority_p_[a-z_]*"' | tr -d '"')
[ -n "$ops" ] || { echo "no syms[] in $iface" >&2; exit 1; }
extra=
if grep -q part_list_to_xstr "$tree/src/slurmctld/slurmctld.h"; then extra=last_part_update; fi
printf '%s\n' $ops accounting_enforce acct_db_conn cluster_cpus fini init job_list \
  last_job_update plugin_name plugin_type plugin_version slurmctld_tres_cnt $extra | sort
