#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Generated slurmdbd roll-up tables for `fairway report` (report.sh).

Writes tab-separated files for LOAD DATA into a scratch database shaped
like slurmdbd's: CLUSTER_assoc_table, CLUSTER_assoc_usage_day_table and
CLUSTER_usage_day_table (TRES 1, cpu), plus expected.tsv with every
user's total usage over the period (by user name), which the report must match.

  report_data.py scale DIR START DAYS SEED   a 1,000-user tree, DAYS days
  report_data.py example DIR START DAYS      the small tree of doc/report.md

Seeded and replayable: the same arguments give the same files. START is
the Unix time of the first day's midnight in the report's time zone (UTC
in the tests); every day is 86,400 s.
"""
import random
import sys

CPUS = 4096


def write(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write("\t".join(str(v) for v in r) + "\n")


def assoc_row(i, user, acct, parent, shares, deleted=0):
    # Columns: id_assoc, user, acct, partition, parent_acct, shares,
    # deleted (the scratch table's own order; see report.sh).
    return (i, user, acct, "", parent, shares, deleted)


def scale_tree(rng):
    """root > 10 accounts > 10 sub-accounts each > 10 users each."""
    assocs = [assoc_row(1, "", "root", "", 1)]
    users = []
    next_id = 2
    for a in range(10):
        acct = f"dept{a:02d}"
        assocs.append(assoc_row(next_id, "", acct, "root", rng.randint(1, 100)))
        next_id += 1
        for g in range(10):
            group = f"{acct}g{g}"
            assocs.append(assoc_row(next_id, "", group, acct, rng.randint(1, 100)))
            next_id += 1
            for u in range(10):
                deleted = 1 if rng.random() < 0.02 else 0
                shares = 0x7FFFFFFF if rng.random() < 0.03 else rng.randint(1, 10)
                assocs.append(assoc_row(next_id, f"u{a}{g}{u}", group, "", shares, deleted))
                users.append((next_id, f"u{a}{g}{u}", rng.lognormvariate(0, 1.2) if rng.random() > 0.1 else 0))
                next_id += 1
    return assocs, users


def example_tree():
    """The doc's example: three groups whose delivery drifts over time."""
    assocs = [
        assoc_row(1, "", "root", "", 1),
        assoc_row(2, "", "physics", "root", 60),
        assoc_row(3, "", "chemistry", "root", 30),
        assoc_row(4, "", "biology", "root", 10),
        assoc_row(5, "alice", "physics", "", 1),
        assoc_row(6, "bob", "physics", "", 1),
        assoc_row(7, "carol", "chemistry", "", 2),
        assoc_row(8, "dave", "chemistry", "", 1),
        assoc_row(9, "erin", "biology", "", 1),
    ]
    return assocs


def example_usage(day, days, rng):
    """CPU-seconds per user on day `day` of `days`."""
    x = day / max(1, days - 1)
    # physics starts greedy and falls back; chemistry's carol ramps up;
    # biology is idle in the first weeks, then bursts.
    wanted = {
        5: 0.45 - 0.25 * x,
        6: 0.25 - 0.05 * x,
        7: 0.05 + 0.25 * x,
        8: 0.10,
        9: 0.0 if x < 0.4 else 0.15,
    }
    return {u: int(CPUS * 86400 * 0.8 * max(0.0, w) * rng.uniform(0.85, 1.15)) for u, w in wanted.items()}


def main():
    kind, out, start, days = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    rng = random.Random(int(sys.argv[5]) if len(sys.argv) > 5 else 48)
    usage, cluster, total = [], [], {}
    if kind == "scale":
        assocs, users = scale_tree(rng)
        for d in range(days):
            t = start + d * 86400
            for uid, name, weight in users:
                if weight and rng.random() < 0.7:
                    secs = int(weight * rng.uniform(0, 3600 * 8))
                    usage.append((uid, 1, t, secs))
                    total[name] = total.get(name, 0) + secs
            cluster.append((1, t, CPUS, 0, 0, 0, CPUS * 86400, 0, 0))
    else:
        assocs = example_tree()
        names = {a[0]: a[1] for a in assocs}
        for d in range(days):
            t = start + d * 86400
            for uid, secs in example_usage(d, days, rng).items():
                if secs:
                    usage.append((uid, 1, t, secs))
                    total[names[uid]] = total.get(names[uid], 0) + secs
            cluster.append((1, t, CPUS, 0, 0, 0, CPUS * 86400, 0, 0))
    write(f"{out}/assoc.tsv", assocs)
    # Columns: id, id_tres, time_start, alloc_secs.
    write(f"{out}/assoc_usage.tsv", usage)
    # Columns: id_tres, time_start, count, alloc_secs, down_secs,
    # pdown_secs, idle_secs, plan_secs, over_secs.
    write(f"{out}/usage.tsv", cluster)
    write(f"{out}/expected.tsv", sorted(total.items()))


if __name__ == "__main__":
    main()
