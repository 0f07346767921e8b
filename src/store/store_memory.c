/* SPDX-License-Identifier: MIT */
/* store_memory.c - the in-memory task store: a chained hash table keyed by
 * (scope, task id) under one mutex. Lists and sweeps scan every entry and
 * sort the matches, which is fine for the working sets a single process
 * holds; nothing survives the process. */
#include "store/store_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
  struct entry *next;
  uint64_t hash;
  mcp_task_record rec;
} entry;

typedef struct memstore {
  pthread_mutex_t lock;
  entry **buckets;
  size_t nbuckets; /* power of two */
  size_t count;
} memstore;

static uint64_t hash_key(const char *scope, const char *id) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (const char *p = scope; *p; p++)
    h = (h ^ (unsigned char)*p) * 1099511628211ull;
  h = (h ^ 0xff) * 1099511628211ull;
  for (const char *p = id; *p; p++)
    h = (h ^ (unsigned char)*p) * 1099511628211ull;
  return h;
}

static entry **find_slot(memstore *m, const char *scope, const char *id,
                         uint64_t h) {
  entry **pp = &m->buckets[h & (m->nbuckets - 1)];
  for (; *pp; pp = &(*pp)->next)
    if ((*pp)->hash == h && strcmp((*pp)->rec.task_id, id) == 0 &&
        strcmp((*pp)->rec.scope, scope) == 0)
      return pp;
  return pp;
}

static bool grow(memstore *m) {
  size_t n = m->nbuckets * 2;
  entry **b = calloc(n, sizeof *b);
  if (b == NULL)
    return false;
  for (size_t i = 0; i < m->nbuckets; i++)
    for (entry *e = m->buckets[i], *next; e; e = next) {
      next = e->next;
      e->next = b[e->hash & (n - 1)];
      b[e->hash & (n - 1)] = e;
    }
  free(m->buckets);
  m->buckets = b;
  m->nbuckets = n;
  return true;
}

static mcp_status mem_put(void *impl, const mcp_task_record *rec,
                          mcp_error_t *err) {
  memstore *m = impl;
  entry *e = calloc(1, sizeof *e);
  if (e == NULL || !mcp__task_record_copy(&e->rec, rec)) {
    free(e);
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  }
  e->hash = hash_key(rec->scope, rec->task_id);
  pthread_mutex_lock(&m->lock);
  if (m->count >= m->nbuckets)
    grow(m); /* a failed grow only makes chains longer */
  entry **slot = find_slot(m, rec->scope, rec->task_id, e->hash);
  if (*slot) {
    pthread_mutex_unlock(&m->lock);
    mcp_task_record_clear(&e->rec);
    free(e);
    return mcp_error_set(err, MCP_ERR_EXISTS, "task id already exists");
  }
  *slot = e;
  m->count++;
  pthread_mutex_unlock(&m->lock);
  return MCP_OK;
}

static mcp_status mem_get(void *impl, const char *scope, const char *id,
                          mcp_task_record *out, mcp_error_t *err) {
  memstore *m = impl;
  mcp_status st = MCP_OK;
  pthread_mutex_lock(&m->lock);
  entry *e = *find_slot(m, scope, id, hash_key(scope, id));
  if (e == NULL)
    st = MCP_ERR_NOT_FOUND;
  else if (!mcp__task_record_copy(out, &e->rec))
    st = MCP_ERR_NOMEM;
  pthread_mutex_unlock(&m->lock);
  if (st != MCP_OK)
    mcp_error_set(err, st,
                  st == MCP_ERR_NOT_FOUND ? "task not found" : "out of memory");
  return st;
}

static mcp_status mem_update(void *impl, const mcp_task_record *rec,
                             mcp_task_status *current, mcp_error_t *err) {
  memstore *m = impl;
  /* Copies are made before taking the lock so a failed allocation can
   * never leave a half-updated record behind. */
  char *msg = NULL, *result = NULL, *error = NULL;
  if ((rec->status_message && !(msg = strdup(rec->status_message))) ||
      (rec->result && !(result = strdup(rec->result))) ||
      (rec->error && !(error = strdup(rec->error)))) {
    free(msg);
    free(result);
    free(error);
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  }
  mcp_status st = MCP_OK;
  pthread_mutex_lock(&m->lock);
  entry *e = *find_slot(m, rec->scope, rec->task_id,
                        hash_key(rec->scope, rec->task_id));
  if (e == NULL) {
    st = MCP_ERR_NOT_FOUND;
  } else if (mcp_task_status_is_terminal(e->rec.status)) {
    st = MCP_ERR_STATE;
    if (current)
      *current = e->rec.status;
  } else {
    e->rec.status = rec->status;
    e->rec.updated_ms = rec->updated_ms;
    free(e->rec.status_message);
    e->rec.status_message = msg;
    msg = NULL;
    if (result) {
      free(e->rec.result);
      e->rec.result = result;
      result = NULL;
    }
    if (error) {
      free(e->rec.error);
      e->rec.error = error;
      error = NULL;
    }
    if (current)
      *current = e->rec.status;
  }
  pthread_mutex_unlock(&m->lock);
  free(msg);
  free(result);
  free(error);
  if (st == MCP_ERR_NOT_FOUND)
    mcp_error_set(err, st, "task not found");
  else if (st == MCP_ERR_STATE)
    mcp_error_set(err, st, "task is already in a terminal status");
  return st;
}

static int cmp_rec(const void *a, const void *b) {
  const mcp_task_record *x = *(mcp_task_record *const *)a;
  const mcp_task_record *y = *(mcp_task_record *const *)b;
  if (x->created_ms != y->created_ms)
    return x->created_ms < y->created_ms ? -1 : 1;
  return strcmp(x->task_id, y->task_id);
}

static mcp_status mem_list(void *impl, const char *scope,
                           const mcp_task_filter *f, size_t limit,
                           mcp_task_visit_fn fn, void *ud, mcp_error_t *err) {
  memstore *m = impl;
  pthread_mutex_lock(&m->lock);
  mcp_task_record **hits = malloc((m->count + 1) * sizeof *hits);
  size_t n = 0;
  if (hits == NULL) {
    pthread_mutex_unlock(&m->lock);
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  }
  for (size_t i = 0; i < m->nbuckets; i++)
    for (entry *e = m->buckets[i]; e; e = e->next)
      if (strcmp(e->rec.scope, scope) == 0 &&
          mcp__task_filter_match(f, &e->rec))
        hits[n++] = &e->rec;
  qsort(hits, n, sizeof *hits, cmp_rec);
  if (limit > 0 && n > limit)
    n = limit;
  /* Copies let the visitor run without the lock (it may call back into the
   * store). */
  mcp_task_record *copies = calloc(n + 1, sizeof *copies);
  bool ok = copies != NULL;
  for (size_t i = 0; ok && i < n; i++)
    ok = mcp__task_record_copy(&copies[i], hits[i]);
  pthread_mutex_unlock(&m->lock);
  free(hits);
  for (size_t i = 0; ok && i < n; i++)
    if (!fn(&copies[i], ud))
      break;
  for (size_t i = 0; copies && i < n; i++)
    mcp_task_record_clear(&copies[i]);
  free(copies);
  return ok ? MCP_OK : mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
}

static mcp_status mem_delete(void *impl, const char *scope, const char *id,
                             mcp_error_t *err) {
  memstore *m = impl;
  pthread_mutex_lock(&m->lock);
  entry **slot = find_slot(m, scope, id, hash_key(scope, id));
  entry *e = *slot;
  if (e) {
    *slot = e->next;
    m->count--;
  }
  pthread_mutex_unlock(&m->lock);
  if (e == NULL)
    return mcp_error_set(err, MCP_ERR_NOT_FOUND, "task not found");
  mcp_task_record_clear(&e->rec);
  free(e);
  return MCP_OK;
}

static mcp_status mem_sweep(void *impl, const char *scope, int64_t now_ms,
                            int64_t retention_ms, mcp_task_removed_fn fn,
                            void *ud, mcp_error_t *err) {
  (void)err;
  memstore *m = impl;
  entry *removed = NULL;
  pthread_mutex_lock(&m->lock);
  for (size_t i = 0; i < m->nbuckets; i++)
    for (entry **pp = &m->buckets[i]; *pp;) {
      entry *e = *pp;
      const mcp_task_record *r = &e->rec;
      bool expired = r->ttl_ms >= 0 && r->created_ms + r->ttl_ms <= now_ms;
      bool retained = r->ttl_ms < 0 && retention_ms >= 0 &&
                      mcp_task_status_is_terminal(r->status) &&
                      r->updated_ms <= now_ms - retention_ms;
      if (strcmp(r->scope, scope) == 0 && (expired || retained)) {
        *pp = e->next;
        m->count--;
        /* remember why in the hash field: 1 expired, 0 retention */
        e->hash = expired;
        e->next = removed;
        removed = e;
      } else {
        pp = &e->next;
      }
    }
  pthread_mutex_unlock(&m->lock);
  for (entry *e = removed, *next; e; e = next) {
    next = e->next;
    if (fn)
      fn(e->rec.task_id, e->hash ? "expired" : "retention", ud);
    mcp_task_record_clear(&e->rec);
    free(e);
  }
  return MCP_OK;
}

static void mem_close(void *impl) {
  memstore *m = impl;
  for (size_t i = 0; i < m->nbuckets; i++)
    for (entry *e = m->buckets[i], *next; e; e = next) {
      next = e->next;
      mcp_task_record_clear(&e->rec);
      free(e);
    }
  free(m->buckets);
  pthread_mutex_destroy(&m->lock);
  free(m);
}

static const mcp_store_ops memory_ops = {
    .version = 1,
    .name = "memory",
    .task_put = mem_put,
    .task_get = mem_get,
    .task_update = mem_update,
    .task_list = mem_list,
    .task_delete = mem_delete,
    .task_sweep = mem_sweep,
    .close = mem_close,
};

mcp_status mcp_store_memory_new(mcp_store_t **out) {
  if (out == NULL)
    return MCP_ERR_INVALID_ARG;
  *out = NULL;
  memstore *m = calloc(1, sizeof *m);
  if (m == NULL)
    return MCP_ERR_NOMEM;
  m->nbuckets = 64;
  m->buckets = calloc(m->nbuckets, sizeof *m->buckets);
  if (m->buckets == NULL) {
    free(m);
    return MCP_ERR_NOMEM;
  }
  pthread_mutex_init(&m->lock, NULL);
  return mcp_store_new(&memory_ops, m, out);
}

bool mcp__store_is_volatile(const mcp_store_t *s) {
  return s != NULL && mcp_store_get_ops(s) == &memory_ops;
}
