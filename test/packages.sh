#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian packages, built and tested as installed (issue 36). For each
# distribution given (default: bookworm trixie), at the same time:
#   build    in a clean chroot of it (the release's chroot of
#            scripts/slurm-release plus the build dependencies, cached as an
#            overlay layer), from `make dist`'s tarball, with
#            DEB_BUILD_OPTIONS="nocheck parallel=2" and the nocheck profile
#            (the unit tests run elsewhere) and SLURM_SRC the configured tree of that
#            distribution's Slurm (scripts/slurm-source; debian/README.source);
#            lintian on the .changes: no error.
#   install  in another clean overlay of the release's chroot: apt-get install
#            ./*.deb; a cluster (scripts/cluster --slurm-root) whose slurm.conf
#            says PriorityType=priority/fairway with no PluginDir line (the
#            package's directory is Slurm's default); slurmctld mapped the
#            installed plugin; a job runs; sprio and sshare answer;
#            `fairway explain job` equals the controller; `man fairway` and
#            `man 5 priority_fairway` render; the bash completion completes
#            a subcommand; apt-get purge leaves no file.
# Alongside: fairway.spec built with rpmbuild -bb against Slurm
# $FAIRWAY_RPM_RELEASE (default 26.05.3; its configured tree from
# scripts/slurm-source, skipped without the tarball), its file list checked.
# FAIRWAY_PACKAGES_OUT=DIR keeps the .deb and .rpm files (scripts/release).
# The release chroots are never written: every step runs in an overlay.
# Ends with "N passed, M failed". Needs root. FAIRWAY_PORT_BASE: the first
# distribution's cluster port (the next +1000).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
suites=${*:-bookworm trixie}
cache=${FAIRWAY_SLURM_RELEASES:-/var/tmp}
base=${FAIRWAY_PORT_BASE:-16817}
work=$(mktemp -d /var/tmp/fairway-packages.XXXXXX)
chmod 755 "$work"
log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
pass() { printf 'PASS: %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*"; }

# release SUITE: the Slurm release of SUITE and scripts/slurm-release's name.
release_of() { case $1 in bookworm) echo 22.05.8 ;; trixie) echo 24.11.5 ;; esac; }
chroot_name() { case $1 in bookworm) echo bookworm ;; trixie) echo 24.11.5 ;; esac; }

# overlay LOWER UPPER MERGED: mounts an overlay (LOWER may be "a:b").
overlay() {
  mkdir -p "$2/u" "$2/w" "$3"
  mount -t overlay overlay -o "lowerdir=$1,upperdir=$2/u,workdir=$2/w" "$3"
}
# in_root ROOT CMD...: CMD chrooted into ROOT with proc, /dev, /sys and the
# Slurm source trees (read-only, same path) mounted, in a mount namespace
# of its own (nothing stays mounted after it).
in_root() {
  local root=$1; shift
  unshare --mount --propagation private -- /bin/sh -c '
    root=$1 src=$2; shift 2
    mount -t proc proc "$root/proc" && mount --rbind /dev "$root/dev" &&
      mount --rbind /sys "$root/sys" || exit 125
    if [ -d "$src" ]; then
      mkdir -p "$root$src" && mount --bind -o ro "$src" "$root$src" || exit 125
    fi
    cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
    exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
      LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"' in_root "$root" \
      "${FAIRWAY_SLURM_SRC_PARENT:-/var/tmp/fairway-slurm-src}" "$@"
}

# build_layer SUITE RELEASE_ROOT: the build dependencies and lintian over the
# release's chroot, an overlay upper directory cached under $cache, made
# once (marker written last).
BUILD_DEPS="build-essential debhelper autoconf automake libtool libslurm-dev
  libmariadb-dev libcli11-dev nlohmann-json3-dev lintian man-db"
build_layer() {
  local suite=$1 root=$2 layer=$cache/fairway-pkg-build-$1
  (
    flock 7
    [ -f "$layer/.fairway-layer-complete" ] && exit 0
    rm -rf "$layer"
    mkdir -p "$layer"
    overlay "$root" "$layer" "$layer/m" || exit 1
    # shellcheck disable=SC2086
    in_root "$layer/m" sh -c "apt-get update -q && apt-get install -y -q --no-install-recommends $(echo $BUILD_DEPS)" \
      > "$layer.log" 2>&1
    st=$?
    umount "$layer/m"
    [ $st = 0 ] || { tail -20 "$layer.log" >&2; exit 1; }
    touch "$layer/.fairway-layer-complete"
  ) 7>>"$cache/fairway-pkg-build-$suite.lock"
}

# one SUITE LANE: everything for one distribution; PASS/FAIL lines on stdout.
one() {
  local suite=$1 lane=$2 rel root src b i debs t0
  rel=$(release_of "$suite")
  t0=$SECONDS
  root=$("$top/scripts/slurm-release" "$(chroot_name "$suite")" 2>/dev/null) ||
    { fail "$suite: no chroot of Slurm $rel (scripts/slurm-release $(chroot_name "$suite"))"; return; }
  if [ "$suite" = bookworm ]; then src=$("$top/scripts/slurm-source" 2>/dev/null)
  else src=$("$top/scripts/slurm-source" "$rel" 2>/dev/null); fi
  [ -n "$src" ] || { fail "$suite: no configured source tree of Slurm $rel (scripts/slurm-source)"; return; }
  build_layer "$suite" "$root" || { fail "$suite: build dependencies (log: $cache/fairway-pkg-build-$suite.log)"; return; }
  log "$suite: chroots ready after $((SECONDS - t0)) s"

  # ---- build
  b=$work/$suite-build
  overlay "$cache/fairway-pkg-build-$suite/u:$root" "$b" "$b/m" || { fail "$suite: overlay"; return; }
  mkdir -p "$b/m/build"
  tar -xzf "$work/fairway.tar.gz" -C "$b/m/build"
  local d=/build/fairway-$version
  # A revision per distribution (+deb12, +deb13), so both can share a repository.
  local n; n=$(in_root "$b/m" sh -c '. /etc/os-release; echo $VERSION_ID')
  sed -i "1s/(\([^)]*\))/(\1+deb$n)/; 1s/) unstable;/) $suite;/" "$b/m$d/debian/changelog"
  t0=$SECONDS
  if in_root "$b/m" sh -c "cd $d && SLURM_SRC='$src' DEB_BUILD_OPTIONS='nocheck parallel=2' dpkg-buildpackage -b -us -uc -Pnocheck" \
      > "$work/$suite-build.log" 2>&1; then
    pass "$suite: dpkg-buildpackage -b against Slurm $rel in a clean $suite chroot ($((SECONDS - t0)) s)"
  else
    tail -30 "$work/$suite-build.log"
    fail "$suite: dpkg-buildpackage (log above)"; umount "$b/m"; return
  fi
  debs=$(cd "$b/m/build" && ls ./*.deb)
  echo "$debs" | sed "s/^/  $suite: /"
  local lint; lint=$(in_root "$b/m" sh -c 'cd /build && lintian --fail-on error *.changes' 2>&1)
  local lst=$?
  echo "$lint" | sed "s/^/  lintian: /"
  [ $lst = 0 ] && ! echo "$lint" | grep -q '^E:' \
    && pass "$suite: lintian: no error ($(echo "$lint" | grep -c '^W:') warnings)" \
    || fail "$suite: lintian reports errors"
  local dep; dep=$(dpkg-deb -f "$b/m"/build/slurm-wlm-fairway-plugin_*.deb Depends)
  local next; next=$(echo "$rel" | awk -F. '{printf "%s.%s.%d~", $1, $2, $3 + 1}')
  echo "$dep" | grep -qF "slurm-wlm-basic-plugins (>= $rel), slurm-wlm-basic-plugins (<< $next)" \
    && pass "$suite: the plugin package depends on Slurm $rel exactly ($dep)" \
    || fail "$suite: plugin package Depends: $dep"
  mkdir -p "$work/debs-$suite"
  cp "$b/m"/build/*.deb "$work/debs-$suite/"
  umount "$b/m"

  # ---- install, run, purge
  i=$work/$suite-install
  overlay "$root" "$i" "$i/m" || { fail "$suite: overlay"; return; }
  cp "$work/debs-$suite"/*.deb "$i/m/tmp/"
  # man-db first: a site reads man pages; its files are not ours. Nor is
  # /etc/hosts, which scripts/cluster copies in (minbase has none).
  cp /etc/hosts "$i/m/etc/hosts"
  in_root "$i/m" sh -c 'apt-get update -q && apt-get install -y -q --no-install-recommends man-db' > "$work/$suite-install.log" 2>&1
  in_root "$i/m" find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /tmp -o -path /var/tmp \
    -o -path /run -o -path /var/log -o -path /var/cache -o -path /var/lib/apt -o -path /var/lib/dpkg \
    -o -path /var/lib/man-db \) -prune -o -print 2>/dev/null | sort > "$work/$suite-before.files"
  if in_root "$i/m" sh -c 'cd /tmp && apt-get install -y -q ./*.deb' >> "$work/$suite-install.log" 2>&1; then
    pass "$suite: apt-get install ./*.deb in a clean $suite chroot"
  else
    tail -20 "$work/$suite-install.log"; fail "$suite: apt-get install ./*.deb"; umount "$i/m"; return
  fi
  local plugdir=/usr/lib/x86_64-linux-gnu/slurm-wlm
  [ -f "$i/m$plugdir/priority_fairway.so" ] && pass "$suite: priority_fairway.so installed in $plugdir" \
    || fail "$suite: no $plugdir/priority_fairway.so"

  local c=$work/$suite-cluster cl="$top/scripts/cluster"
  mkdir -p "$c"; chmod 755 "$c"
  export FAIRWAY_PORT_BASE=$((base + 1000 * lane))
  "$cl" users 1 >/dev/null 2>&1
  if "$cl" start --dir "$c" --slurm "$rel" --slurm-root "$i/m" --default-plugin-dir \
      --priority-type priority/fairway > "$c.env" 2> "$c.start.log"; then
    pass "$suite: cluster with PriorityType=priority/fairway started"
  else
    tail -20 "$c.start.log"; fail "$suite: cluster start"; "$cl" stop --dir "$c" >/dev/null 2>&1; umount "$i/m"; return
  fi
  run() { "$cl" run --dir "$c" --chrooted -- "$@"; }
  grep -qi '^PluginDir' "$c/etc/slurm.conf" && fail "$suite: slurm.conf has a PluginDir line" \
    || pass "$suite: slurm.conf has no PluginDir line (Slurm's default)"
  local pid so; pid=$(head -n1 "$c/run/slurmctld.pid" 2>/dev/null | tr -dc '0-9')
  # (Seen from outside the chroot: the path through the overlay.)
  so=$(grep -o '/[^ ]*/priority_[a-z_]*\.so' "/proc/$pid/maps" 2>/dev/null | sort -u)
  [ "$so" = "$i/m$plugdir/priority_fairway.so" ] && pass "$suite: slurmctld mapped $so (the package's)" \
    || fail "$suite: slurmctld mapped '$so'"
  run sacctmgr -i add account pkg fairshare=10 >/dev/null
  run sacctmgr -i add user fwuser1 account=pkg >/dev/null
  local job st
  job=$(run runuser -u fwuser1 -- sbatch --parsable -A pkg -n1 -o /dev/null --wrap 'sleep 1' 2>&1)
  for _ in $(seq 60); do
    st=$(run sacct -X -n -P -j "$job" -o state 2>/dev/null | head -1)
    [ "$st" = COMPLETED ] && break; sleep 1
  done
  [ "$st" = COMPLETED ] && pass "$suite: job $job ran (sacct: $st)" || fail "$suite: job '$job' is '$st'"
  run scontrol update nodename=ALL state=drain reason=pkgtest >/dev/null 2>&1
  job=$(run runuser -u fwuser1 -- sbatch --parsable -A pkg -n1 -o /dev/null --wrap 'sleep 1' 2>&1)
  sleep 2
  local sp; sp=$(run sprio -h -j "$job" -o '%i %Y' 2>&1 | tr -s ' ' | sed 's/^ //')
  echo "  sprio: $sp"
  [ "${sp%% *}" = "$job" ] && pass "$suite: sprio shows pending job $job ($sp)" || fail "$suite: sprio: '$sp'"
  local ss; ss=$(run sshare -n -P -A pkg -u fwuser1 -o account,user,rawusage,fairshare 2>&1)
  echo "$ss" | sed 's/^/  sshare: /'
  echo "$ss" | grep -q '^ *pkg|fwuser1|[0-9]*|' && pass "$suite: sshare lists pkg/fwuser1 (the plugin loaded by sshare)" \
    || fail "$suite: sshare: $ss"
  # The controller's fairshare of the new association comes with the next
  # decay pass (PriorityCalcPeriod=1): wait for one that started after the
  # submission (priority_last_decay_ran, 8-byte time first), then 1 s more.
  local since last; since=$(date +%s)
  for _ in $(seq 90); do
    last=$((16#$(od -An -tx1 -N8 "$c/state/priority_last_decay_ran" 2>/dev/null | tr -d ' \n')))
    [ "${last:-0}" -ge "$since" ] && break; sleep 1
  done
  sleep 1
  local ex; ex=$(run fairway explain job "$job" 2>&1); st=$?
  echo "$ex" | sed 's/^/  explain: /' | head -30
  [ $st = 0 ] && echo "$ex" | grep -q 'RESULT' && pass "$suite: fairway explain job $job equals the controller" \
    || fail "$suite: fairway explain job $job (exit $st)"
  for m in "1 fairway" "5 priority_fairway"; do
    # shellcheck disable=SC2086
    run sh -c "MANWIDTH=80 man $m 2>&1 | col -b" > "$work/$suite-man" 2>&1
    grep -q '^NAME' "$work/$suite-man" && pass "$suite: man $m renders ($(wc -l < "$work/$suite-man") lines)" \
      || fail "$suite: man $m: $(head -3 "$work/$suite-man")"
  done
  # The completion, sourced as bash-completion would, completes a subcommand.
  local comp=/usr/share/bash-completion/completions/fairway got
  got=$(in_root "$i/m" bash -c "_init_completion() { cur=\${COMP_WORDS[COMP_CWORD]}; prev=\${COMP_WORDS[COMP_CWORD-1]}; words=(\"\${COMP_WORDS[@]}\"); cword=\$COMP_CWORD; }
    . $comp && COMP_WORDS=(fairway check-c) COMP_CWORD=1 && _fairway && echo \"\${COMPREPLY[*]}\"" 2>&1)
  [ "$got" = check-config ] && pass "$suite: bash completion installed ($comp): 'fairway check-c' completes to $got" \
    || fail "$suite: bash completion of 'fairway check-c': '$got'"
  "$cl" stop --dir "$c" >/dev/null 2>&1

  if in_root "$i/m" apt-get purge -y -q fairway slurm-wlm-fairway-plugin >> "$work/$suite-install.log" 2>&1; then
    pass "$suite: apt-get purge fairway slurm-wlm-fairway-plugin"
  else
    fail "$suite: apt-get purge"
  fi
  # What the cluster itself adds (its chroot link, its mount points) is not
  # the packages': the before/after lists leave /tmp, /var/tmp and /run out.
  in_root "$i/m" find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /tmp -o -path /var/tmp \
    -o -path /run -o -path /var/log -o -path /var/cache -o -path /var/lib/apt -o -path /var/lib/dpkg \
    -o -path /var/lib/man-db \) -prune -o -print 2>/dev/null | sort > "$work/$suite-after.files"
  local left; left=$(comm -13 "$work/$suite-before.files" "$work/$suite-after.files")
  [ -z "$left" ] && pass "$suite: purge leaves no file behind ($(wc -l < "$work/$suite-after.files") files as before)" \
    || fail "$suite: left after purge: $(echo "$left" | head -10 | tr '\n' ' ')"
  umount "$i/m"
}

# rpm_lane RELEASE: fairway.spec built with rpmbuild -bb against RELEASE's
# configured tree; the RPM's file list and its Slurm requirement checked.
rpm_lane() {
  local rel=$1 src t0 rpmtop files want
  src=$("$top/scripts/slurm-source" "$rel" 2>/dev/null) ||
    { echo "SKIP: rpm: no Slurm $rel tarball for scripts/slurm-source"; return; }
  rpmtop=$work/rpm
  t0=$SECONDS
  # --nodeps: the build dependencies are Debian packages here, not RPMs.
  tar -xzf "$work/fairway.tar.gz" -C "$work" "fairway-$version/fairway.spec"
  if rpmbuild -bb --nodeps "$work/fairway-$version/fairway.spec" --define "_topdir $rpmtop" \
      --define "_sourcedir $work" --define "slurm_source $src" --define "_smp_mflags -j2" \
      > "$work/rpm.log" 2>&1; then
    pass "rpm: rpmbuild -bb fairway.spec against Slurm $rel ($((SECONDS - t0)) s)"
  else
    tail -20 "$work/rpm.log"; fail "rpm: rpmbuild -bb fairway.spec"; return
  fi
  local r; r=$(ls "$rpmtop"/RPMS/*/slurm-fairway-*.rpm)
  # (Man pages are compressed or not as the build host's rpm macros say.)
  files=$(rpm -qlp "$r" | grep -v '^/usr/lib/.build-id' | sed 's/\.5\.gz$/.5/')
  echo "$files" | sed "s|^|  $(basename "$r"): |"
  want="/usr/lib64/slurm/priority_fairway.so
/usr/share/doc/slurm-fairway-$version
/usr/share/doc/slurm-fairway-$version/NEWS
/usr/share/doc/slurm-fairway-$version/README.md
/usr/share/doc/slurm-fairway-$version/configuration.md
/usr/share/man/man5/priority_fairway.5"
  [ "$(echo "$files" | sort)" = "$(echo "$want" | sort)" ] \
    && pass "rpm: files are the plugin in %{_libdir}/slurm, its man page and docs" \
    || fail "rpm: unexpected file list"
  rpm -qp --requires "$r" | grep -qx "slurm = $rel" \
    && pass "rpm: requires slurm = $rel" || fail "rpm: requires $(rpm -qp --requires "$r" | grep slurm)"
  [ -z "${FAIRWAY_PACKAGES_OUT:-}" ] || { mkdir -p "$FAIRWAY_PACKAGES_OUT" && cp "$r" "$FAIRWAY_PACKAGES_OUT/"; }
}

t_all=$SECONDS
cd "$top" || exit 1
# The release tarball the packages are built from: make dist in a copy of
# the checkout's files (the checkout's own build is left alone).
log "make dist"
version=$("$top/scripts/version")
if [ -n "${FAIRWAY_TARBALL:-}" ]; then
  cp "$FAIRWAY_TARBALL" "$work/fairway.tar.gz"      # scripts/release's, from make distcheck
else
  mkdir -p "$work/src"
  # (With the checkout's generated configure and Makefile.in when there are:
  # autoreconf is the slow part.)
  { git ls-files -co --exclude-standard
    [ -x configure ] && ls -d configure Makefile.in aclocal.m4 build-aux m4/*.m4 2>/dev/null
  } | tar -cf - -T - | tar -xf - -C "$work/src"
  (cd "$work/src" && { [ -x configure ] || ./autogen.sh; } && ./configure -q && make -s dist) > "$work/dist.log" 2>&1
  [ -f "$work/src/fairway-$version.tar.gz" ] || { tail -20 "$work/dist.log"; echo "FAIL: make dist"; echo "0 passed, 1 failed"; exit 1; }
  cp "$work/src/fairway-$version.tar.gz" "$work/fairway.tar.gz"
fi
log "make dist: done after $((SECONDS - t_all)) s"

lane=0 pids=()
for s in $suites; do
  one "$s" "$lane" > "$work/$s.out" 2> "$work/$s.err" &
  pids+=($!); lane=$((lane + 1))
done
cp "$work/fairway.tar.gz" "$work/fairway-$version.tar.gz"
rpm_release=${FAIRWAY_RPM_RELEASE:-26.05.3}
rpm_lane "$rpm_release" > "$work/rpm.out" 2>&1 &
pids+=($!)
for p in "${pids[@]}"; do wait "$p"; done
passed=0 failed=0
for s in $suites rpm; do
  echo "--- $s"
  cat "$work/$s.out"
  passed=$((passed + $(grep -c '^PASS:' "$work/$s.out"))); failed=$((failed + $(grep -c '^FAIL:' "$work/$s.out")))
done
# The packages stay for scripts/release (FAIRWAY_PACKAGES_OUT).
if [ -n "${FAIRWAY_PACKAGES_OUT:-}" ]; then mkdir -p "$FAIRWAY_PACKAGES_OUT" && cp "$work"/debs-*/*.deb "$FAIRWAY_PACKAGES_OUT/" 2>/dev/null; fi
log "packages test: $((SECONDS - t_all)) s"
[ -n "${FW_KEEP:-}" ] || rm -rf "$work"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
