/* SPDX-License-Identifier: MIT */
/* validation.c - the error list returned by mcp_schema_validate and
 * mcp_schema_check_meta. Each error owns its three strings. */
#include "schema/internal.h"

#include <stdlib.h>

bool mcp__validation_push(mcp_validation_t *v, char *instance_location,
                          char *keyword_location, char *message) {
  if (v->count == v->cap) {
    size_t nc = v->cap ? v->cap * 2 : 8;
    mcp__verror *ne = realloc(v->errors, nc * sizeof *ne);
    if (ne == NULL) {
      free(instance_location);
      free(keyword_location);
      free(message);
      return false;
    }
    v->errors = ne;
    v->cap = nc;
  }
  v->errors[v->count++] =
      (mcp__verror){instance_location, keyword_location, message};
  return true;
}

void mcp__validation_truncate(mcp_validation_t *v, size_t count) {
  while (v->count > count) {
    mcp__verror *e = &v->errors[--v->count];
    free(e->instance_location);
    free(e->keyword_location);
    free(e->message);
  }
}

size_t mcp_validation_count(const mcp_validation_t *v) {
  return v ? v->count : 0;
}

const char *mcp_validation_instance_location(const mcp_validation_t *v,
                                             size_t index) {
  return v && index < v->count ? v->errors[index].instance_location : NULL;
}

const char *mcp_validation_keyword_location(const mcp_validation_t *v,
                                            size_t index) {
  return v && index < v->count ? v->errors[index].keyword_location : NULL;
}

const char *mcp_validation_message(const mcp_validation_t *v, size_t index) {
  return v && index < v->count ? v->errors[index].message : NULL;
}

void mcp_validation_free(mcp_validation_t *v) {
  if (v == NULL)
    return;
  mcp__validation_truncate(v, 0);
  free(v->errors);
  free(v);
}
