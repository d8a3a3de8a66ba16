#!/bin/sh
# The functions of the boundary that read Slurm's job and association
# records load each field on its own. A compiler that vectorises the copies
# (GCC 12 and later at -O2, its SLP pass) merges two 8-byte field loads into
# one 16-byte load that also reads an unused neighbour; when the neighbour
# lies on a cache line the prefetches did not ask for, the pass waits for
# memory once per job (configure.ac compiles the boundary with
# -fno-tree-slp-vectorize). This fails when such a function of the built
# plugin holds a 16-byte load from anywhere but its own stack frame.
so=.libs/priority_fairway.so
[ -f "$so" ] || { echo "SKIP: $so not built"; exit 77; }
command -v objdump >/dev/null || { echo "SKIP: no objdump"; exit 77; }
functions="fw_jobs_stamp job_inputs fairshare_inputs partitions_of fw_jobs_inputs fw_jobs_gather
fw_jobs_store_slice fw_jobs_find fw_charge_running fw_assocs_snapshot fw_assocs_decay"
listing=$(objdump -d --no-show-raw-insn "$so")
status=0
found=0
for f in $functions; do
  body=$(printf '%s\n' "$listing" | awk -v f="<$f>:" '$2 == f { on = 1; next } /^$/ { on = 0 } on')
  # Inlined everywhere (no symbol of its own): its loads are its callers'.
  [ -n "$body" ] || continue
  found=$((found + 1))
  loads=$(printf '%s\n' "$body" |
    grep -E '(v?movdq[ua]|v?movup[sd]|v?movap[sd]) +-?(0x[0-9a-f]+)?\(%r[a-z0-9]+(,[^)]*)?\),%[xy]mm' |
    grep -vE '\(%r[sb]p[,)]' || true)
  if [ -n "$loads" ]; then
    echo "FAIL: $f: 16-byte loads from records:"
    printf '%s\n' "$loads" | sed 's/^/    /'
    status=1
  else
    echo "PASS: $f: field by field"
  fi
done
[ "$found" -gt 0 ] || { echo "FAIL: none of the functions checked is in $so"; status=1; }
exit $status
