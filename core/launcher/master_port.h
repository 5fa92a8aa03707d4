/* core/launcher — the port ncore-run gives its ranks as MASTER_PORT. */
#ifndef NCORE_LAUNCHER_MASTER_PORT_H
#define NCORE_LAUNCHER_MASTER_PORT_H

#include <stddef.h>

/* Writes into out (size bytes, at least 6) the MASTER_PORT of this launch:
 * the caller's own MASTER_PORT where one is set, else a port free on
 * every address now, drawn at random from outside the range the kernel
 * hands out by itself (/proc/sys/net/ipv4/ip_local_port_range: a bind to
 * port 0, the local end of a connection), so that no socket of any
 * process can be given it in the moments before rank 0 binds it. NCCL,
 * and every job beside this one, makes such sockets all the time; rank 1
 * of a program that shares its id over MASTER_PORT (torchrun's
 * convention, which nccl.core programs follow) would otherwise meet one
 * of them and be reset. Where the kernel's range leaves no room, or no
 * drawn port is free, a port the kernel picks, as before. */
void launcher_choose_master_port(char *out, size_t size);

#endif
