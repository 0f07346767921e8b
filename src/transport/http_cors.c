/* SPDX-License-Identifier: MIT */
/* http_cors.c - CORS (Fetch standard) for the Streamable HTTP transport.
 *
 * Off by default. With origins on the list, a request whose Origin is one of
 * them passes the DNS-rebinding Origin check too (the Host check still
 * applies), preflight OPTIONS requests get 204 with the methods and request
 * headers MCP uses, and every answer carries Access-Control-Allow-Origin
 * plus Access-Control-Expose-Headers for Mcp-Session-Id and
 * MCP-Protocol-Version, which a script otherwise cannot read. "*" is
 * refused together with credentials (the Fetch standard forbids the pair).
 */
#include "transport/http_cors.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "transport/http_guard.h"
#include "transport/http_internal.h"
#include "util/str.h"

/* Request headers of MCP over HTTP (2025-11-25 and 2026-07-28). */
#define FIXED_HEADERS                                                          \
  "Accept, Authorization, Content-Type, Last-Event-ID, Mcp-Session-Id, "       \
  "MCP-Protocol-Version, Mcp-Method, Mcp-Name"
#define EXPOSED_HEADERS "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate"
#define MAX_AGE         "600"

static bool has_star(const mcp_http_options_t *o) {
  for (size_t i = 0; i < o->ncors; i++)
    if (strcmp(o->cors[i], "*") == 0)
      return true;
  return false;
}

mcp_status mcp_http_options_add_cors_origin(mcp_http_options_t *o,
                                            const char *origin) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  /* an origin is scheme://host[:port], no path, no spaces or commas */
  if (origin == NULL || *origin == '\0' ||
      (strcmp(origin, "*") != 0 &&
       (strstr(origin, "://") == NULL ||
        strchr(strstr(origin, "://") + 3, '/') != NULL ||
        strpbrk(origin, " ,\t\r\n") != NULL)))
    return mcp__http_options_refuse(o, "mcp_http_options_add_cors_origin",
                                    "an origin is scheme://host[:port] (no "
                                    "path, spaces or commas) or \"*\"");
  if (strcmp(origin, "*") == 0 && o->cors_credentials)
    return mcp__http_options_refuse(o, "mcp_http_options_add_cors_origin",
                                    "\"*\" cannot go with credentials");
  return mcp__http_list_add(&o->cors, &o->ncors, origin) ? MCP_OK
                                                         : MCP_ERR_NOMEM;
}

mcp_status mcp_http_options_set_cors_credentials(mcp_http_options_t *o,
                                                 bool allow) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if (allow && has_star(o))
    return mcp__http_options_refuse(o, "mcp_http_options_set_cors_credentials",
                                    "credentials cannot go with the origin "
                                    "\"*\"");
  o->cors_credentials = allow;
  mcp__str_drop_lines(&o->refusals, "mcp_http_options_set_cors_credentials");
  return MCP_OK;
}

bool mcp__hs_cors_allows(const mcp_http_options_t *o, const char *origin) {
  return o->ncors > 0 && origin != NULL &&
         mcp__http_list_has(o->cors, o->ncors, origin);
}

/* Allow-Origin (and Credentials) for an allowed origin; false otherwise. */
static bool add_origin_headers(const mcp_http_options_t *o,
                               struct MHD_Connection *conn,
                               struct MHD_Response *resp) {
  const char *origin =
      MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
  if (!mcp__hs_cors_allows(o, origin))
    return false;
  /* "*" is only on the list without credentials: answer "*" then */
  bool star = !o->cors_credentials && has_star(o);
  MHD_add_response_header(resp, "Access-Control-Allow-Origin",
                          star ? "*" : origin);
  if (!star)
    MHD_add_response_header(resp, "Vary", "Origin");
  if (o->cors_credentials)
    MHD_add_response_header(resp, "Access-Control-Allow-Credentials", "true");
  return true;
}

enum MHD_Result mcp__hs_queue_response(struct MHD_Connection *conn,
                                       unsigned status,
                                       struct MHD_Response *resp) {
  const mcp_http_server_t *h = mcp__hs_conn_server(conn);
  if (h && h->o->ncors && add_origin_headers(h->o, conn, resp))
    MHD_add_response_header(resp, "Access-Control-Expose-Headers",
                            EXPOSED_HEADERS);
  return MHD_queue_response(conn, status, resp);
}

static bool is_token_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

bool mcp__cors_allow_headers(const char *requested, char *out, size_t cap) {
  if (cap == 0)
    return false;
  int n = snprintf(out, cap, "%s", FIXED_HEADERS);
  if (n < 0 || (size_t)n >= cap) {
    out[0] = '\0';
    return false;
  }
  size_t len = (size_t)n;
  const char *p = requested ? requested : "";
  while (*p) {
    while (*p == ' ' || *p == '\t' || *p == ',')
      p++;
    const char *start = p;
    while (*p && *p != ',')
      p++;
    const char *end = p;
    while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
      end--;
    size_t tl = (size_t)(end - start);
    bool ok = tl > 10 && strncasecmp(start, "mcp-param-", 10) == 0;
    for (size_t i = 0; ok && i < tl; i++)
      ok = is_token_char(start[i]);
    if (!ok)
      continue;
    if (len + 2 + tl + 1 > cap)
      return false;
    memcpy(out + len, ", ", 2);
    memcpy(out + len + 2, start, tl);
    len += 2 + tl;
    out[len] = '\0';
  }
  return true;
}

enum MHD_Result mcp__hs_cors_preflight(const mcp_http_options_t *o,
                                       struct MHD_Connection *conn,
                                       const char *methods) {
  struct MHD_Response *resp =
      MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
  if (resp == NULL)
    return MHD_NO;
  unsigned status = MHD_HTTP_NO_CONTENT;
  if (add_origin_headers(o, conn, resp)) {
    char allow[2048];
    const char *requested = MHD_lookup_connection_value(
        conn, MHD_HEADER_KIND, "Access-Control-Request-Headers");
    mcp__cors_allow_headers(requested, allow, sizeof allow);
    char methods_opt[64];
    snprintf(methods_opt, sizeof methods_opt, "%s, OPTIONS", methods);
    MHD_add_response_header(resp, "Access-Control-Allow-Methods", methods_opt);
    MHD_add_response_header(resp, "Access-Control-Allow-Headers", allow);
    MHD_add_response_header(resp, "Access-Control-Max-Age", MAX_AGE);
    MHD_add_response_header(resp, "Vary",
                            "Access-Control-Request-Method, "
                            "Access-Control-Request-Headers");
    MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, methods_opt);
  } else {
    status = MHD_HTTP_FORBIDDEN; /* a preflight from an origin not listed */
  }
  enum MHD_Result ret = MHD_queue_response(conn, status, resp);
  MHD_destroy_response(resp);
  return ret;
}
