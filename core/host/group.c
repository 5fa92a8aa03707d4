/* core/host — running operations: alone (outside a group) or all the ops a
 * thread queued between group_start and group_end, progressed round-robin so
 * that sends, receives and collectives on several communicators never
 * deadlock each other. */
#include <stdlib.h>
#include <string.h>
#include "group.h"

#include "../error.h"
#include "../error_clear.h"
#include "failure.h"
#include "wait.h"

static _Thread_local int group_open;
static _Thread_local host_op_t *group_head, *group_tail;

/* The ops have failed with status: releases what they hold and fails every
 * communicator with an unfinished op (its peers would otherwise wait for a
 * step or a message that will not come). */
static ncore_status_t give_up(host_op_t *ops, ncore_status_t status) {
  for (host_op_t *op = ops; op; op = op->next) host_op_release(op);
  for (host_op_t *op = ops; op; op = op->next)
    if (op->phase >= 0) host_comm_fail_current(op->comm, status);
  return status;
}

/* 1 if a pending collective of ops was completed by a peer's commit and so
 * must be finished rather than abandoned (op->abandon, coll.c). */
static int must_finish(host_op_t *ops, ncore_status_t status) {
  int finish = 0;
  for (host_op_t *op = ops; op; op = op->next)
    if (op->phase >= 0 && op->abandon != NULL && !op->abandon(op, status))
      finish = 1;
  return finish;
}

ncore_status_t host_run_ops(host_op_t *ops) {
  host_waiter_t w;
  host_waiter_init(&w);
  /* A failure the waiter saw (a peer aborted, died, the timeout) ends the
   * ops only if one more sweep cannot finish them: a peer that aborted
   * right after giving us everything we needed must not fail us. */
  ncore_status_t failing = NCORE_OK;
  for (;;) {
    host_op_t *pending = NULL;
    int progressed = 0;
    for (host_op_t *op = ops; op; op = op->next) {
      if (op->phase < 0) continue;  /* done */
      int r = op->progress(op);
      if (r < 0) {
        ncore_status_t s = op->status != NCORE_OK ? op->status : core_error_current();
        return give_up(ops, s);
      }
      if (r == 1) {
        op->phase = -1;
        progressed = 1;
      } else {
        if (r == 2) progressed = 1;
        if (!pending) pending = op;
      }
    }
    if (!pending) {
      /* A tentative failure that progress overcame is no error. */
      if (failing != NCORE_OK) core_error_clear();
      return NCORE_OK;
    }
    if (progressed) {
      host_waiter_init(&w);  /* the timeout counts time without progress */
      if (failing != NCORE_OK) core_error_clear();
      failing = NCORE_OK;
      continue;
    }
    if (failing != NCORE_OK) {
      /* A step every rank posted and one completed cannot be given up:
       * finish it (the next sweep can) rather than disagree with them. */
      if (must_finish(ops, failing)) {
        core_error_clear();
        failing = NCORE_OK;
        continue;
      }
      return give_up(ops, failing);
    }
    failing = host_waiter_pause(&w, pending->comm, pending->what, pending->peer);
  }
}

ncore_status_t host_submit(host_op_t *op) {
  if (!group_open) {
    op->next = NULL;
    return host_run_ops(op);
  }
  host_op_t *copy = malloc(sizeof *copy);
  if (!copy) return core_error(NCORE_ERR_SYSTEM, "out of memory");
  memcpy(copy, op, sizeof *copy);
  copy->next = NULL;
  if (group_tail) group_tail->next = copy; else group_head = copy;
  group_tail = copy;
  return NCORE_OK;
}

/* group_start: opens the thread's queue (the core handles nesting). */
ncore_status_t host_group_start(void) {
  group_open = 1;
  return NCORE_OK;
}

/* group_end: runs everything queued, frees the queue. */
ncore_status_t host_group_end(void) {
  group_open = 0;
  host_op_t *ops = group_head;
  group_head = group_tail = NULL;
  /* What was queued on a communicator aborted (or failed) meanwhile does not
   * run, as it would not have outside the group. */
  ncore_status_t s = NCORE_OK;
  for (host_op_t *op = ops; op && s == NCORE_OK; op = op->next)
    s = host_comm_health(op->comm, 0);
  if (s != NCORE_OK) s = give_up(ops, s);
  else if (ops) s = host_run_ops(ops);
  while (ops) {
    host_op_t *next = ops->next;
    free(ops);
    ops = next;
  }
  return s;
}
