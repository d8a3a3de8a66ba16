/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decay_thread.c: the thread that runs the decay pass. Called by the
 * plugin's entry points (priority_fairway.c), with no lock of the plugin's
 * held. No Slurm type here. */
#ifndef FAIRWAY_PLUGIN_DECAY_THREAD_H_
#define FAIRWAY_PLUGIN_DECAY_THREAD_H_

#include <time.h>

/* At init: reads the decay clock (state files), so that fw_last_decay_ran
 * is right before any job ends. */
void fw_decay_thread_prepare(void);
/* Once slurmctld has loaded its jobs: starts the thread (prepared first if
 * need be); a second call does nothing. */
void fw_decay_thread_start(void);
/* Stops the thread and waits for it: no pass runs after it returns. */
void fw_decay_thread_stop(void);
/* The next pass reads the configuration again; returns at once. */
void fw_decay_thread_reconfig(void);
/* When the last pass ran (0 before the first), for job-end charging. Any
 * thread; no lock. */
time_t fw_last_decay_ran(void);

#endif /* FAIRWAY_PLUGIN_DECAY_THREAD_H_ */
