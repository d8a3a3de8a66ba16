#!/bin/bash
# `fairway report` on a live cluster (issue 48, item 2; tool/report_model.h,
# doc/report.md). Jobs of known length run under the example tree; slurmdbd
# rolls them up (sacctmgr rollup); then:
# - by hour, by day and by week, every user's and account's usage equals the
#   jobs' CPU-seconds from sacct (ElapsedRaw x AllocCPUS), to the second, and
#   each delivered share is that usage over its parent's and the root's;
# - each entitled level share equals sshare's NormShares (Fair Tree, the
#   default) to sshare's 6 decimals, for every association sshare lists
#   (users with no job, Fairshare=parent and the deleted one included);
# - a deleted association keeps its usage in its parent, flagged, entitled 0;
# - hours before the cluster existed are reported missing, totals unchanged;
# - a time zone other than slurmdbd's is flagged (misaligned day rows);
# - fairway metrics --delivered-days exports the same delivered shares;
# - JSON parses, and --plot draws PNG charts and the heat map;
# - a generated year of a 1,000-user tree reports in seconds, usage exact
#   (FW_REPORT_PLOTS=DIR: copies the example's plots there, for doc/).
set -u
. "$(dirname "$0")/lib.sh"

dir=$(mktemp -d /tmp/fairway-report.XXXXXX)
chmod 755 "$dir"
trap 'stop_cluster "$dir/c"; rm -rf "$FW_PLUGIN_DIR"; [ -n "${FW_KEEP:-}" ] || rm -rf "$dir"' EXIT
prepare_plugin_dir || exit 1

log "report: a cluster with priority/fairway and jobs of known length"
start_cluster "$dir/c" priority/fairway || { fail "cluster start"; summary; exit 1; }
export MYSQL_UNIX_PORT="$dir/c/run/mysql.sock"
create_example_tree
hour=$(date -d "$(date +%Y-%m-%dT%H:00:00)" +%s)
submit_as fwuser1 -n1 --wrap 'sleep 5' > /dev/null
submit_as fwuser2 -n2 --wrap 'sleep 4' > /dev/null
submit_as fwuser3 -n1 --wrap 'sleep 3' > /dev/null
submit_as fwuser4 -n1 --wrap 'sleep 6' > /dev/null
# fwuser5 runs nothing: a user with no usage.
{ wait_jobs_done && wait_accounting_done; } || fail "the jobs did not finish"
# fwuser3 leaves: slurmdbd keeps the association, deleted, with its job.
sacctmgr -i remove user fwuser3 account=c > /dev/null
sacct -a -X -n -P -o account,user,elapsedraw,alloccpus > "$dir/sacct"
sshare -a -P -o account,user,normshares > "$dir/sshare"

# Roll up from the jobs' hour to tomorrow's midnight: the hours and today.
now=$(date +%s)
next_hour=$(( $(date -d "$(date -d @"$now" +%Y-%m-%dT%H:00:00)" +%s) + 3600 ))
today=$(date -d "$(date +%Y-%m-%d)" +%s)
tomorrow=$(date -d "$(date -d @$((today + 86400 + 7200)) +%Y-%m-%d)" +%s)
sacctmgr -i rollup "$(date -d @"$hour" +%Y-%m-%dT%H:%M:%S)" "$(date -d @"$tomorrow" +%Y-%m-%dT%H:%M:%S)" > /dev/null \
  || fail "sacctmgr rollup failed"

# check_usage NAME CSV: every total row against sacct and its own ratios.
check_usage() {
  local name=$1 csv=$2 out
  out=$(/usr/bin/python3 - "$csv" "$dir/sacct" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["bucket"] == "total"]
jobs = {}
for line in open(sys.argv[2]):
    acct, user, elapsed, cpus = line.strip().split("|")
    jobs[(acct, user)] = jobs.get((acct, user), 0) + int(elapsed) * int(cpus)
parent_of = {"a": "root", "b": "a", "c": "a", "d": "root", "e": "d", "f": "d"}
def subtree(acct):
    kids = [k for k, p in parent_of.items() if p == acct]
    return sum(v for (a, u), v in jobs.items() if a == acct) + sum(subtree(k) for k in kids)
usage = {(r["account"], r["user"]): int(r["usage_secs"]) for r in rows}
bad = []
for (acct, user), secs in usage.items():
    want = jobs.get((acct, user), 0) if user else subtree(acct)
    if secs != want:
        bad.append(f"{acct}/{user} {secs} != {want}")
root = usage[("root", "")]
for r in rows:
    if root and r["delivered_cluster"] and abs(float(r["delivered_cluster"]) - int(r["usage_secs"]) / root) > 1e-8:
        bad.append(f'{r["account"]}/{r["user"]} delivered_cluster {r["delivered_cluster"]}')
print(len(rows), sum(jobs.values()), len(bad), "; ".join(bad[:4]))
PY
)
  read -r n total nbad rest <<< "$out"
  if [ "${n:-0}" -ge 13 ] && [ "${total:-0}" -gt 0 ] && [ "$nbad" = 0 ]; then
    pass "$name: $n associations' usage equals sacct's CPU-seconds ($total in all), delivered = usage / root"
  else
    fail "$name: $nbad of $n associations differ from sacct: $rest"
  fi
}

hs=$(date -d @"$hour" +%Y-%m-%dT%H:%M:%S) he=$(date -d @"$next_hour" +%Y-%m-%dT%H:%M:%S)
"$FAIRWAY" report --by hour --start "$hs" --end "$he" --format csv > "$dir/hour.csv" 2> "$dir/hour.err" \
  || fail "report --by hour failed: $(head -3 "$dir/hour.err")"
check_usage "by hour" "$dir/hour.csv"
"$FAIRWAY" report --by day --start "$(date -d @"$today" +%Y-%m-%d)" --end "$(date -d @"$tomorrow" +%Y-%m-%d)" \
  --format csv > "$dir/day.csv" 2> "$dir/day.err" || fail "report --by day failed: $(head -3 "$dir/day.err")"
check_usage "by day" "$dir/day.csv"
"$FAIRWAY" report --by week --start "$(date -d @"$today" +%Y-%m-%d)" --end "$(date -d @"$tomorrow" +%Y-%m-%d)" \
  --format csv > "$dir/week.csv" 2> "$dir/week.err" || fail "report --by week failed: $(head -3 "$dir/week.err")"
check_usage "by week" "$dir/week.csv"

# Entitled level shares against sshare's NormShares; the deleted user.
out=$(/usr/bin/python3 - "$dir/hour.csv" "$dir/sshare" "$dir/sacct" <<'PY'
import csv, sys
rows = {(r["account"], r["user"]): r for r in csv.DictReader(open(sys.argv[1])) if r["bucket"] == "total"}
lines = [l.rstrip("\n").split("|") for l in open(sys.argv[2])][1:]
bad, checked = [], 0
for acct, user, norm in lines:
    acct = acct.strip()
    r = rows.get((acct, user))
    if r is None:
        bad.append(f"{acct}/{user} missing"); continue
    if acct == "root" and not user:
        continue  # the root: sshare prints no NormShares for it
    checked += 1
    mine = r["entitled_level"]
    if r["shares"] == "parent":
        # sshare shows the fs parent's share for a Fairshare=parent user;
        # the report defines none (it competes as its parent).
        if mine != "": bad.append(f"{acct}/{user} parent has {mine}")
        continue
    if abs(float(mine) - float(norm)) > 5e-7:
        bad.append(f"{acct}/{user} {mine} != {norm}")
gone = rows.get(("c", "fwuser3"))
# Its CPU-seconds as sacct has them: 'sleep 3' ran 3 or, on a loaded
# machine, 4 seconds.
ran = sum(int(e) * int(c) for a, u, e, c in (l.strip().split("|") for l in open(sys.argv[3]))
          if (a, u) == ("c", "fwuser3"))
deleted_ok = gone is not None and gone["deleted"] == "1" and gone["entitled_machine"] == "0" \
    and ran >= 3 and int(gone["usage_secs"]) == ran
why = "absent" if gone is None else \
    f'deleted={gone["deleted"]} entitled={gone["entitled_machine"]} usage={gone["usage_secs"]} sacct={ran}'
print(checked, len(bad), int(deleted_ok), why.replace(" ", ","), "; ".join(bad[:4]))
PY
)
read -r checked nbad deleted_ok why rest <<< "$out"
if [ "${checked:-0}" -ge 11 ] && [ "$nbad" = 0 ]; then
  pass "entitled level share equals sshare's NormShares for all $checked associations sshare lists"
else
  fail "entitled level shares: $nbad differ of $checked: $rest"
fi
if [ "$deleted_ok" = 1 ]; then
  pass "the deleted association c/fwuser3 is listed, flagged, entitled 0, with its CPU-seconds as sacct has them ($why)"
else
  fail "the deleted association c/fwuser3 is not reported as defined ($why)"
fi

# fairway metrics --delivered-days: the same shares as report's, parsed.
"$FAIRWAY" metrics --delivered-days 1 --delivered-tres cpu > "$dir/metrics.txt" 2> "$dir/metrics.err" \
  || fail "fairway metrics --delivered-days failed: $(head -2 "$dir/metrics.err")"
out=$(/usr/bin/python3 - "$dir/metrics.txt" "$dir/hour.csv" <<'PY'
import csv, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
got = {}
for fam in text_string_to_metric_families(open(sys.argv[1]).read()):
    for s in fam.samples:
        if s.name == "slurm_assoc_delivered_share":
            got[(s.labels["account"], s.labels["user"])] = s.value
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r["bucket"] == "total" and r["delivered_cluster"]]
bad = [f'{r["account"]}/{r["user"]}' for r in rows
       if abs(got.get((r["account"], r["user"]), -1) - float(r["delivered_cluster"])) > 1e-8]
print(len(rows), len(bad), " ".join(bad[:3]))
PY
)
read -r n nbad rest <<< "$out"
if [ "${n:-0}" -ge 12 ] && [ "$nbad" = 0 ]; then
  pass "fairway metrics --delivered-days 1: slurm_assoc_delivered_share of $n associations equals report's (parsed as OpenMetrics)"
else
  fail "fairway metrics --delivered-days: $nbad of $n differ from report: $rest $(head -2 "$dir/metrics.err")"
fi

# Missing roll-ups: three hours before the cluster existed.
"$FAIRWAY" report --by hour --start "$(date -d @$((hour - 3 * 3600)) +%Y-%m-%dT%H:%M:%S)" --end "$he" \
  --format csv > "$dir/missing.csv" 2> "$dir/missing.err"
if grep -q "3 of .* hour buckets have no roll-up" "$dir/missing.err" \
   && diff <(grep '^total' "$dir/hour.csv" | cut -d, -f5-) <(grep '^total' "$dir/missing.csv" | cut -d, -f5-) > /dev/null; then
  pass "three hours without roll-ups are reported missing and leave the totals unchanged"
else
  fail "missing roll-ups: $(head -2 "$dir/missing.err")"
fi

# Another time zone than slurmdbd's (UTC here): day rows misaligned.
"$FAIRWAY" report --by day --tz Asia/Kolkata --start "$(date -d @"$today" +%Y-%m-%d)" \
  --end "$(date -d @"$tomorrow" +%Y-%m-%d)" --format csv > /dev/null 2> "$dir/tz.err"
if grep -q "do not start at a local day boundary in time zone IST" "$dir/tz.err"; then
  pass "--tz Asia/Kolkata against slurmdbd's UTC roll-ups is flagged: $(grep -o '[0-9]* roll-up rows' "$dir/tz.err")"
else
  fail "a time zone other than slurmdbd's is not flagged: $(head -2 "$dir/tz.err")"
fi

# JSON and plots.
"$FAIRWAY" report --by hour --start "$hs" --end "$he" --format json --plot "$dir/plots" > "$dir/report.json" 2> "$dir/plot.err"
if /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["nodes"]) >= 13 and d["buckets"]' "$dir/report.json" \
   && [ "$(head -c 4 "$dir/plots/heatmap.png" | tail -c 3)" = PNG ] && ls "$dir"/plots/share-*.png > /dev/null 2>&1; then
  pass "JSON parses; --plot drew $(ls "$dir"/plots/*.png | wc -l) PNG files"
else
  fail "JSON or plots: $(head -3 "$dir/plot.err")"
fi

# A year of a 1,000-user tree, and the small tree of doc/report.md: rows
# generated by report_data.py (seeded) into a scratch database on the same
# server, tables made LIKE slurmdbd's own, read by the report as clusters
# "scale" and "example".
sql() { mariadb --no-defaults --local-infile=1 -S "$MYSQL_UNIX_PORT" -u root "$@"; }
load_cluster() {  # NAME DATA_DIR
  local name=$1 data=$2
  sql fwreport <<SQL || return 1
CREATE TABLE ${name}_assoc_table LIKE slurm_acct_db.fairway_assoc_table;
CREATE TABLE ${name}_assoc_usage_day_table LIKE slurm_acct_db.fairway_assoc_usage_day_table;
CREATE TABLE ${name}_usage_day_table LIKE slurm_acct_db.fairway_usage_day_table;
LOAD DATA LOCAL INFILE '$data/assoc.tsv' INTO TABLE ${name}_assoc_table
  (id_assoc, user, acct, \`partition\`, parent_acct, shares, deleted) SET creation_time = 0;
LOAD DATA LOCAL INFILE '$data/assoc_usage.tsv' INTO TABLE ${name}_assoc_usage_day_table
  (id, id_tres, time_start, alloc_secs) SET creation_time = 0;
LOAD DATA LOCAL INFILE '$data/usage.tsv' INTO TABLE ${name}_usage_day_table
  (id_tres, time_start, count, alloc_secs, down_secs, pdown_secs, idle_secs, plan_secs, over_secs)
  SET creation_time = 0;
SQL
}
sql -e "CREATE DATABASE fwreport; CREATE TABLE fwreport.tres_table LIKE slurm_acct_db.tres_table;
  INSERT INTO fwreport.tres_table SELECT * FROM slurm_acct_db.tres_table;
  GRANT SELECT ON fwreport.* TO 'slurm'@'localhost';" || fail "scratch database"
sed 's/^StorageLoc=.*/StorageLoc=fwreport/' "$dir/c/etc/slurmdbd.conf" > "$dir/fwreport-dbd.conf"
chmod 600 "$dir/fwreport-dbd.conf"
year_start=$(( (now / 86400 - 400) * 86400 ))  # a UTC midnight, 400 days ago
mkdir -p "$dir/scale" "$dir/example"
/usr/bin/python3 "$FW_TOP/test/integration/report_data.py" scale "$dir/scale" "$year_start" 365 48
/usr/bin/python3 "$FW_TOP/test/integration/report_data.py" example "$dir/example" "$year_start" 56
load_cluster scale "$dir/scale" && load_cluster example "$dir/example" || fail "loading the generated roll-ups"
report_scale() {
  TZ=UTC "$FAIRWAY" report --cluster scale --slurm-conf /dev/null --slurmdbd-conf "$dir/fwreport-dbd.conf" \
    --start "$year_start" --end "$((year_start + 365 * 86400))" "$@"
}
t0=$(date +%s%N)
report_scale --by day --format csv > "$dir/scale.csv" 2> "$dir/scale.err" || fail "report on the year: $(head -2 "$dir/scale.err")"
t1=$(date +%s%N)
report_scale --by week > /dev/null 2>> "$dir/scale.err" || fail "report --by week on the year"
t2=$(date +%s%N)
out=$(/usr/bin/python3 - "$dir/scale.csv" "$dir/scale/expected.tsv" <<'PY'
import csv, sys
want = {a: int(b) for a, b in (l.split() for l in open(sys.argv[2]))}
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["bucket"] == "total" and r["user"]]
users = {r["user"]: int(r["usage_secs"]) for r in rows}
bad = [u for u in users if users[u] != want.get(u, 0)]
print(len(rows), sum(users.values()), sum(want.values()), len(bad))
PY
)
read -r nusers got want nbad <<< "$out"
day_ms=$(( (t1 - t0) / 1000000 )) week_ms=$(( (t2 - t1) / 1000000 ))
if [ "${nusers:-0}" = 1000 ] && [ "$nbad" = 0 ] && [ "$got" = "$want" ] && [ "$day_ms" -lt 30000 ]; then
  pass "a year of a 1,000-user tree ($(wc -l < "$dir/scale/assoc_usage.tsv") usage rows): by day in ${day_ms} ms, by week in ${week_ms} ms; every user's usage as generated"
else
  fail "the year of 1,000 users: $nusers users, $nbad differ, usage $got != $want, ${day_ms} ms"
fi
for by in week day; do
  TZ=UTC "$FAIRWAY" report --cluster example --slurm-conf /dev/null --slurmdbd-conf "$dir/fwreport-dbd.conf" \
    --start "$year_start" --end "$((year_start + 56 * 86400))" --by "$by" --plot "$dir/example-$by" \
    > "$dir/example-$by.txt" 2>&1 || fail "the example report --by $by: $(tail -2 "$dir/example-$by.txt")"
done
if [ -n "${FW_REPORT_PLOTS:-}" ]; then
  cp "$dir/example-week/heatmap.png" "$FW_REPORT_PLOTS/report-heatmap.png"
  cp "$dir/example-day/share-root.png" "$FW_REPORT_PLOTS/report-share-root.png"
  cp "$dir/example-day/share-physics.png" "$FW_REPORT_PLOTS/report-share-physics.png"
  cp "$dir/example-week.txt" "$FW_REPORT_PLOTS/report-example.txt"
fi

summary
