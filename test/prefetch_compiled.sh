#!/bin/sh
# The decay pass and sprio's list read tens of thousands of job records (the
# decay, thousands of associations) and rely on software prefetches to keep
# many cache misses in flight. GCC may delete a prefetch without a warning
# (a function made only of prefetches looks free of side effects); the pass
# then runs about twice as slow. This checks that, for each source file of
# the plugin (and each header: job_gather.h holds the prefetch helpers of
# the gather and the store), the built plugin holds at least as many
# prefetch instructions attributed to that file (by the debug line table,
# inlined code included) as the file has prefetch calls that every
# release compiles.
so=.libs/priority_fairway.so
src=${srcdir:-.}/plugins/priority/fairway
[ -f "$so" ] || { echo "SKIP: $so not built"; exit 77; }
command -v objdump >/dev/null || { echo "SKIP: no objdump"; exit 77; }
counts=$(objdump -d -l --no-show-raw-insn "$so" | awk '
  /^\/.*\.[ch]:[0-9]+/ { file = $1; sub(/:.*/, "", file); sub(/.*\//, "", file) }
  /^[^\/].*\.[ch]:[0-9]+/ { file = $1; sub(/:.*/, "", file); sub(/.*\//, "", file) }
  /\tprefetch/ { n[file]++ }
  END { for (f in n) print f, n[f] }')
# The prefetch calls every release compiles: a call inside
# `#if FW_SLURM_AT_LEAST` counts only as far as its `#else` has as many
# (one of the two is compiled); without an `#else`, not at all. Other
# conditionals (include guards) count whole.
asked_by_release='
  /^#define/ { next }
  /^#if/ { d++; rel[d] = /FW_SLURM_AT_LEAST\(/; a[d] = 0; b[d] = 0; e[d] = 0; next }
  /^#el/ { e[d] = 1; next }
  /^#endif/ {
    n = rel[d] ? (e[d] ? (a[d] < b[d] ? a[d] : b[d]) : 0) : a[d] + b[d]
    d--
    if (d > 0) { if (e[d]) b[d] += n; else a[d] += n } else total += n
    next
  }
  /FW_PREFETCH\(|__builtin_prefetch\(/ {
    if (d > 0) { if (e[d]) b[d]++; else a[d]++ } else total++
  }
  END { print total + 0 }'
status=0
checked=0
for path in "$src"/*.c "$src"/*.h; do
  file=$(basename "$path")
  asked=$(awk "$asked_by_release" "$path")
  [ "$asked" -gt 0 ] || continue
  checked=$((checked + 1))
  got=$(printf '%s\n' "$counts" | awk -v f="$file" '$1 == f { print $2 }')
  got=${got:-0}
  if [ "$got" -lt "$asked" ]; then
    echo "FAIL: $file: $got prefetch instructions in the plugin; the file asks for $asked"
    status=1
  else
    echo "PASS: $file: $got prefetch instructions ($asked asked for)"
  fi
done
[ "$checked" -gt 0 ] || { echo "FAIL: no plugin file asks for a prefetch"; status=1; }
exit $status
