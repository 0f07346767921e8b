/* SPDX-License-Identifier: MIT */
/* fault_store.c - see fault_store.h. */
#include "fault_store.h"

#include <pthread.h>
#include <stdlib.h>

struct fault_store {
  mcp_store_t *inner;
  pthread_mutex_t lock;
  unsigned ops;
  fs_kind kind;
  int left; /* -1: forever */
  unsigned failures;
};

static mcp_status injected(fault_store *f, unsigned op, mcp_error_t *err) {
  pthread_mutex_lock(&f->lock);
  bool fail = (f->ops & op) && f->left != 0;
  fs_kind kind = f->kind;
  if (fail) {
    if (f->left > 0)
      f->left--;
    f->failures++;
  }
  pthread_mutex_unlock(&f->lock);
  if (!fail)
    return MCP_OK;
  switch (kind) {
  case FS_ENOSPC:
    return mcp_error_set(err, MCP_ERR_IO,
                         "database or disk is full (SQLITE_FULL, ENOSPC)");
  case FS_BUSY:
    return mcp_error_set(err, MCP_ERR_IO, "database is locked (SQLITE_BUSY)");
  default:
    return mcp_error_set(err, MCP_ERR_IO, "disk I/O error (SQLITE_IOERR)");
  }
}

#define INNER(f) mcp_store_get_ops((f)->inner), mcp_store_impl((f)->inner)

static mcp_status fs_put(void *impl, const mcp_task_record *rec,
                         mcp_error_t *err) {
  fault_store *f = impl;
  mcp_status st = injected(f, FS_PUT, err);
  return st != MCP_OK ? st : mcp_store_task_put(f->inner, rec, err);
}

static mcp_status fs_get(void *impl, const char *scope, const char *id,
                         mcp_task_record *out, mcp_error_t *err) {
  fault_store *f = impl;
  mcp_status st = injected(f, FS_GET, err);
  return st != MCP_OK ? st : mcp_store_task_get(f->inner, scope, id, out, err);
}

static mcp_status fs_update(void *impl, const mcp_task_record *rec,
                            mcp_task_status *current, mcp_error_t *err) {
  fault_store *f = impl;
  mcp_status st = injected(f, FS_UPDATE, err);
  return st != MCP_OK ? st : mcp_store_task_update(f->inner, rec, current, err);
}

static mcp_status fs_list(void *impl, const char *scope,
                          const mcp_task_filter *filter, size_t limit,
                          mcp_task_visit_fn fn, void *ud, mcp_error_t *err) {
  fault_store *f = impl;
  mcp_status st = injected(f, FS_LIST, err);
  return st != MCP_OK
             ? st
             : mcp_store_task_list(f->inner, scope, filter, limit, fn, ud, err);
}

static mcp_status fs_delete(void *impl, const char *scope, const char *id,
                            mcp_error_t *err) {
  fault_store *f = impl;
  mcp_status st = injected(f, FS_DELETE, err);
  return st != MCP_OK ? st : mcp_store_task_delete(f->inner, scope, id, err);
}

static mcp_status fs_sweep(void *impl, const char *scope, int64_t now_ms,
                           int64_t retention_ms, mcp_task_removed_fn fn,
                           void *ud, mcp_error_t *err) {
  fault_store *f = impl;
  mcp_status st = injected(f, FS_SWEEP, err);
  return st != MCP_OK ? st
                      : mcp_store_task_sweep(f->inner, scope, now_ms,
                                             retention_ms, fn, ud, err);
}

static void fs_close(void *impl) {
  fault_store *f = impl;
  mcp_store_free(f->inner);
  pthread_mutex_destroy(&f->lock);
  free(f);
}

static const mcp_store_ops fault_ops = {1,         "fault",   fs_put,
                                        fs_get,    fs_update, fs_list,
                                        fs_delete, fs_sweep,  fs_close};

mcp_store_t *fault_store_new(mcp_store_t *inner, fault_store **ctl) {
  fault_store *f = calloc(1, sizeof *f);
  if (f == NULL)
    return NULL;
  f->inner = inner;
  pthread_mutex_init(&f->lock, NULL);
  mcp_store_t *s = NULL;
  if (mcp_store_new(&fault_ops, f, &s) != MCP_OK)
    return NULL; /* closed f (and inner) */
  *ctl = f;
  return s;
}

void fault_store_fail(fault_store *f, unsigned ops, fs_kind kind, int count) {
  pthread_mutex_lock(&f->lock);
  f->ops = ops;
  f->kind = kind;
  f->left = count;
  pthread_mutex_unlock(&f->lock);
}

unsigned fault_store_failures(fault_store *f) {
  pthread_mutex_lock(&f->lock);
  unsigned n = f->failures;
  pthread_mutex_unlock(&f->lock);
  return n;
}
