#!/bin/bash
# Reliability 6: privacy. With PrivateData=jobs,usage and without it, real
# unprivileged users (fwuser1..4; fwuser2 coordinator of account c), an
# operator (fwuser5, AdminLevel=Operator)
# and root run sprio, sshare, sshare -a and `fairway explain job` (their own
# job and another user's) against the live controller. The same state is
# served once by priority/fairway and once by priority/multifactor
# (restart_ctld switching the plugin): every user's sprio job list (id,
# user), sshare rows (account, user, raw shares, raw usage) must be identical
# under both plugins. Root and the operator see every job; under
# PrivateData=jobs a plain user sees only their own; `fairway explain` of a
# hidden job is refused with sprio's words and exit 3, and the controller
# stays up. Under PrivateData=jobs,usage a plain user's `fairway explain` of
# their own job is the partial explanation: every factor the controller
# lets them see recomputed, equal to their own sprio (weighted factors and
# priority), the hidden part named in one line; `explain assoc` of their
# own association and `explain compare` of two own jobs work; a coordinator
# gets the partial view with their account's rows; the operator still gets
# the whole tree. `fairway whatif` follows the same rules (plain_whatif).
# Last, in classic mode (NO_FAIR_TREE), the user's F itself is recomputed
# from their own row and equals sprio's.
set -u
. "$(dirname "$0")/lib.sh"

dir=$(mktemp -d /tmp/fairway-privacy.XXXXXX)
chmod 755 "$dir"
c=$dir/c
trap 'stop_cluster "$c"; rm -rf "$FW_PLUGIN_DIR"; [ -n "${FW_KEEP:-}" ] || rm -rf "$dir"' EXIT
prepare_plugin_dir || exit 1
mkdir -p "$c" "$dir/out"
chmod 755 "$FAIRWAY" 2>/dev/null

as() {  # as USER CMD...: root runs it directly
  local u=$1; shift
  if [ "$u" = root ]; then timeout 30 "$@"; else timeout 30 runuser -u "$u" -- "$@"; fi
}
# view TAG: what every user sees, one file per user and command.
view() {
  local tag=$1 u
  for u in root fwuser1 fwuser2 fwuser4 fwuser5; do
    as "$u" sprio -h -o '%i %u' 2>&1 | sort -n > "$dir/out/$tag.$u.sprio"
    as "$u" squeue -h -o '%i %u' 2>&1 | sort -n > "$dir/out/$tag.$u.squeue"
    as "$u" sshare -n -P -o account,user,rawshares,rawusage 2>&1 | sort > "$dir/out/$tag.$u.sshare"
    as "$u" sshare -a -n -P -o account,user,rawshares,rawusage 2>&1 | sort > "$dir/out/$tag.$u.sshare-a"
  done
}
ids() { cut -d' ' -f1 "$1" | tr '\n' ' '; }
# own_jobs_equal_sprio TAG: fwuser1's partial explanation of each of its
# jobs against its own sprio, which prints weighted factors with "%.0f":
# the recomputed ones are printed the same way.
own_jobs_equal_sprio() {
  local tag=$1 id mine theirs
  for id in "${job[fwuser1]}" "${job[fwuser1b]}"; do
    as fwuser1 sprio -h -j "$id" -o '%Y %A %B %F %J %P %Q' > "$dir/out/sprio.$id" 2>&1
    as fwuser1 "$FAIRWAY" explain job --json "$id" > "$dir/out/explain.$id.json" 2> "$dir/out/explain.$id.err"
    mine=$(python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))[0]; w = r["weighted"]
assert r["partial"] and r["match"], r
print(r["recomputed_priority"], *["%.0f" % w[k] for k in ("age","assoc","fairshare","job_size","partition","qos")])' \
      "$dir/out/explain.$id.json" 2>&1)
    theirs=$(tr -s ' ' < "$dir/out/sprio.$id" | sed 's/^ //')
    [ -n "$theirs" ] && [ "$mine" = "$theirs" ] \
      && pass "$tag: fwuser1's job $id: priority and factors (PRIORITY AGE ASSOC FAIRSHARE JOBSIZE PARTITION QOS) equal its sprio: $mine" \
      || fail "$tag: fwuser1's job $id: explain '$mine', sprio '$theirs'"
  done
}

# plain_whatif TAG: `fairway whatif` as fwuser1 under PrivateData=jobs,usage
# (issue 48: explain's visibility rules). The baseline equals the
# controller for the jobs it lists (fwuser1's two), the view is partial and
# holds fwuser1's association only; PriorityWeightQOS=0 lowers each job by
# its own sprio QOS column (within sprio's rounding); shares of its own
# association (fairshare through hidden rows) and of another user's (not
# visible) are refused with exit 2; the output names no other user or
# account; the operator's whatif still has the whole tree.
plain_whatif() {
  local tag=$1 out=$dir/out/whatif.$1 rc id
  as fwuser1 "$FAIRWAY" whatif --json --set PriorityWeightQOS=0 > "$out.json" 2> "$out.err"; rc=$?
  local got
  got=$(python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
assert r["partial"] and r["private_jobs"] and r["baseline_matches"], r
users = sorted((u["account"], u["user"]) for u in r["users"])
assert users == [("b", "fwuser1")] and r["accounts"] == [], (users, r["accounts"])
assert r["users"][0]["fairshare"] is not None, r["users"]
print(" ".join("%d:%d:%d" % (j["job_id"], j["priority"], j["priority_after"]) for j in sorted(r["jobs"], key=lambda j: j["job_id"])))'     "$out.json" 2>&1)
  local want="${job[fwuser1]} ${job[fwuser1b]}" ids_got
  ids_got=$(printf '%s\n' $got | cut -d: -f1 | sort -n | tr '\n' ' ')
  if [ $rc = 0 ] && [ "$ids_got" = "$(printf '%s\n' $want | sort -n | tr '\n' ' ')" ]; then
    pass "$tag: fwuser1's whatif: partial view, its own association only, baseline equal to the controller for its own jobs ($got)"
  else
    fail "$tag: fwuser1's whatif (rc=$rc): $got"; head -5 "$out.err"
  fi
  local entry prio after qos ok=1
  for entry in $got; do
    IFS=: read -r id prio after <<< "$entry"
    qos=$(as fwuser1 sprio -h -j "$id" -o '%Q' | tr -d ' ')
    if [ -z "$qos" ] || [ $(( (prio - qos) - after )) -gt 1 ] || [ $(( after - (prio - qos) )) -gt 1 ]; then
      ok=0; fail "$tag: fwuser1's whatif PriorityWeightQOS=0: job $id $prio -> $after, sprio's QOS column '$qos'"
    fi
  done
  [ $ok = 1 ] && [ -n "$got" ] && pass "$tag: fwuser1's whatif PriorityWeightQOS=0 lowers each of its jobs by its sprio QOS column ($got)"
  as fwuser1 "$FAIRWAY" whatif --shares b,fwuser1=5 > "$out.own-shares" 2>&1; rc=$?
  [ $rc = 2 ] && grep -q "rows hidden from you" "$out.own-shares" \
    && pass "$tag: fwuser1's whatif --shares of its own association refused (fairshare moves through hidden rows): $(cut -c1-110 "$out.own-shares")" \
    || { fail "$tag: fwuser1's whatif --shares b,fwuser1=5 (rc=$rc)"; cat "$out.own-shares"; }
  as fwuser1 "$FAIRWAY" whatif --shares c,fwuser2=5 > "$out.other-shares" 2>&1; rc=$?
  [ $rc = 2 ] && grep -q "no association c,fwuser2 you can see" "$out.other-shares" \
    && pass "$tag: fwuser1's whatif --shares of fwuser2's association refused as not visible" \
    || { fail "$tag: fwuser1's whatif --shares c,fwuser2=5 (rc=$rc)"; cat "$out.other-shares"; }
  as fwuser1 "$FAIRWAY" whatif --set PriorityWeightAge=5000 > "$out.text" 2>&1; rc=$?
  if [ $rc = 0 ] && grep -q "^Partial view" "$out.text" && ! grep -qE "fwuser[2-5]|^  [cdef] " "$out.text" \
     && ! grep -qE "fwuser[2-5]" "$out.json"; then
    pass "$tag: fwuser1's whatif output names no other user or account"
  else
    fail "$tag: fwuser1's whatif output (rc=$rc) names others or lacks the partial view"; cat "$out.text"
  fi
  as fwuser5 "$FAIRWAY" whatif --json > "$out.operator" 2>&1; rc=$?
  if [ $rc = 0 ] && python3 -c 'import json,sys
r = json.load(open(sys.argv[1])); assert not r["partial"] and r["baseline_matches"] and len(r["jobs"]) == int(sys.argv[2]), r' \
      "$out.operator" "$(wc -w <<< "$all_jobs")" 2>/dev/null; then
    pass "$tag: the operator's whatif has the whole tree and every job, baseline equal to the controller"
  else
    fail "$tag: the operator's whatif (rc=$rc)"; head -5 "$out.operator"
  fi
}

cat > "$dir/extra.conf" <<CONF
PriorityCalcPeriod=1
PriorityDecayHalfLife=0
PriorityUsageResetPeriod=YEARLY
CONF
log "starting cluster"
start_cluster "$c" priority/fairway "$dir/extra.conf" || { fail "cluster start"; summary; exit 1; }
create_example_tree
sacctmgr -i modify user fwuser5 set adminlevel=operator >/dev/null
sacctmgr -i add coordinator account=c names=fwuser2 >/dev/null  # of fwuser2 and fwuser3
# Some usage (exact: no decay), then one pending job per user and root.
submit_as fwuser1 -n2 --wrap 'sleep 3' >/dev/null
submit_as fwuser4 -n1 --wrap 'sleep 2' >/dev/null
wait_jobs_done 120
wait_decay_passes "$c" 1
drain_node
declare -A job
for u in fwuser1 fwuser2 fwuser3 fwuser4 fwuser5; do job[$u]=$(submit_as "$u" -n1 --wrap 'sleep 1'); done
# fwuser1's second job, ahead by QOS, for `explain compare`.
job[fwuser1b]=$(submit_as fwuser1 -n1 --qos=high --wrap 'sleep 1')
job[root]=$(sbatch --parsable -A root -n1 -o /dev/null --wrap 'sleep 1')
all_jobs=$(printf '%s\n' "${job[@]}" | sort -n | tr '\n' ' ')
log "jobs: $all_jobs"

for setting in none jobs,usage; do
  if [ "$setting" = none ]; then
    printf 'PrivateData=cloud\n' > "$dir/pd.conf"   # no jobs/usage privacy
  else
    printf 'PrivateData=%s\n' "$setting" > "$dir/pd.conf"
  fi
  for type in priority/multifactor priority/fairway; do
    tag="$setting.${type#priority/}"
    since=$(date +%s)
    restart_ctld "$c" "$type" "$dir/pd.conf" >/dev/null 2>&1 || fail "$tag: restart"
    # Both plugins run a pass as their decay thread starts.
    for _ in $(seq 70); do [ "$(last_decay_ran "$c")" -ge "$since" ] && break; sleep 1; done
    sleep 1
    view "$tag"
  done
  # Fairway versus multifactor, user by user.
  ok=1
  for f in "$dir"/out/"$setting".fairway.*; do
    m=${f/.fairway./.multifactor.}
    if ! diff -u "$m" "$f" > "$f.diff"; then
      ok=0; fail "PrivateData=$setting: $(basename "$f") differs from multifactor"; head -20 "$f.diff"
    fi
  done
  [ $ok = 1 ] && pass "PrivateData=$setting: every user's sprio, squeue, sshare and sshare -a identical to multifactor"

  # Root and the operator see every job, plain users see what the setting allows.
  for u in root fwuser5; do
    [ "$(ids "$dir/out/$setting.fairway.$u.sprio")" = "$all_jobs" ] \
      && pass "PrivateData=$setting: $u sees all jobs in sprio" \
      || fail "PrivateData=$setting: $u sees '$(ids "$dir/out/$setting.fairway.$u.sprio")', expected '$all_jobs'"
  done
  if [ "$setting" = none ]; then
    [ "$(ids "$dir/out/$setting.fairway.fwuser1.sprio")" = "$all_jobs" ] \
      && pass "PrivateData=none: fwuser1 sees all jobs" || fail "PrivateData=none: fwuser1 does not see all jobs"
  else
    [ "$(ids "$dir/out/$setting.fairway.fwuser1.sprio")" = "${job[fwuser1]} ${job[fwuser1b]} " ] \
      && pass "PrivateData=jobs: fwuser1 sees only its own job in sprio" \
      || fail "PrivateData=jobs: fwuser1 sees '$(ids "$dir/out/$setting.fairway.fwuser1.sprio")'"
    if grep -qv '|fwuser1|\|^[^|]*||' "$dir/out/$setting.fairway.fwuser1.sshare-a"; then
      log "PrivateData=usage: fwuser1's sshare -a shows: $(tr '\n' ' ' < "$dir/out/$setting.fairway.fwuser1.sshare-a")"
    fi
    rows_root=$(wc -l < "$dir/out/$setting.fairway.root.sshare-a")
    rows_user=$(wc -l < "$dir/out/$setting.fairway.fwuser1.sshare-a")
    [ "$rows_user" -lt "$rows_root" ] \
      && pass "PrivateData=usage: fwuser1's sshare -a shows fewer rows ($rows_user) than root's ($rows_root)" \
      || fail "PrivateData=usage: fwuser1 sees $rows_user sshare rows, root $rows_root"
  fi

  # fairway explain as users (Fairway still loaded).
  for u in root fwuser1 fwuser5; do
    as "$u" "$FAIRWAY" explain job "${job[fwuser1]}" > "$dir/out/$setting.explain.$u.own" 2>&1
    echo "rc=$?" >> "$dir/out/$setting.explain.$u.own"
    as "$u" "$FAIRWAY" explain job "${job[fwuser2]}" > "$dir/out/$setting.explain.$u.other" 2>&1
    echo "rc=$?" >> "$dir/out/$setting.explain.$u.other"
  done
  for u in root fwuser5; do
    rc=$(tail -1 "$dir/out/$setting.explain.$u.own")
    [ "$rc" = rc=0 ] && pass "PrivateData=$setting: $u explains job ${job[fwuser1]} (fwuser1's)" \
      || { fail "PrivateData=$setting: $u cannot explain fwuser1's job ($rc)"; head -5 "$dir/out/$setting.explain.$u.own"; }
  done
  # A plain user's own job: the whole explanation without PrivateData, the
  # partial one (what they may see) under PrivateData=usage; either way it
  # must reproduce the controller's priority (exit 0).
  own=$dir/out/$setting.explain.fwuser1.own
  rc=$(tail -1 "$own")
  if [ "$rc" != rc=0 ]; then
    fail "PrivateData=$setting: fwuser1 cannot explain its own job ($rc)"; head -5 "$own"
  elif [ "$setting" = none ]; then
    grep -q "^RESULT: recomputed priority equals the controller's" "$own" \
      && pass "PrivateData=none: fwuser1 explains its own job, whole tree" \
      || { fail "PrivateData=none: fwuser1's explanation has no matching RESULT"; cat "$own"; }
  else
    if grep -q "^RESULT: the visible factors reproduce the controller's priority" "$own" \
       && grep -q "partial view" "$own" && grep -qE '^  hidden: .*PrivateData=usage' "$own" \
       && grep -qE '^  b/fwuser1 ' "$own"; then
      pass "PrivateData=$setting: fwuser1 explains its own job: $(grep '^RESULT' "$own"); $(grep '^  hidden:' "$own" | cut -c3-90)..."
    else
      fail "PrivateData=$setting: fwuser1's own-job explanation lacks the partial view, its association or the RESULT"; cat "$own"
    fi
    own_jobs_equal_sprio "PrivateData=$setting"
    out=$dir/out/explain.assoc
    as fwuser1 "$FAIRWAY" explain assoc b,fwuser1 > "$out" 2>&1; rc=$?
    [ $rc = 0 ] && grep -q "^RESULT: the visible values reproduce the controller's LevelFS" "$out" \
      && pass "PrivateData=$setting: fwuser1 explains its own association: $(grep '^RESULT' "$out" | cut -c1-100)" \
      || { fail "PrivateData=$setting: explain assoc b,fwuser1 as fwuser1 (rc=$rc)"; cat "$out"; }
    out=$dir/out/explain.compare
    as fwuser1 "$FAIRWAY" explain compare "${job[fwuser1b]}" "${job[fwuser1]}" > "$out" 2>&1; rc=$?
    [ $rc = 0 ] && grep -qE "\(${job[fwuser1b]} ahead by [1-9]" "$out" && grep -qE '^  QOS ' "$out" \
      && pass "PrivateData=$setting: fwuser1 compares its two jobs: $(head -1 "$out")" \
      || { fail "PrivateData=$setting: explain compare as fwuser1 (rc=$rc)"; cat "$out"; }
    # A coordinator (fwuser2, of account c) sees c's associations and jobs
    # but not the root: the partial explanation, with the account's row.
    out=$dir/out/explain.coord
    as fwuser2 "$FAIRWAY" explain job "${job[fwuser3]}" > "$out" 2>&1; rc=$?
    [ $rc = 0 ] && grep -q "partial view" "$out" && grep -qE '^  c ' "$out" && grep -qE '^  c/fwuser3 ' "$out" \
      && grep -q "^RESULT: the visible factors reproduce the controller's priority" "$out" \
      && pass "PrivateData=$setting: the coordinator of c explains fwuser3's job from c's rows: $(grep '^RESULT' "$out")" \
      || { fail "PrivateData=$setting: coordinator fwuser2 explaining fwuser3's job (rc=$rc)"; cat "$out"; }
    plain_whatif "PrivateData=$setting"
    # The operator keeps the whole tree (the root's row in the path).
    if grep -qE '^  root ' "$dir/out/$setting.explain.fwuser5.own" && ! grep -q "partial view" "$dir/out/$setting.explain.fwuser5.own"; then
      pass "PrivateData=$setting: the operator's explanation of fwuser1's job has the whole tree"
    else
      fail "PrivateData=$setting: the operator's explanation is not the whole tree"; cat "$dir/out/$setting.explain.fwuser5.own"
    fi
  fi
  rc=$(tail -1 "$dir/out/$setting.explain.fwuser1.other")
  if [ "$setting" = none ]; then
    [ "$rc" = rc=0 ] && pass "PrivateData=none: fwuser1 explains fwuser2's job" \
      || { fail "PrivateData=none: fwuser1 cannot explain fwuser2's job ($rc)"; head -5 "$dir/out/$setting.explain.fwuser1.other"; }
  else
    # The refusal sprio gives (its words), with the tool's exit 3. From
    # 23.02 slurmctld answers sprio with every job the user may see and
    # sprio filters by id itself (slurm-23-02-8-1:src/sprio/filter.c, which
    # 22.05 has not; slurm-24-11-5-1:src/sprio/filter.c;
    # multifactor's list, slurm-24-11-5-1:src/plugins/priority/multifactor/
    # priority_multifactor.c, hides others' jobs as Fairway's does), so
    # there sprio's refusal is its header and no row.
    refusal="Unable to find jobs matching user/id(s) specified"
    sprio_says=$(as fwuser1 sprio -j "${job[fwuser2]}" 2>&1)
    sprio_refuses=no
    if [ "$sprio_says" = "$refusal" ]; then sprio_refuses=yes
    elif [ "$(printf '%s\n23.02.0\n' "$(scontrol show config | awk '$1 == "SLURM_VERSION" {print $3}')" | sort -V | head -1)" = 23.02.0 ] \
      && [ "$(printf '%s\n' "$sprio_says" | wc -l)" = 1 ] && [[ $sprio_says == *JOBID*PRIORITY* ]]; then sprio_refuses=yes
    fi
    if [ "$rc" = rc=3 ] && grep -qF "$refusal" "$dir/out/$setting.explain.fwuser1.other" \
       && [ $sprio_refuses = yes ]; then
      pass "PrivateData=jobs: explain of fwuser2's job refused as sprio refuses it ($rc: $(grep -v '^rc=' "$dir/out/$setting.explain.fwuser1.other" | head -1 | cut -c1-120))"
    else
      fail "PrivateData=jobs: explain of fwuser2's job: $rc, sprio says '$sprio_says'"; cat "$dir/out/$setting.explain.fwuser1.other"
    fi
    if cat "$dir/out/$setting.explain.fwuser1."* | grep -v '^rc=' | grep -qE "fwuser[2-5]|account=?[cdef]\b"; then
      fail "PrivateData=jobs,usage: fwuser1's explain output names other users or accounts"
    else
      pass "PrivateData=jobs,usage: fwuser1's explain output names no other user or account"
    fi
  fi
  timeout 10 scontrol ping | grep -q UP && pass "PrivateData=$setting: controller up after all user queries" \
    || fail "PrivateData=$setting: controller down"
done

# Classic fairshare (NO_FAIR_TREE), still PrivateData=jobs,usage: there the
# user's own UE and S give F itself, recomputed and checked against sprio.
printf 'PrivateData=jobs,usage\nPriorityFlags=NO_FAIR_TREE\n' > "$dir/pd.conf"
since=$(date +%s)
restart_ctld "$c" priority/fairway "$dir/pd.conf" >/dev/null 2>&1 || fail "classic: restart"
for _ in $(seq 70); do [ "$(last_decay_ran "$c")" -ge "$since" ] && break; sleep 1; done
sleep 1
own_jobs_equal_sprio "PrivateData=jobs,usage, classic"
own=$dir/out/classic.explain.fwuser1.own
as fwuser1 "$FAIRWAY" explain job "${job[fwuser1]}" > "$own" 2>&1; rc=$?
[ $rc = 0 ] && grep -q "F from UE, S" "$own" && grep -q "^RESULT: the visible factors reproduce the controller's priority" "$own" \
  && pass "PrivateData=jobs,usage, classic: fwuser1's F recomputed from its UE and S: $(grep '^  fairshare' "$own" | tr -s ' ')" \
  || { fail "PrivateData=jobs,usage, classic: fwuser1's own job (rc=$rc)"; cat "$own"; }
plain_whatif "PrivateData=jobs,usage, classic"
summary
