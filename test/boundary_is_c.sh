#!/bin/sh
# The Slurm boundary is C and thin (doc/architecture.md): Slurm's private
# headers are C, and from Slurm 23.11 they cannot be compiled as C++. This
# fails when
# - a file outside plugins/priority/fairway/*.c|*.h includes one of Slurm's
#   private headers (src/...): only Slurm's public API (slurm/*.h, used by
#   the tool's libslurm client) is written to be included from C++;
# - the files that include a Slurm header exceed the boundary's budget of
#   1,500 lines, which keeps every release difference in a small place.
top=${srcdir:-.}
status=0
slurm_include='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](slurm/|src/(common|slurmctld|interfaces|plugins)/)'
private_include='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]src/(common|slurmctld|interfaces|plugins)/'
for f in $(cd "$top" && find src tool plugins test bench -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' \) 2>/dev/null); do
  case $f in
    plugins/priority/fairway/*.c|plugins/priority/fairway/*.h) continue ;;
    test/host/*.c) continue ;;  # a C program standing in for slurmctld
  esac
  if grep -qE "$private_include" "$top/$f"; then
    echo "FAIL: $f includes a Slurm header the boundary alone may include"
    status=1
  fi
done
lines=$(cd "$top/plugins/priority/fairway" && grep -lE "$slurm_include|include \"fw_plugin.h\"" *.c *.h | xargs cat | wc -l)
if [ "$lines" -gt 1500 ]; then
  echo "FAIL: the files that include Slurm headers hold $lines lines (budget 1500)"
  status=1
else
  echo "PASS: the Slurm boundary is C, $lines lines including Slurm headers (budget 1500)"
fi
exit $status
