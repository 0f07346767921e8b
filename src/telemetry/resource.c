/* SPDX-License-Identifier: MIT */
/* resource.c - see resource.h. */
#include "telemetry/resource.h"

#include <stdlib.h>
#include <string.h>

#include "mcp/version.h"
#include "util/buf.h"
#include "util/env.h"

static void key_value(mcp__buf *b, const char *k, size_t kl, const char *v,
                      size_t vl) {
  if (b->len > 0)
    mcp__buf_append_char(b, ',');
  mcp__buf_append_str(b, "{\"key\":");
  mcp__buf_append_escaped(b, k, kl);
  mcp__buf_append_str(b, ",\"value\":{\"stringValue\":");
  mcp__buf_append_escaped(b, v, vl);
  mcp__buf_append_str(b, "}}");
}

/* The resource: service.name (OTEL_SERVICE_NAME, else service.name of
 * OTEL_RESOURCE_ATTRIBUTES, else default_service), the other
 * OTEL_RESOURCE_ATTRIBUTES pairs, and telemetry.sdk.*. */
char *mcp__otel_resource_json(const char *default_service) {
  mcp__buf b;
  mcp__buf_init(&b);
  const char *attrs = mcp__env("OTEL_RESOURCE_ATTRIBUTES");
  const char *service = mcp__env("OTEL_SERVICE_NAME");
  bool named = service != NULL;
  if (service)
    key_value(&b, "service.name", 12, service, strlen(service));
  for (const char *p = attrs; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    if (eq != NULL && eq > p) {
      size_t kl = (size_t)(eq - p);
      bool is_service = kl == 12 && strncmp(p, "service.name", 12) == 0;
      if (!(is_service && named))
        key_value(&b, p, kl, eq + 1, len - kl - 1);
      named |= is_service;
    }
    p = comma ? comma + 1 : NULL;
  }
  if (!named)
    key_value(&b, "service.name", 12, default_service,
              strlen(default_service));
  key_value(&b, "telemetry.sdk.name", 18, "libmcp", 6);
  key_value(&b, "telemetry.sdk.language", 22, "c", 1);
  key_value(&b, "telemetry.sdk.version", 21, MCP_VERSION_STRING,
            strlen(MCP_VERSION_STRING));
  size_t n;
  char *text = mcp__buf_steal(&b, &n);
  mcp__buf_free(&b);
  return text;
}

