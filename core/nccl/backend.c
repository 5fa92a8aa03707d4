/* core/nccl — the NCCL backend's operation table (core/backend.h). */
#include <pthread.h>

#include "../backend.h"
#include "../log.h"
#include "cft.h"
#include "coll.h"
#include "comm_control.h"
#include "comm_create.h"
#include "comm_lifecycle.h"
#include "comm_query.h"
#include "comm_registry.h"
#include "custom_redop.h"
#include "devcomm.h"
#include "device.h"
#include "group.h"
#include "info.h"
#include "memory.h"
#include "nccl_lib.h"
#include "onesided.h"
#include "p2p.h"
#include "params.h"
#include "registered_buffer.h"
#include "stream.h"
#include "symmetric.h"
#include "window.h"
#include "window_pointer.h"

static pthread_once_t logged_once = PTHREAD_ONCE_INIT;

/* Says in the debug log which libnccl was loaded (once per process). */
static void log_loaded(void) {
  int devices = 0;
  if (cu_fn.DeviceGetCount != NULL) cu_fn.DeviceGetCount(&devices);
  core_log(CORE_LOG_INFO, "nccl: loaded %s (NCCL %s), %d CUDA device(s)",
           nccl_loaded_path(), nccl_version_text(nccl_runtime_version()),
           devices);
}

/* Loads libnccl.so.2 / libcuda.so.1 and finds a device, once. */
static ncore_status_t nccl_probe(void) {
  ncore_status_t status = nccl_load();
  if (status == NCORE_OK) pthread_once(&logged_once, log_loaded);
  return status;
}

const core_backend_ops_t core_nccl_backend = {
    .kind = NCORE_BACKEND_NCCL,
    .name = "nccl",
    /* Buffers in CUDA device memory; devices are CUDA ordinals; device
     * communicators take NCCL's requirement lists. */
    .caps = {.memory = NCORE_DEVICE_CUDA,
             .devices = 1,
             .dev_comm_requirement_lists = 1},
    .probe = nccl_probe,
    .describe = nccl_describe,
    .param_get = nccl_param_get,
    .param_keys = nccl_param_keys,
    .get_unique_id = nccl_get_unique_id,
    .comm_init_rank = nccl_comm_init_rank,
    .comm_init_all = nccl_comm_init_all,
    .comm_split = nccl_comm_split,
    .comm_shrink = nccl_comm_shrink,
    .comm_finalize = nccl_comm_finalize,
    .comm_abort_signal = nccl_comm_abort_signal,
    .comm_destroy = nccl_comm_destroy,
    .comm_forget = nccl_comm_forget,
    .comm_info = nccl_comm_info,
    .comm_async_error = nccl_comm_async_error,
    .comm_synchronize = nccl_comm_synchronize,
    .comm_properties = nccl_comm_properties,
    .comm_revoke = nccl_comm_revoke,
    .comm_get_unique_id = nccl_comm_get_unique_id,
    .comm_grow = nccl_comm_grow,
    .comm_suspend = nccl_comm_suspend,
    .comm_resume = nccl_comm_resume,
    .comm_mem_stat = nccl_comm_mem_stat,
    .group_start = nccl_group_start,
    .group_end = nccl_group_end,
    .send = nccl_send,
    .recv = nccl_recv,
    .collective = nccl_collective,
    .buffer_register = nccl_buffer_register,
    .buffer_deregister = nccl_buffer_deregister,
    .redop_create_pre_mul_sum = nccl_redop_create_pre_mul_sum,
    .redop_destroy = nccl_redop_destroy,
    .window_register = nccl_window_register_mapped,
    .window_deregister = nccl_window_deregister,
    .window_peer_size = nccl_window_peer_size,
    .window_lsa_pointer = nccl_window_lsa_pointer,
    .window_peer_pointer = nccl_window_peer_pointer,
    .window_multimem_pointer = nccl_window_multimem_pointer,
    .cft_team = nccl_cft_team,
    .window_le_info = nccl_window_le_info,
    .window_team_multimem_pointer = nccl_window_team_multimem_pointer,
    .signal = nccl_signal,
    .wait_signal = nccl_wait_signal,
    .put_signal = nccl_put_signal,
    .dev_comm_create = nccl_dev_comm_create,
    .dev_comm_destroy = nccl_dev_comm_destroy,
    .dev_comm_pointer = nccl_dev_comm_pointer,
    .dev_comm_info = nccl_dev_comm_info,
    .symmetric_alloc = nccl_symmetric_alloc,
    .symmetric_free = nccl_symmetric_free,
    .symmetric_local_pointer = nccl_symmetric_local_pointer,
    .symmetric_peer_pointer = nccl_symmetric_peer_pointer,
    .symmetric_put = nccl_symmetric_put,
    .symmetric_get = nccl_symmetric_get,
    .mem_alloc = nccl_mem_alloc,
    .mem_free = nccl_mem_free,
    .device_count = nccl_device_count,
    .device_set = nccl_device_set,
    .device_get = nccl_device_get,
    .stream_create = nccl_stream_create,
    .stream_destroy = nccl_comm_registry_stream_destroy,
    .stream_synchronize = nccl_stream_synchronize,
    .stream_check = nccl_stream_check,
    .comm_stream_check = nccl_comm_stream_check,
    .memcpy_async = nccl_memcpy_async,
    .memset_async = nccl_memset_async,
};
