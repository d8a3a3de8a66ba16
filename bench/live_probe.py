#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Measure slurmctld's priority decay passes (used by bench/live.sh).

While N decay passes complete, two threads run side by side:
  * a sampler reads the decay thread's CPU time (first field of
    /proc/<pid>/task/<tid>/schedstat, ns) every --interval seconds;
  * a prober asks slurmctld for one job (REQUEST_JOB_INFO_SINGLE, what
    `scontrol show job <id>` sends; slurmctld serves it under the job read
    lock, so it waits while a pass holds the job write lock) every
    --probe-gap seconds and records each call's wall-clock latency. The
    call is slurm_load_job() from libslurm through ctypes, so that a call
    costs the RPC (about a millisecond) rather than starting a process
    (7-20 ms here, which hid lock holds shorter than that); with
    --probe scontrol, or when libslurm cannot be loaded, it runs scontrol.
A pass is counted complete when priority_last_decay_ran changes (both
plugins write it at the end of a pass). Afterwards the CPU samples are
grouped into passes (runs of increasing CPU time separated by > 1 s of
idleness); the pass window is from the last sample before the increase to
the first sample after it, and a probe is "in a pass" when its call overlaps
a window. Prints key=value lines on stdout.
"""
import argparse
import ctypes
import glob
import os
import statistics
import struct
import subprocess
import sys
import threading
import time


def find_tid(pid, comm):
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                if f.read().strip() == comm:
                    return int(tid)
        except OSError:
            pass
    return None


def last_decay_ran(state_dir):
    try:
        with open(os.path.join(state_dir, "priority_last_decay_ran"), "rb") as f:
            data = f.read(8)
        return struct.unpack(">q", data)[0] if len(data) == 8 else 0
    except OSError:
        return 0


class StepId(ctypes.Structure):
    """slurm_step_id_t of 26.05 (slurm-26-05-3-1:slurm/slurm.h): what its
    slurm_load_job takes instead of a job id."""
    _fields_ = [("sluid", ctypes.c_uint64), ("job_id", ctypes.c_uint32),
                ("step_het_comp", ctypes.c_uint32), ("step_id", ctypes.c_uint32)]


def libslurm_job_loader(job_id, libslurm=None, release=None):
    """A function that loads one job through libslurm (returns Slurm's
    return code), or None when libslurm is not usable here. libslurm: the
    library of the release the cluster runs (default the host's);
    release: its version ("26.05.3"; default 22.05), for the signature."""
    libs = [libslurm] if libslurm else (sorted(glob.glob("/usr/lib/*/libslurm.so*")) +
                                        sorted(glob.glob("/usr/lib/libslurm.so*")))
    if not libs:
        return None
    major_minor = tuple(int(x) for x in (release or "22.05").split(".")[:2])
    by_step_id = major_minor >= (26, 5)
    try:
        # RTLD_GLOBAL: the auth and hash plugins libslurm loads resolve
        # their Slurm symbols in it.
        lib = ctypes.CDLL(libs[0], mode=ctypes.RTLD_GLOBAL)
        lib.slurm_init.argtypes = [ctypes.c_char_p]
        lib.slurm_init.restype = None
        lib.slurm_load_job.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                       StepId if by_step_id else ctypes.c_uint32,
                                       ctypes.c_uint16]
        lib.slurm_load_job.restype = ctypes.c_int
        lib.slurm_free_job_info_msg.argtypes = [ctypes.c_void_p]
        lib.slurm_free_job_info_msg.restype = None
        lib.slurm_init(None)  # reads SLURM_CONF
    except (OSError, AttributeError):
        return None
    NO_VAL = 0xfffffffe
    job = StepId(0, job_id, NO_VAL, NO_VAL) if by_step_id else job_id

    def load():
        msg = ctypes.c_void_p()
        rc = lib.slurm_load_job(ctypes.byref(msg), job, 0)
        if rc == 0:
            lib.slurm_free_job_info_msg(msg)
        return rc

    return load if load() == 0 else None


def pct(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    k = min(len(s) - 1, max(0, int(round(p / 100.0 * len(s) + 0.5)) - 1))
    return s[k]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--comm", required=True, help="decay thread name (decay / fw_decay)")
    ap.add_argument("--state-dir", required=True)
    ap.add_argument("--job", required=True, help="job id to probe with scontrol show job")
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=400)
    ap.add_argument("--interval", type=float, default=0.01)
    ap.add_argument("--raw", help="write raw samples and probes to this file prefix")
    ap.add_argument("--probe", choices=["api", "scontrol"], default="api")
    ap.add_argument("--libslurm", help="libslurm of the cluster's release (default the host's)")
    ap.add_argument("--slurm-release", help="that release, e.g. 26.05.3 (default 22.05)")
    ap.add_argument("--probe-gap", type=float, default=0.002,
                    help="seconds between the end of one probe and the next")
    a = ap.parse_args()
    load_job = (libslurm_job_loader(int(a.job), a.libslurm, a.slurm_release)
                if a.probe == "api" else None)
    probe_kind = "slurm_load_job" if load_job else "scontrol"

    tid = find_tid(a.pid, a.comm)
    if tid is None:
        print(f"live_probe: no thread named {a.comm} in pid {a.pid}", file=sys.stderr)
        return 2
    schedstat = f"/proc/{a.pid}/task/{tid}/schedstat"
    stop = threading.Event()
    samples = []  # (t, cpu_ns)
    probes = []   # (t0, t1)

    def sampler():
        while not stop.is_set():
            try:
                with open(schedstat) as f:
                    cpu = int(f.read().split()[0])
            except OSError:
                break
            samples.append((time.time(), cpu))
            time.sleep(a.interval)

    def prober():
        cmd = ["scontrol", "show", "job", a.job]
        while not stop.is_set():
            t0 = time.time()
            if load_job:
                load_job()  # ctypes releases the GIL: the sampler keeps going
            else:
                subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            probes.append((t0, time.time()))
            time.sleep(a.probe_gap)

    threads = [threading.Thread(target=sampler), threading.Thread(target=prober)]
    for t in threads:
        t.start()
    t_start = time.time()
    last = last_decay_ran(a.state_dir)
    ends = []
    while len(ends) < a.passes and time.time() - t_start < a.timeout:
        time.sleep(0.1)
        now_ran = last_decay_ran(a.state_dir)
        if now_ran != last:
            ends.append(time.time())
            last = now_ran
    time.sleep(0.5)
    stop.set()
    for t in threads:
        t.join()

    # Group CPU increases into passes.
    passes = []  # [t_begin, t_end, cpu_ns]
    cur = None
    for i in range(1, len(samples)):
        t_prev, c_prev = samples[i - 1]
        t, c = samples[i]
        if c > c_prev:
            if cur is not None and t_prev - cur[1] <= 1.0:
                cur[1] = t
                cur[2] += c - c_prev
            else:
                if cur is not None:
                    passes.append(cur)
                cur = [t_prev, t, c - c_prev]
    if cur is not None:
        passes.append(cur)
    # Only passes that ended with a last_decay_ran change we saw (drops a
    # pass already under way when sampling began and stray wake-ups).
    complete = [p for p in passes if any(p[0] - 0.05 <= e <= p[1] + 1.5 for e in ends)]
    if complete and samples and complete[0][0] <= samples[0][0]:
        complete = complete[1:]

    def in_window(p0, p1):
        return any(p0 < w[1] and p1 > w[0] for w in complete)

    lat_in = [(p1 - p0) * 1000 for p0, p1 in probes if in_window(p0, p1)]
    lat_out = [(p1 - p0) * 1000 for p0, p1 in probes if not in_window(p0, p1)]

    cpu_ms = [p[2] / 1e6 for p in complete]
    wall_ms = [(p[1] - p[0]) * 1000 for p in complete]
    out = {
        "passes_seen": len(ends),
        "passes_measured": len(complete),
        "pass_cpu_ms": " ".join(f"{x:.2f}" for x in cpu_ms),
        "pass_cpu_ms_mean": f"{sum(cpu_ms) / len(cpu_ms):.2f}" if cpu_ms else "nan",
        "pass_cpu_ms_median": f"{statistics.median(cpu_ms):.2f}" if cpu_ms else "nan",
        "pass_cpu_ms_max": f"{max(cpu_ms):.2f}" if cpu_ms else "nan",
        "pass_wall_ms_mean": f"{sum(wall_ms) / len(wall_ms):.1f}" if wall_ms else "nan",
        "probes_total": len(probes),
        "probes_in_pass": len(lat_in),
        "lat_in_p50_ms": f"{pct(lat_in, 50):.2f}",
        "lat_in_p99_ms": f"{pct(lat_in, 99):.2f}",
        "lat_in_max_ms": f"{max(lat_in):.2f}" if lat_in else "nan",
        "lat_out_p50_ms": f"{pct(lat_out, 50):.2f}",
        "lat_out_p99_ms": f"{pct(lat_out, 99):.2f}",
        "lat_out_max_ms": f"{max(lat_out):.2f}" if lat_out else "nan",
        "sample_interval_ms": f"{a.interval * 1000:g}",
        "probe": probe_kind,
    }
    if a.raw:
        with open(a.raw + ".samples", "w") as f:
            f.writelines(f"{t:.6f} {c}\n" for t, c in samples)
        with open(a.raw + ".probes", "w") as f:
            f.writelines(f"{p0:.6f} {p1:.6f}\n" for p0, p1 in probes)
        with open(a.raw + ".passes", "w") as f:
            f.writelines(f"{p[0]:.6f} {p[1]:.6f} {p[2]}\n" for p in complete)
    for k, v in out.items():
        print(f"{k}={v}")
    return 0 if len(complete) >= 1 else 1


if __name__ == "__main__":
    sys.exit(main())
