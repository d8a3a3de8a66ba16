// SPDX-License-Identifier: GPL-2.0-or-later
// Helpers that only prefetch must be inlined into their loop. GCC 12 at -O2
// finds that a function made of __builtin_prefetch calls has no side
// effects, marks it const and deletes the calls to it: the priority pass's
// prefetches were compiled away that way (no prefetch instruction in the
// object) until they were declared with this. test/prefetch_compiled.sh
// checks the built plugin.
#ifndef FAIRWAY_PLUGIN_PREFETCH_H_
#define FAIRWAY_PLUGIN_PREFETCH_H_

#define FAIRWAY_PREFETCH_HELPER __attribute__((always_inline)) inline

#endif  // FAIRWAY_PLUGIN_PREFETCH_H_
