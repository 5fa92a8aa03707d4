/* core/host — the host backend joins the ranks of one machine: where a
 * process runs, as far as sharing memory goes (identity.c). */
#ifndef NCORE_CORE_HOST_IDENTITY_H
#define NCORE_CORE_HOST_IDENTITY_H

#include <stdint.h>
#include "../backend.h"

/* Where a process runs, as far as sharing memory goes: the machine (its
 * boot id) and the namespaces the host backend's rendezvous and mappings
 * live in (an abstract socket is per network namespace; /proc/<pid>/fd
 * needs the peer in our PID namespace). identity.c. */
typedef struct host_identity {
  char boot_id[40];   /* /proc/sys/kernel/random/boot_id; "" if unknown */
  uint64_t net_ns;    /* inode of /proc/self/ns/net; 0 if unknown */
  uint64_t pid_ns;    /* inode of /proc/self/ns/pid; 0 if unknown */
} host_identity_t;

/* This process's identity (read once). */
const host_identity_t *host_identity_self(void);
/* INVALID_ARGUMENT (recorded, naming what differs) when an id made at
 * `made` cannot be joined from here: another machine or namespace. */
ncore_status_t host_identity_check(const host_identity_t *made);

#endif
