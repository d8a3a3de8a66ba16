#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Times the job write-lock holds of slurmctld's decay thread, for any
priority plugin, with uprobes on lock_slurmctld and unlock_slurmctld.

multifactor logs nothing about its lock: this measures both plugins the same
way, from outside. Needs root and a kernel with uprobe events (tracefs).

  lock_holds.py start --pid PID --comm NAME   probes on, for that thread only
  lock_holds.py stop --raw FILE               probes off, the trace to FILE
  lock_holds.py summary FILE                  key=value figures (ms)

A hold runs from lock_slurmctld's return to unlock_slurmctld's entry, for
the calls whose job lock level is WRITE_LOCK. slurmctld_lock_t (five enum
fields, 20 bytes) is passed on the stack: at the function's entry the job
field is at 12(%sp). Holds further apart than PASS_GAP_S belong to
different passes. The trace clock prints microseconds.
"""
import argparse
import os
import re
import subprocess
import sys

TRACEFS = "/sys/kernel/tracing"
GROUP = "fwbench"
WRITE_LOCK = 2
PASS_GAP_S = 10.0
EVENTS = ("lock", "locked", "unlock")  # the probes, in the order start defines them


def tracefs_ready():
    if not os.path.exists(os.path.join(TRACEFS, "uprobe_events")):
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS],
                       stderr=subprocess.DEVNULL, check=False)
    return os.path.exists(os.path.join(TRACEFS, "uprobe_events"))


def write(path, text, append=False):
    # os.open: Python's append mode seeks to the end, which tracefs refuses.
    flags = os.O_WRONLY | (os.O_APPEND if append else os.O_TRUNC)
    fd = os.open(os.path.join(TRACEFS, path), flags)
    try:
        os.write(fd, (text + "\n").encode())
    finally:
        os.close(fd)


def file_offset(binary, symbol):
    """The symbol's offset in the file (what uprobes want), from its address
    and the LOAD segment that holds it."""
    syms = subprocess.run(["readelf", "-W", "--dyn-syms", binary], capture_output=True,
                          text=True, check=True).stdout
    address = None
    for line in syms.splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[7].split("@")[0] == symbol and fields[3] == "FUNC":
            address = int(fields[1], 16)
            break
    if address is None:
        raise SystemExit(f"lock_holds.py: {symbol} not found in {binary}")
    segments = subprocess.run(["readelf", "-W", "-l", binary], capture_output=True, text=True,
                              check=True).stdout
    for line in segments.splitlines():
        fields = line.split()
        if fields and fields[0] == "LOAD":
            offset, vaddr, filesz = int(fields[1], 16), int(fields[2], 16), int(fields[4], 16)
            if vaddr <= address < vaddr + filesz:
                return address - vaddr + offset
    raise SystemExit(f"lock_holds.py: no LOAD segment holds {symbol} in {binary}")


def remove_probes():
    enable = os.path.join(TRACEFS, "events", GROUP, "enable")
    if os.path.exists(enable):
        write(f"events/{GROUP}/enable", "0")
    for name in EVENTS:
        if os.path.exists(os.path.join(TRACEFS, "events", GROUP, name)):
            write("uprobe_events", f"-:{GROUP}/{name}", append=True)


def start(pid, comm):
    if not tracefs_ready():
        raise SystemExit("lock_holds.py: no tracefs with uprobe events")
    tid = None
    for task in os.listdir(f"/proc/{pid}/task"):
        try:  # RPC threads come and go
            with open(f"/proc/{pid}/task/{task}/comm") as f:
                if f.read().strip() == comm:
                    tid = int(task)
        except FileNotFoundError:
            continue
    if tid is None:
        raise SystemExit(f"lock_holds.py: no thread {comm} in process {pid}")
    binary = os.path.realpath(f"/proc/{pid}/exe")
    lock = file_offset(binary, "lock_slurmctld")
    unlock = file_offset(binary, "unlock_slurmctld")
    remove_probes()
    write("uprobe_events", f"p:{GROUP}/lock {binary}:{lock:#x} job=+12(%sp):u32", append=True)
    write("uprobe_events", f"r:{GROUP}/locked {binary}:{lock:#x}", append=True)
    write("uprobe_events", f"p:{GROUP}/unlock {binary}:{unlock:#x} job=+12(%sp):u32",
          append=True)
    for name in EVENTS:
        write(f"events/{GROUP}/{name}/filter", f"common_pid == {tid}")
    write("trace", "")  # empties the buffer
    write(f"events/{GROUP}/enable", "1")


def stop(raw):
    if not os.path.exists(os.path.join(TRACEFS, "events", GROUP)):
        raise SystemExit("lock_holds.py: no probes were started")
    write(f"events/{GROUP}/enable", "0")
    with open(os.path.join(TRACEFS, "trace")) as f, open(raw, "w") as out:
        out.write(f.read())
    remove_probes()


EVENT = re.compile(r"\s(\d+\.\d+): (lock|locked|unlock): .*?(?:job=(\d+))?\s*$")


def holds_of(raw):
    """(start time, hold in ms) of every job write-lock hold in the trace."""
    holds = []
    pending_write = False  # the last lock_slurmctld call asked for job WRITE
    locked_at = None
    with open(raw) as f:
        for line in f:
            m = EVENT.search(line)
            if not m:
                continue
            t, event, job = float(m.group(1)), m.group(2), m.group(3)
            if event == "lock":
                pending_write = int(job) == WRITE_LOCK
                locked_at = None
            elif event == "locked":
                if pending_write:
                    locked_at = t
            elif int(job) == WRITE_LOCK and locked_at is not None:
                holds.append((locked_at, (t - locked_at) * 1e3))
                locked_at = None
    return holds


def summary(raw):
    holds = holds_of(raw)
    passes = []  # [total ms, longest ms, holds]
    last = None
    for t, ms in holds:
        if last is None or t - last > PASS_GAP_S:
            passes.append([0.0, 0.0, 0])
        passes[-1][0] += ms
        passes[-1][1] = max(passes[-1][1], ms)
        passes[-1][2] += 1
        last = t
    print(f"lock_passes={len(passes)}")
    if not passes:
        return
    print(f"lock_held_pass_max_ms={max(p[0] for p in passes):.3f}")
    print(f"lock_held_pass_mean_ms={sum(p[0] for p in passes) / len(passes):.3f}")
    print(f"lock_hold_longest_ms={max(p[1] for p in passes):.3f}")
    print("lock_pass_list=" + ", ".join(f"{p[0]:.3f} ms in {p[2]} (longest {p[1]:.3f})"
                                        for p in passes))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("start")
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--comm", required=True)
    p = sub.add_parser("stop")
    p.add_argument("--raw", required=True)
    p = sub.add_parser("summary")
    p.add_argument("raw")
    args = parser.parse_args()
    if args.command == "start":
        start(args.pid, args.comm)
    elif args.command == "stop":
        stop(args.raw)
    else:
        summary(args.raw)
    return 0


if __name__ == "__main__":
    sys.exit(main())
