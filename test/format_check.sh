#!/bin/sh
# The boundary (plugins/) is written in Slurm's style, as plugins/.clang-format
# states it: this fails on any C file or header of plugins/ that
# clang-format would change, and prints the command that fixes it. The
# style is clang-format 14's reading of that file (Debian bookworm's,
# scripts/install-deps); without clang-format the check is skipped (77).
top=${srcdir:-.}
command -v clang-format > /dev/null 2>&1 || { echo "SKIP: no clang-format"; exit 77; }
status=0 checked=0
for f in "$top"/plugins/priority/fairway/*.c "$top"/plugins/priority/fairway/*.h; do
  checked=$((checked + 1))
  if ! clang-format --style=file "$f" | cmp -s - "$f"; then
    echo "FAIL: $f is not formatted (clang-format -i --style=file $f)"
    clang-format --style=file "$f" | diff -u "$f" - | head -20
    status=1
  fi
done
[ "$status" = 0 ] && echo "PASS: the $checked files of plugins/priority/fairway/ are formatted ($(clang-format --version | head -1))"
exit $status
