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
                               mcp__he_conn *conn,
                               mcp__he_resp *resp) {
  const char *origin =
      mcp__he_lookup(conn, "Origin");
  if (!mcp__hs_cors_allows(o, origin))
    return false;
  /* "*" is only on the list without credentials: answer "*" then */
  bool star = !o->cors_credentials && has_star(o);
  mcp__he_resp_header(resp, "Access-Control-Allow-Origin",
                      star ? "*" : origin);
  if (!star)
    mcp__he_resp_header(resp, "Vary", "Origin");
  if (o->cors_credentials)
    mcp__he_resp_header(resp, "Access-Control-Allow-Credentials", "true");
  return true;
}

enum mcp__he_result mcp__hs_queue_response(mcp__he_conn *conn,
                                           unsigned status,
                                           mcp__he_resp *resp) {
  const mcp_http_server_t *h = mcp__hs_conn_server(conn);
  if (h && h->o->ncors && add_origin_headers(h->o, conn, resp))
    mcp__he_resp_header(resp, "Access-Control-Expose-Headers",
                        EXPOSED_HEADERS);
  return mcp__he_queue(conn, status, resp);
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

enum mcp__he_result mcp__hs_cors_preflight(const mcp_http_options_t *o,
                                           mcp__he_conn *conn,
                                           const char *methods) {
  mcp__he_resp *resp =
      mcp__he_resp_buffer(0, (void *)"", MCP__HE_MEM_PERSISTENT);
  if (resp == NULL)
    return MCP__HE_NO;
  unsigned status = MCP__HTTP_NO_CONTENT;
  if (add_origin_headers(o, conn, resp)) {
    char allow[2048];
    const char *requested = mcp__he_lookup(conn, "Access-Control-Request-Headers");
    mcp__cors_allow_headers(requested, allow, sizeof allow);
    char methods_opt[64];
    snprintf(methods_opt, sizeof methods_opt, "%s, OPTIONS", methods);
    mcp__he_resp_header(resp, "Access-Control-Allow-Methods", methods_opt);
    mcp__he_resp_header(resp, "Access-Control-Allow-Headers", allow);
    mcp__he_resp_header(resp, "Access-Control-Max-Age", MAX_AGE);
    mcp__he_resp_header(resp, "Vary",
                        "Access-Control-Request-Method, "
                        "Access-Control-Request-Headers");
    mcp__he_resp_header(resp, MCP__HTTP_HEADER_ALLOW, methods_opt);
  } else {
    status = MCP__HTTP_FORBIDDEN; /* a preflight from an origin not listed */
  }
  enum mcp__he_result ret = mcp__he_queue(conn, status, resp);
  mcp__he_resp_destroy(resp);
  return ret;
}
