/* core/host — the host backend's operation table (core/backend.h). */
#include "../backend.h"
#include "cft.h"
#include "coll.h"
#include "comm_control.h"
#include "comm_create.h"
#include "comm_lifecycle.h"
#include "comm_query.h"
#include "custom_redop.h"
#include "devcomm.h"
#include "group.h"
#include "memory.h"
#include "onesided.h"
#include "p2p.h"
#include "registered_buffer.h"
#include "stream.h"
#include "symmetric.h"
#include "window.h"

/* Shared memory and OFD locks exist on every Linux: always usable. */
static ncore_status_t host_probe(void) { return NCORE_OK; }

/* The host backend implements every call (ncore/comm_control.h). */
static void host_describe(ncore_library_info_t *out) {
  out->features = NCORE_FEATURE_ONE_SIDED | NCORE_FEATURE_REVOKE | NCORE_FEATURE_GROW |
                  NCORE_FEATURE_SUSPEND | NCORE_FEATURE_MEM_STAT |
                  NCORE_FEATURE_SCALABLE_INIT;
}

const core_backend_ops_t core_host_backend = {
    .kind = NCORE_BACKEND_HOST,
    .name = "host",
    /* Buffers in host memory; no devices (device -1); device communicators
     * describe the host team and take no NCCL requirement lists. */
    .caps = {.memory = NCORE_DEVICE_CPU,
             .devices = 0,
             .dev_comm_requirement_lists = 0},
    .probe = host_probe,
    .describe = host_describe,
    .get_unique_id = host_get_unique_id,
    .comm_init_rank = host_comm_init_rank,
    .comm_init_all = host_comm_init_all,
    .comm_split = host_comm_split,
    .comm_shrink = host_comm_shrink,
    .comm_finalize = host_comm_finalize,
    .comm_abort_signal = host_comm_abort_signal,
    .comm_destroy = host_comm_destroy,
    .comm_forget = host_comm_forget,
    .comm_info = host_comm_info,
    .comm_async_error = host_comm_async_error,
    .comm_synchronize = host_comm_synchronize,
    .comm_properties = host_comm_properties,
    .comm_revoke = host_comm_revoke,
    .comm_get_unique_id = host_comm_get_unique_id,
    .comm_grow = host_comm_grow,
    .comm_suspend = host_comm_suspend,
    .comm_resume = host_comm_resume,
    .comm_mem_stat = host_comm_mem_stat,
    .group_start = host_group_start,
    .group_end = host_group_end,
    .send = host_send,
    .recv = host_recv,
    .collective = host_collective,
    .buffer_register = host_buffer_register,
    .buffer_deregister = host_buffer_deregister,
    .redop_create_pre_mul_sum = host_redop_create_pre_mul_sum,
    .redop_destroy = host_redop_destroy,
    .window_register = host_window_register,
    .window_deregister = host_window_deregister,
    .window_peer_size = host_window_peer_size,
    .window_lsa_pointer = host_window_lsa_pointer,
    .window_peer_pointer = host_window_peer_pointer,
    .window_multimem_pointer = host_window_multimem_pointer,
    .cft_team = host_cft_team,
    .window_le_info = host_window_le_info,
    /* No multimem here: no multicast address, *out stays NULL. */
    .window_team_multimem_pointer = NULL,
    .signal = host_signal,
    .wait_signal = host_wait_signal,
    .put_signal = host_put_signal,
    .dev_comm_create = host_dev_comm_create,
    .dev_comm_destroy = host_dev_comm_destroy,
    .dev_comm_pointer = host_dev_comm_pointer,
    .dev_comm_info = host_dev_comm_info,
    .symmetric_alloc = host_symmetric_alloc,
    .symmetric_free = host_symmetric_free,
    .symmetric_local_pointer = host_symmetric_local_pointer,
    .symmetric_peer_pointer = host_symmetric_peer_pointer,
    .symmetric_put = host_symmetric_put,
    .symmetric_get = host_symmetric_get,
    .mem_alloc = host_mem_alloc,
    .mem_free = host_mem_free,
    .device_count = host_device_count,
    .device_set = host_device_set,
    .device_get = host_device_get,
    .stream_create = host_stream_create,
    .stream_destroy = host_stream_destroy,
    .stream_synchronize = host_stream_synchronize,
    .stream_check = host_stream_check,
    .memcpy_async = host_memcpy_async,
    .memset_async = host_memset_async,
};
