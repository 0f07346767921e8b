/* SPDX-License-Identifier: MIT */
/* store.c - the glue between mcp_store_t and a backend's ops table, plus the
 * record helpers every backend shares. The wrappers check arguments once so
 * backends can trust them. */
#include "store/store_internal.h"
#include "store/task_changes.h"

#include <stdlib.h>
#include <string.h>

struct mcp_store {
  const mcp_store_ops *ops;
  void *impl;
  unsigned flags; /* MCP_STORE_* */
};

void mcp_task_record_clear(mcp_task_record *rec) {
  if (rec == NULL)
    return;
  free(rec->scope);
  free(rec->task_id);
  free(rec->owner);
  free(rec->session);
  free(rec->tool);
  free(rec->status_message);
  free(rec->result);
  free(rec->error);
  memset(rec, 0, sizeof *rec);
}

static bool dup_opt(char **dst, const char *src) {
  *dst = NULL;
  return src == NULL || (*dst = strdup(src)) != NULL;
}

bool mcp__task_record_copy(mcp_task_record *dst, const mcp_task_record *src) {
  memset(dst, 0, sizeof *dst);
  dst->status = src->status;
  dst->created_ms = src->created_ms;
  dst->updated_ms = src->updated_ms;
  dst->ttl_ms = src->ttl_ms;
  dst->poll_interval_ms = src->poll_interval_ms;
  if (dup_opt(&dst->scope, src->scope) &&
      dup_opt(&dst->task_id, src->task_id) &&
      dup_opt(&dst->owner, src->owner) &&
      dup_opt(&dst->session, src->session) && dup_opt(&dst->tool, src->tool) &&
      dup_opt(&dst->status_message, src->status_message) &&
      dup_opt(&dst->result, src->result) && dup_opt(&dst->error, src->error))
    return true;
  mcp_task_record_clear(dst);
  return false;
}

mcp_status mcp_store_new(const mcp_store_ops *ops, void *impl,
                         mcp_store_t **out) {
  if (out)
    *out = NULL;
  if (ops == NULL || out == NULL || ops->version < 1 || ops->task_put == NULL ||
      ops->task_get == NULL || ops->task_update == NULL ||
      ops->task_list == NULL || ops->task_delete == NULL ||
      ops->task_sweep == NULL) {
    if (ops && ops->close && impl)
      ops->close(impl);
    return MCP_ERR_INVALID_ARG;
  }
  mcp_store_t *s = calloc(1, sizeof *s);
  if (s == NULL) {
    if (ops->close)
      ops->close(impl);
    return MCP_ERR_NOMEM;
  }
  s->ops = ops;
  s->impl = impl;
  *out = s;
  return MCP_OK;
}

void mcp_store_free(mcp_store_t *s) {
  if (s == NULL)
    return;
  if (s->ops->close)
    s->ops->close(s->impl);
  free(s);
}

const char *mcp_store_name(const mcp_store_t *s) {
  return s ? s->ops->name : NULL;
}
const mcp_store_ops *mcp_store_get_ops(const mcp_store_t *s) {
  return s ? s->ops : NULL;
}
void *mcp_store_impl(const mcp_store_t *s) {
  return s ? s->impl : NULL;
}
mcp_status mcp_store_set_flags(mcp_store_t *s, unsigned flags) {
  if (s == NULL || (flags & ~MCP_STORE_SHARED) != 0)
    return MCP_ERR_INVALID_ARG;
  s->flags = flags;
  return MCP_OK;
}
unsigned mcp_store_flags(const mcp_store_t *s) {
  return s ? s->flags : 0;
}

mcp_status mcp_store_open(const char *spec, mcp_store_t **out,
                          mcp_error_t *err) {
  if (out)
    *out = NULL;
  if (spec == NULL || out == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "no store given");
  if (strcmp(spec, "memory") == 0)
    return mcp_store_memory_new(out);
  if (strncmp(spec, "sqlite:", 7) == 0 && spec[7] != '\0')
    return mcp_store_sqlite_open(spec + 7, out, err);
  if (strncmp(spec, "postgres://", 11) == 0 ||
      strncmp(spec, "postgresql://", 13) == 0)
    return mcp_store_postgres_open(spec, 0, out, err);
  return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                       "unknown store '%s' (use memory, sqlite:PATH or "
                       "postgres://...)",
                       spec);
}

static bool rec_ok(const mcp_task_record *r) {
  return r && r->scope && r->task_id &&
         (unsigned)r->status <= (unsigned)MCP_TASK_CANCELLED;
}

mcp_status mcp_store_task_put(mcp_store_t *s, const mcp_task_record *rec,
                              mcp_error_t *err) {
  if (s == NULL || !rec_ok(rec))
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid task record");
  return s->ops->task_put(s->impl, rec, err);
}

mcp_status mcp_store_task_get(mcp_store_t *s, const char *scope,
                              const char *task_id, mcp_task_record *out,
                              mcp_error_t *err) {
  if (out)
    memset(out, 0, sizeof *out);
  if (s == NULL || scope == NULL || task_id == NULL || out == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  return s->ops->task_get(s->impl, scope, task_id, out, err);
}

mcp_status mcp_store_task_update(mcp_store_t *s, const mcp_task_record *rec,
                                 mcp_task_status *current, mcp_error_t *err) {
  if (s == NULL || !rec_ok(rec))
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid task record");
  return s->ops->task_update(s->impl, rec, current, err);
}

mcp_status mcp_store_task_list(mcp_store_t *s, const char *scope,
                               const mcp_task_filter *filter, size_t limit,
                               mcp_task_visit_fn fn, void *ud,
                               mcp_error_t *err) {
  static const mcp_task_filter all;
  if (s == NULL || scope == NULL || fn == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  return s->ops->task_list(s->impl, scope, filter ? filter : &all, limit, fn,
                           ud, err);
}

mcp_status mcp_store_task_delete(mcp_store_t *s, const char *scope,
                                 const char *task_id, mcp_error_t *err) {
  if (s == NULL || scope == NULL || task_id == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  return s->ops->task_delete(s->impl, scope, task_id, err);
}

mcp_status mcp_store_task_sweep(mcp_store_t *s, const char *scope,
                                int64_t now_ms, int64_t retention_ms,
                                mcp_task_removed_fn fn, void *ud,
                                mcp_error_t *err) {
  if (s == NULL || scope == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  return s->ops->task_sweep(s->impl, scope, now_ms, retention_ms, fn, ud, err);
}

bool mcp__store_task_changes(mcp_store_t *s, uint64_t *token) {
  return s != NULL && token != NULL &&
         (mcp__store_sqlite_task_changes(s, token) ||
          mcp__store_postgres_task_changes(s, token));
}
