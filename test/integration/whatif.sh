#!/bin/bash
# `fairway whatif` on a live cluster with priority/fairway (issue 48,
# item 1; tool/whatif_model.h):
# - its baseline (no change) equals the controller's priorities (exit 0);
# - --set PriorityWeightFairshare=0 takes each job's weighted fairshare
#   factor (sprio's FAIRSHARE) off its priority, and nothing else;
# - --shares c=400 predicts what the controller computes after the same
#   change made with sacctmgr and a pass: every pending job's priority
#   (within 1, for the age the jobs gain meanwhile) and every user's
#   FairShare (sshare's 6 decimals);
# - --plot draws a PNG.
set -u
. "$(dirname "$0")/lib.sh"

dir=$(mktemp -d /tmp/fairway-whatif.XXXXXX)
chmod 755 "$dir"
trap 'stop_cluster "$dir/c"; rm -rf "$FW_PLUGIN_DIR"; [ -n "${FW_KEEP:-}" ] || rm -rf "$dir"' EXIT
prepare_plugin_dir || exit 1

log "whatif: a cluster with priority/fairway, usage, and pending jobs on a drained node"
start_cluster "$dir/c" priority/fairway || { fail "cluster start"; summary; exit 1; }
create_example_tree
for u in fwuser1 fwuser2 fwuser2; do submit_as "$u" -n1 --wrap 'sleep 3' > /dev/null; done
{ wait_jobs_done && wait_accounting_done; } || fail "the usage jobs did not finish"
drain_node
for u in fwuser1 fwuser2 fwuser3 fwuser4 fwuser5 fwuser1 fwuser3; do
  submit_as "$u" -n1 --wrap 'sleep 1' > /dev/null
done
since=$(date +%s)
wait_pass_since "$dir/c" "$since" 150 || fail "no decay pass"
sleep 2

if "$FAIRWAY" whatif > "$dir/baseline" 2>&1 && grep -q "every priority equal to the controller's" "$dir/baseline"; then
  pass "baseline: $(head -1 "$dir/baseline")"
else
  fail "baseline: whatif without a change does not equal the controller"
  head -20 "$dir/baseline"
fi

# Without the fairshare weight: priority minus sprio's weighted FAIRSHARE.
sprio -h -o '%i %F' > "$dir/sprio_fs"
"$FAIRWAY" whatif --set PriorityWeightFairshare=0 --json > "$dir/weight0.json" 2> "$dir/weight0.err" \
  || fail "whatif --set PriorityWeightFairshare=0 failed: $(head -3 "$dir/weight0.err")"
check=$(/usr/bin/python3 - "$dir/weight0.json" "$dir/sprio_fs" <<'PY'
import json, sys
pred = json.load(open(sys.argv[1]))
fs = {int(a): float(b) for a, b in (l.split() for l in open(sys.argv[2]) if l.strip())}
bad = [j["job_id"] for j in pred["jobs"]
       if j["job_id"] not in fs or abs(j["priority"] - fs[j["job_id"]] - j["priority_after"]) > 1]
moved = pred["moved"]
print(f'{len(pred["jobs"])} {len(bad)} {moved}')
PY
)
read -r jobs bad moved <<< "$check"
if [ "${jobs:-0}" -ge 7 ] && [ "$bad" = 0 ] && [ "$moved" -gt 0 ]; then
  pass "--set PriorityWeightFairshare=0: each of $jobs jobs loses exactly its sprio FAIRSHARE; $moved change rank"
else
  fail "--set PriorityWeightFairshare=0: $bad of $jobs jobs do not lose their sprio FAIRSHARE (moved $moved)"
fi

# --shares against the same change made for real.
"$FAIRWAY" whatif --shares c=400 --json > "$dir/shares.json" 2> "$dir/shares.err" \
  || fail "whatif --shares failed: $(head -3 "$dir/shares.err")"
sacctmgr -i modify account c set fairshare=400 > /dev/null
since=$(date +%s)
wait_pass_since "$dir/c" "$since" 150 || fail "no decay pass after the sacctmgr change"
sleep 2
squeue -h -t PD -o '%i %Q' > "$dir/after.squeue"
sshare -a -P -o account,user,fairshare > "$dir/after.sshare"
/usr/bin/python3 - "$dir/shares.json" "$dir/after.squeue" "$dir/after.sshare" > "$dir/shares.check" <<'PY'
import json, sys
pred = json.load(open(sys.argv[1]))
actual = {int(a): int(b) for a, b in (l.split() for l in open(sys.argv[2]) if l.strip())}
bad = checked = changed = 0
for j in pred["jobs"]:
    a = actual.get(j["job_id"])
    checked += 1
    changed += j["priority_after"] != j["priority"]
    if a is None or abs(a - j["priority_after"]) > 1:
        bad += 1
        print(f'FAIL: job {j["job_id"]}: predicted {j["priority_after"]}, controller {a}')
fs = {}
for line in list(open(sys.argv[3]))[1:]:
    acct, user, f = line.rstrip("\n").split("|")
    if user:
        fs[(acct.strip(), user)] = float(f)
for u in pred["users"]:
    key = (u["account"], u["user"])
    if key in fs:
        checked += 1
        if abs(fs[key] - u["fairshare_after"]) > 5.01e-7:
            bad += 1
            print(f"FAIL: {key}: predicted FairShare {u['fairshare_after']:.6f}, sshare {fs[key]:.6f}")
print(f"{checked} {bad} {changed}")
PY
read -r checked bad changed <<< "$(tail -1 "$dir/shares.check")"
if [ "${checked:-0}" -ge 13 ] && [ "$bad" = 0 ] && [ "$changed" -gt 0 ]; then
  pass "--shares c=400: every job's priority ($changed changed) and every user's FairShare as the controller computes after sacctmgr sets it ($checked values)"
else
  fail "--shares c=400: $bad of $checked predictions differ from the controller after the change"
  grep FAIL "$dir/shares.check" | head -10
fi

if "$FAIRWAY" whatif --age +1d --plot "$dir/rank.png" > "$dir/plot.out" 2>&1 \
    && [ "$(head -c 4 "$dir/rank.png" | od -An -c | tr -d ' ')" = "211PNG" ]; then
  pass "--age +1d --plot: a PNG of old against new rank"
else
  fail "--plot: no PNG ($(tail -2 "$dir/plot.out"))"
fi
# FW_WHATIF_PLOTS=DIR: the example of doc/whatif.md, the queue without the
# fairshare weight (jobs do move), copied there.
if [ -n "${FW_WHATIF_PLOTS:-}" ]; then
  "$FAIRWAY" whatif --set PriorityWeightFairshare=0 --plot "$FW_WHATIF_PLOTS/whatif-rank.png" \
    > "$FW_WHATIF_PLOTS/whatif-example.txt" 2>&1 || fail "the example plot"
fi
summary
