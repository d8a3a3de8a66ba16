#!/bin/sh
# The decay pass and sprio's list read tens of thousands of job records (the
# decay, thousands of associations) and rely on software prefetches to keep
# many cache misses in flight. GCC can delete them without a warning (see
# plugins/priority/fairway/prefetch.h); the pass then runs about twice as
# slow. This checks that the built plugin
# holds at least as many prefetch instructions in each function as its
# source file asks for.
so=.libs/priority_fairway.so
src=${srcdir:-.}/plugins/priority/fairway
[ -f "$so" ] || { echo "SKIP: $so not built"; exit 77; }
command -v objdump >/dev/null || { echo "SKIP: no objdump"; exit 77; }
counts=$(objdump -d --no-show-raw-insn -C "$so" | awk '
  /^[0-9a-f]+ <.*>:$/ { fn = $0; sub(/^[0-9a-f]+ </, "", fn); sub(/\(.*/, "", fn) }
  /\tprefetch/ { n[fn]++ }
  END { for (f in n) print f, n[f] }')
status=0
check() {  # FUNCTION SOURCE_FILE
  asked=$(grep -c '__builtin_prefetch' "$src/$2")
  got=$(printf '%s\n' "$counts" | awk -v f="$1" '$1 == f { print $2 }')
  got=${got:-0}
  if [ "$got" -lt "$asked" ]; then
    echo "FAIL: $1 has $got prefetch instructions; $2 asks for $asked"
    status=1
  else
    echo "PASS: $1 has $got prefetch instructions ($2 asks for $asked)"
  fi
}
check fairway::plugin::RunPriorityPass priority_pass.cc
check fairway::plugin::BuildPriorityFactorsList factors_list.cc
check fairway::plugin::ChargeListedJobs decay_thread.cc
check fairway::plugin::FindJobs job_bridge.cc
check fairway::plugin::ApplyDecay usage_bridge.cc
exit $status
