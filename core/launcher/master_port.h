/* core/launcher — the port ncore-run gives its ranks as MASTER_PORT. */
#ifndef NCORE_LAUNCHER_MASTER_PORT_H
#define NCORE_LAUNCHER_MASTER_PORT_H

#include <stddef.h>

/* A port free on every address now, drawn at random from outside the
 * range the kernel hands out by itself (/proc/sys/net/ipv4/ip_local_port_range:
 * a bind to port 0, the local end of a connection), so that no socket of
 * any process can be given it in the moments before its user binds it.
 * NCCL, and every job beside this one, makes such sockets all the time.
 * Where the kernel's range leaves no room, or no drawn port is free, a
 * port the kernel picks (29500, torchrun's default, if even that fails).
 * Used by ncore-run, and by tests/unit/test_store.c for its jobs' ports. */
int launcher_draw_free_port(void);

/* Writes into out (size bytes, at least 6) the MASTER_PORT of this launch:
 * the caller's own MASTER_PORT where one is set, else
 * launcher_draw_free_port()'s. Rank 1 of a program that shares its id
 * over MASTER_PORT (torchrun's convention, which nccl.core programs
 * follow) would otherwise meet a socket the kernel gave the port to, and
 * be reset. */
void launcher_choose_master_port(char *out, size_t size);

#endif
