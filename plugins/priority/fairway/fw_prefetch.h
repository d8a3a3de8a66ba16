/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Software prefetches, for the loops that read records scattered over the
 * heap (the pass's jobs, sprio's jobs, the associations).
 * test/prefetch_compiled.sh checks that the built plugin keeps them. */
#ifndef FAIRWAY_PLUGIN_FW_PREFETCH_H_
#define FAIRWAY_PLUGIN_FW_PREFETCH_H_

/* Ask for the cache line holding a field ahead of its use (for reading,
 * or for writing). A prefetch of memory since freed neither faults nor
 * reads it. */
#define FW_PREFETCH(address) __builtin_prefetch(address)
#define FW_PREFETCH_WRITE(address) __builtin_prefetch(address, 1)
/* A helper made only of prefetches must be inlined into its loop: GCC 12
 * at -O2 finds it has no side effects, marks it const and deletes the
 * calls to it (test/prefetch_compiled.sh checks the built plugin). */
#define FW_PREFETCH_HELPER static inline __attribute__((always_inline))

#endif /* FAIRWAY_PLUGIN_FW_PREFETCH_H_ */
