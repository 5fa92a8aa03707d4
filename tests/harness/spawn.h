/* tests/harness — starting a test's process: fork + exec of the running
 * program in its child mode. A bare fork is never used, because CUDA does
 * not survive fork() and the parent may already have initialised it. */
#ifndef NCORE_TESTS_SPAWN_H
#define NCORE_TESTS_SPAWN_H

#include <sys/types.h>

#include <ncore.h>

/* argv[1] of a child: prog HARNESS_CHILD_FLAG name rank nranks fd. */
#define HARNESS_CHILD_FLAG "--harness-child"

/* Environment variable carrying a multi-rank test's unique id (hex). */
#define HARNESS_ID_VARIABLE "NCORE_HARNESS_UNIQUE_ID"

/* Starts this program again in child mode to run test `name` as rank `rank`
 * of `nranks` (single-process tests: 0 of 1). id: the communicator's id for
 * multi-rank tests, NULL otherwise. With NCORE_OVERSUBSCRIBE set, the child
 * gets its own NCCL host identity (core_launch_isolate_host, core/launch_vars.h).
 * *report_fd receives the read end of the pipe the child reports through.
 * Returns the child's pid, or -1 (after perror) if it cannot start. */
pid_t harness_spawn(const char *name, int rank, int nranks,
                    const ncore_unique_id_t *id, int *report_fd);

#endif
