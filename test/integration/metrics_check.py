#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`fairway metrics` against sshare and squeue on a live cluster.

Usage: metrics_check.py METRICS SSHARE SQUEUE_PD [PLUGIN NOW]
  METRICS    `fairway metrics` output, read with the Prometheus client
             library's OpenMetrics parser (a parse error fails);
  SSHARE     `sshare -a -l -P`, taken just before;
  SQUEUE_PD  `squeue -h -t PD -o '%Q %u %a'` (the pending jobs);
  PLUGIN     the controller's priority plugin: with "fairway" the pass
             statistics (fairway_pass_*) must be there and consistent:
             the last pass ended within 300 s before NOW (unix seconds),
             it computed every pending job not held (squeue's priority
             above 0; no CALCULATE_RUNNING on the test cluster), stored
             and recomputed no more than that, took no negative time.
Every sshare row must have its association's samples: RawShares,
NormShares, RawUsage, NormUsage, EffectvUsage, FairShare and LevelFS equal
to sshare's within its rounding ("%f"; RawUsage an integer), a blank
column no sample; and every association's pending jobs and the highest
pending priority equal squeue's. Prints one line per difference and
"N passed, M failed" (one check per association and per column).
"""
import math
import sys
from collections import defaultdict

from prometheus_client.openmetrics.parser import text_string_to_metric_families

COLUMNS = {  # sshare column -> metric family
    "RawShares": "slurm_assoc_shares",
    "NormShares": "slurm_assoc_shares_norm",
    "RawUsage": "slurm_assoc_usage_raw",
    "NormUsage": "slurm_assoc_usage_norm",
    "EffectvUsage": "slurm_assoc_usage_effective",
    "FairShare": "slurm_assoc_fairshare",
    "LevelFS": "slurm_assoc_level_fs",
}


PASS_FAMILIES = [
    "fairway_pass_last_timestamp_seconds",
    "fairway_pass_duration_seconds",
    "fairway_pass_cpu_seconds",
    "fairway_pass_jobs_computed",
    "fairway_pass_jobs_stored",
    "fairway_pass_jobs_recomputed",
    "fairway_pass_jobs_charged",
    "fairway_pass_job_write_lock_held_seconds",
    "fairway_pass_job_write_lock_longest_hold_seconds",
    "fairway_pass_job_write_lock_holds",
]


def check_pass(unlabelled, not_held, now):
    """The fairway_pass_* samples against the queue; a list of failures."""
    problems = []
    if unlabelled.get("fairway_pass_stats_available") != 1:
        return [f"fairway_pass_stats_available is {unlabelled.get('fairway_pass_stats_available')}, not 1"]
    missing = [f for f in PASS_FAMILIES if f not in unlabelled]
    if missing:
        problems.append(f"missing families {missing}")
        return problems
    last = unlabelled["fairway_pass_last_timestamp_seconds"]
    if not now - 300 <= last <= now + 5:
        problems.append(f"last pass at {last:.0f}, {now - last:.0f} s before the check (not within 300 s)")
    computed = unlabelled["fairway_pass_jobs_computed"]
    if computed != not_held:
        problems.append(f"jobs computed {computed:.0f}, but squeue has {not_held} pending jobs not held")
    if not 0 <= unlabelled["fairway_pass_jobs_stored"] <= computed:
        problems.append(f"jobs stored {unlabelled['fairway_pass_jobs_stored']} not within [0, {computed}]")
    if not 0 <= unlabelled["fairway_pass_jobs_recomputed"] <= computed:
        problems.append(f"jobs recomputed {unlabelled['fairway_pass_jobs_recomputed']} not within [0, {computed}]")
    for f in PASS_FAMILIES:
        if unlabelled[f] < 0:
            problems.append(f"{f} is negative ({unlabelled[f]})")
    if unlabelled["fairway_pass_job_write_lock_longest_hold_seconds"] > \
            unlabelled["fairway_pass_job_write_lock_held_seconds"] + 1e-9:
        problems.append("the longest hold of the job write lock is longer than all holds together")
    if unlabelled["fairway_pass_job_write_lock_held_seconds"] > \
            unlabelled["fairway_pass_duration_seconds"] + 1e-3:
        problems.append("the job write lock was held longer than the pass took")
    return problems


def main(metrics_file, sshare_file, squeue_file, plugin=None, now=None):
    failed = passed = 0
    samples = defaultdict(dict)  # family -> (account, user, partition) -> value
    unlabelled = {}  # the pass statistics: family -> value
    with open(metrics_file) as f:
        for family in text_string_to_metric_families(f.read()):
            for s in family.samples:
                if not s.labels:
                    unlabelled[s.name] = s.value
                    continue
                if "tres" in s.labels:
                    continue
                key = (s.labels["account"], s.labels["user"], s.labels["partition"])
                samples[s.name][key] = s.value
    with open(sshare_file) as f:
        lines = [l.rstrip("\n") for l in f if l.strip()]
    header = lines[0].split("|")
    seen = set()
    for line in lines[1:]:
        row = dict(zip(header, line.split("|")))
        key = (row["Account"].strip(), row.get("User", ""), row.get("Partition", ""))
        seen.add(key)
        for column, family in COLUMNS.items():
            if column not in row:
                continue
            text, value = row[column].strip(), samples[family].get(key)
            if column == "RawShares" and text == "parent":
                text = ""
            if text == "":
                ok = value is None
            elif value is None:
                ok = False
            elif column == "RawUsage":
                ok = int(value) == int(text)
            elif text in ("inf", "+inf"):
                ok = math.isinf(value) and value > 0
            else:
                ok = abs(value - float(text)) <= 5.01e-7 * max(1.0, abs(value))
            if ok:
                passed += 1
            else:
                failed += 1
                print(f"FAIL: metrics: {key}: {column} sshare '{text}', metrics {value}")
    extra = [k for k in samples["slurm_assoc_usage_raw"] if k not in seen]
    if extra:
        failed += 1
        print(f"FAIL: metrics: associations sshare does not show: {extra}")
    pending = defaultdict(int)
    not_held_per_user = defaultdict(int)
    first = {}
    with open(squeue_file) as f:
        for line in f:
            prio, user, account = line.split()
            pending[(account, user)] += 1
            if int(prio) > 0:
                not_held_per_user[(account, user)] += 1
                first[(account, user)] = max(first.get((account, user), 0), int(prio))
    for key in seen:
        if key[2] != "" or key[1] == "":
            continue  # jobs are matched to user associations without a partition
        short = (key[0], key[1])
        got = samples["slurm_assoc_jobs_pending"].get(key)
        got_first = samples["slurm_assoc_first_pending_priority"].get(key)
        if got == pending.get(short, 0) and got_first == first.get(short):
            passed += 1
        else:
            failed += 1
            print(f"FAIL: metrics: {key}: pending {got} first {got_first}, "
                  f"squeue {pending.get(short, 0)} first {first.get(short)}")
    if plugin == "fairway":
        not_held = sum(first_count for first_count in not_held_per_user.values())
        problems = check_pass(unlabelled, not_held, int(now))
        if problems:
            failed += 1
            for p in problems:
                print(f"FAIL: metrics: pass statistics: {p}")
        else:
            passed += 1
            print(f"pass statistics: last pass {int(now) - unlabelled['fairway_pass_last_timestamp_seconds']:.0f} s "
                  f"before, {unlabelled['fairway_pass_duration_seconds']:.3f} s long, "
                  f"{unlabelled['fairway_pass_jobs_computed']:.0f} jobs computed (= squeue's {not_held} "
                  f"pending not held), {unlabelled['fairway_pass_jobs_stored']:.0f} stored, "
                  f"{unlabelled['fairway_pass_jobs_recomputed']:.0f} recomputed")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:6]))
