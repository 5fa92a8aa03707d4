/* core — the thread-local of core/thread_state.h. */
#include "thread_state.h"

_Static_assert(sizeof(core_thread_state_t) == 64,
               "a call's thread state must stay one cache line");

_Thread_local core_thread_state_t core_thread = {.error_function = "ncore"};
