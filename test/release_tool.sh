#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The fairway tool for another Slurm release: the host build's objects with
# tool/slurmctld/rpc_client.cc compiled against RELEASE's own public
# headers and the whole linked with RELEASE's own libslurm, so that
# `fairway explain` speaks that release's RPCs (a libslurm only talks to
# controllers of its own release).
#
# Usage: test/release_tool.sh RELEASE OUTDIR   (from the build directory,
# after make; RELEASE made runnable by scripts/slurm-release). Writes
# OUTDIR/fairway, the command to run, and prints its path.
#  - prefix (X.Y.Z built from SchedMD's tarball): headers PREFIX/include,
#    libslurm PREFIX/lib (rpath); OUTDIR/fairway is the binary.
#  - chroot (24.11.5, trixie): headers and libslurm from the chroot's
#    libslurm-dev. trixie's libslurm needs trixie's glibc, so the binary
#    (OUTDIR/fairway.bin) runs with the chroot's own loader and libraries,
#    as the cluster's clients do (scripts/cluster make_clients);
#    OUTDIR/fairway is that wrapper. Linking on the host leaves libslurm's
#    own glibc references to the loader (--allow-shlib-undefined).
set -eu
top=${srcdir:-.}
release=${1:?usage: test/release_tool.sh RELEASE OUTDIR}
out=${2:?usage: test/release_tool.sh RELEASE OUTDIR}
msg() { echo "release_tool: $*" >&2; }
for f in tool/fairway-fairway.o tool/slurmdbd/fairway-db_client.o .libs/libfairway_core.a; do
  [ -f "$f" ] || { msg "$f not built (run make first, in the build directory)"; exit 1; }
done
root=$("$top/scripts/slurm-release" "$release") || { msg "Slurm $release is not runnable (scripts/slurm-release $release)"; exit 1; }
mkdir -p "$out/include"
chmod 755 "$out"
if [ -f "$root/usr/include/slurm/slurm.h" ]; then
  kind=chroot headers=$root/usr/include/slurm libdir=$root/usr/lib/x86_64-linux-gnu
elif [ -f "$root/include/slurm/slurm.h" ]; then
  kind=prefix headers=$root/include/slurm libdir=$root/lib
else
  msg "no slurm/slurm.h of Slurm $release under $root (usr/include or include)"; exit 1
fi
# Only slurm/ on the include path: the chroot's /usr/include also holds
# trixie's libc headers, which must not replace the host's.
ln -sfn "$headers" "$out/include/slurm"
want=$(echo "$release" | awk -F. '{printf "0x%02x%02x%02x", $1, $2, $3}')
grep -q "SLURM_VERSION_NUMBER $want\$" "$headers/slurm_version.h" \
  || { msg "$headers is not Slurm $release (slurm_version.h)"; exit 1; }
g++ -std=c++17 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -I"$top/src" -I"$top/tool" \
  -I"$out/include" -c "$top/tool/slurmctld/rpc_client.cc" -o "$out/rpc_client.o"
objs=$(ls tool/fairway-*.o tool/slurmdbd/fairway-*.o)
libs=".libs/libfairway_sim.a .libs/libfairway_io.a .libs/libfairway_core.a"
case $kind in
  prefix)
    # shellcheck disable=SC2086
    g++ -o "$out/fairway" $objs "$out/rpc_client.o" $libs -L"$libdir" -Wl,-rpath,"$libdir" \
      -lslurm -lmariadb -lpthread ;;
  chroot)
    # shellcheck disable=SC2086
    g++ -o "$out/fairway.bin" $objs "$out/rpc_client.o" $libs -L"$libdir" \
      -Wl,--allow-shlib-undefined -lslurm -lmariadb -lpthread
    ldso=$root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
    printf '#!/bin/sh\n# fairway linked with Slurm %s'"'"'s libslurm (%s), run with its loader and libraries.\nexec %s --library-path %s --argv0 fairway %s "$@"\n' \
      "$release" "$root" "$ldso" "$libdir:$libdir/slurm-wlm" "$out/fairway.bin" > "$out/fairway"
    chmod 755 "$out/fairway" ;;
esac
got=$("$out/fairway" --version 2>&1 | head -1) || { msg "$out/fairway does not run: $got"; exit 1; }
echo "$out/fairway"
