#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The differential test (test/host/differential.sh) on one Slurm release:
# differential_host built for that release, run with that release's
# libslurmfull, its own priority_multifactor.so and the Fairway plugin
# built for it.
#
# Usage: test/host/differential_release.sh RELEASE [differential.sh ARGS]
#   RELEASE: 22.05.8 (the host's Debian packages; this build's plugin),
#   24.11.5 (Debian trixie's, in the chroot scripts/slurm-release makes:
#   its libslurmfull needs trixie's C library, so every case runs
#   chrooted), or X.Y.Z built under a prefix by scripts/slurm-release.
#   ARGS go to differential.sh (-n SEEDS, --dup, --seed S ...); DIFF_SEEDS
#   and DIFF_DUP_SEEDS too.
# Requires: the release runnable (scripts/slurm-release RELEASE), its
# configured source tree (scripts/slurm-source RELEASE) and, except for
# 22.05.8, its plugin in $FAIRWAY_RELEASE_PLUGINS/RELEASE (default
# /var/tmp/fairway-release-plugins; test/compile_matrix.sh with
# FAIRWAY_COMPILE_KEEP). Root for 24.11.5 (chroot). Run from a built tree.
# Prints differential.sh's report, first a line naming the release, the
# host's Slurm and the two plugins; exit status differential.sh's (2 when
# something required is missing).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
release=${1:?usage: $0 RELEASE [differential.sh ARGS]}
shift
plugins=${FAIRWAY_RELEASE_PLUGINS:-/var/tmp/fairway-release-plugins}
die() { echo "FAIL: differential on $release: $*"; exit 2; }

where=$("$top/scripts/slurm-release" "$release" 2>/dev/null) || die "scripts/slurm-release $release failed"
if [ "$release" = 22.05.8 ]; then
  tree=$("$top/scripts/slurm-source") || die "no configured source tree"
  fairway=$top/.libs/priority_fairway.so
else
  tree=$("$top/scripts/slurm-source" "$release") || die "no configured source tree"
  fairway=$plugins/$release/priority_fairway.so
fi
# Where the release's libslurmfull and plugins are, as its programs see
# them (lib_at), and as this machine's file system has them (lib).
case $where in
  /) lib_at=/usr/lib/x86_64-linux-gnu/slurm-wlm root="" ;;
  */fairway-trixie-*|*/fairway-bookworm-*) lib_at=/usr/lib/x86_64-linux-gnu/slurm-wlm root=$where ;;
  *) lib_at=$where/lib/slurm root="" ;;
esac
lib=$root$lib_at
for f in "$lib/libslurmfull.so" "$lib/priority_multifactor.so" "$fairway" "$tree/config.h"; do
  [ -e "$f" ] || die "$f is missing"
done

work=$(mktemp -d "${root:-}/tmp/fairway-diff-$release.XXXXXX") || die "no work directory"
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

# The host, compiled as Makefile.am compiles it (its CPPFLAGS), against
# the release's configured tree; --allow-shlib-undefined: a chroot's
# libslurmfull links against a newer C library than this machine's.
mkdir -p "$work/obj" "$work/plugin"
for src in differential_host ctld_stubs diff_jobs diff_tree diff_state diff_boundary; do
  gcc -std=gnu11 -O2 -g -Wall -Wno-unused-parameter \
    -UPACKAGE -UPACKAGE_NAME -UPACKAGE_STRING -UPACKAGE_TARNAME -UPACKAGE_URL \
    -UPACKAGE_VERSION -UPACKAGE_BUGREPORT -UVERSION -include "$tree/config.h" \
    -I"$top/src" -I"$tree" -I"$tree/src/common" -DDIFF_SLURM_PLUGIN_DIR="\"$lib_at\"" \
    -c "$top/test/host/$src.c" -o "$work/obj/$src.o" 2> "$work/cc.err" ||
    { cat "$work/cc.err"; die "test/host/$src.c does not compile against $tree"; }
done
gcc -rdynamic -o "$work/differential_host" "$work"/obj/*.o -Wl,-rpath,"$lib_at" \
  -L"$lib" -lslurmfull -ldl -lpthread -lm -Wl,--allow-shlib-undefined 2> "$work/cc.err" ||
  { cat "$work/cc.err"; die "differential_host does not link with $lib/libslurmfull.so"; }
# The plugin sits in a directory of its own (PluginDir: its own first).
cp "$fairway" "$work/plugin/priority_fairway.so"
host=$work/differential_host
if [ -n "$root" ]; then
  # Every case chrooted; the paths differential.sh passes (all under
  # $root) lose the chroot's prefix on the way in.
  cat > "$work/chrooted_host" <<EOF
#!/bin/bash
args=()
for a in "\$@"; do args+=("\${a#$root}"); done
exec chroot "$root" "${host#"$root"}" "\${args[@]}"
EOF
  chmod 755 "$work/chrooted_host"
  host=$work/chrooted_host
fi
echo "differential on Slurm $release: $("$host" --same-slurm 2>&1)"
mkdir -p "$work/cases"
TMPDIR=$work/cases DIFF_REPLAY="test/host/differential_release.sh $release" DIFF_HOST=$host MULTIFACTOR_SO=$lib/priority_multifactor.so \
  FAIRWAY_SO=$work/plugin/priority_fairway.so "$top/test/host/differential.sh" "$@"
