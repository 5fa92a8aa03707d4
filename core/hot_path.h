/* core — CORE_HOT marks the functions every collective, send and recv
 * runs through (from the entry point to NCCL's call and back). gcc puts
 * them in .text.hot, which the linker lays out together: the call's code
 * then fills fewer instruction-cache lines, which NCCL's enqueue evicts
 * between two calls (bench/gpu/entry_cost_profile.py counts them). */
#ifndef NCORE_CORE_HOT_PATH_H
#define NCORE_CORE_HOT_PATH_H

#define CORE_HOT __attribute__((hot))

#endif
