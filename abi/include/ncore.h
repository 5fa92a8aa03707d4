/* ncore — a stable C ABI over NCCL, with a host backend for machines without
 * GPUs. Umbrella header: include this one. See docs/architecture.md. */
#ifndef NCORE_H
#define NCORE_H

#include "ncore/export.h"
#include "ncore/version.h"
#include "ncore/errors.h"
#include "ncore/types.h"
#include "ncore/comm.h"
#include "ncore/comm_control.h"
#include "ncore/launch.h"
#include "ncore/p2p.h"
#include "ncore/coll.h"
#include "ncore/resources.h"
#include "ncore/window.h"
#include "ncore/onesided.h"
#include "ncore/devcomm.h"
#include "ncore/memory.h"
#include "ncore/buffer.h"
#include "ncore/symmetric.h"
#include "ncore/info.h"
#include "ncore/team.h"
#include "ncore/cft.h"
#include "ncore/params.h"

#endif /* NCORE_H */
