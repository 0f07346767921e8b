/* SPDX-License-Identifier: MIT */
/* http_metrics.c - see http_metrics.h. */
#include "transport/http_metrics.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/dispatch.h"
#include "transport/http_cidr.h"
#include "transport/http_cors.h"
#include "transport/http_guard.h"
#include "transport/http_options.h"
#include "util/buf.h"
#include "util/str.h"

#define SETTER "mcp_http_options_set_metrics"
/* Loopback, IPv4 and IPv6: what a scraper on the same machine uses. */
#define LOOPBACK "127.0.0.0/8,::1"

/* Why path cannot be the metrics path, or NULL. endpoint: the MCP
 * endpoint's path. */
static const char *path_problem(const char *path, const char *endpoint) {
  if (path[0] != '/')
    return "the path must start with '/'";
  for (const char *p = path; *p; p++)
    if ((unsigned char)*p <= 0x20 || *p == 0x7f || *p == '?' || *p == '#')
      return "the path holds a space, a control character, '?' or '#' "
             "(requests are matched on their path alone)";
  if (strncmp(path, "/.well-known/", 13) == 0)
    return "the path is under /.well-known/ (OAuth metadata lives there)";
  if (strcmp(path, endpoint) == 0)
    return "the path is the MCP endpoint's (mcp_http_options_set_endpoint)";
  return NULL;
}

mcp_status mcp_http_options_set_metrics(mcp_http_options_t *o,
                                        const char *path, const char *allow) {
  if (o == NULL)
    return MCP_ERR_INVALID_ARG;
  if (path == NULL)
    path = "/metrics";
  const char *why = path_problem(path, o->endpoint);
  if (why != NULL) {
    char msg[300];
    snprintf(msg, sizeof msg, "path \"%.100s\": %s", path, why);
    mcp__str_drop_lines(&o->refusals, SETTER); /* the last call wins */
    return mcp__http_options_refuse(o, SETTER, msg);
  }
  mcp__cidr *list = NULL;
  size_t n = 0, bad, bad_len;
  if (!mcp__cidr_parse_list(allow ? allow : LOOPBACK, &list, &n, &bad,
                            &bad_len, &why)) {
    if (why == NULL)
      return MCP_ERR_NOMEM;
    char msg[300];
    if (bad_len > 0)
      snprintf(msg, sizeof msg, "allow-list entry \"%.*s\": %s",
               (int)(bad_len < 80 ? bad_len : 80), allow + bad, why);
    else
      snprintf(msg, sizeof msg, "allow-list: %s", why);
    mcp__str_drop_lines(&o->refusals, SETTER);
    return mcp__http_options_refuse(o, SETTER, msg);
  }
  char *copy = strdup(path);
  if (copy == NULL) {
    free(list);
    return MCP_ERR_NOMEM;
  }
  free(o->metrics_path);
  free(o->metrics_allow);
  o->metrics_path = copy;
  o->metrics_allow = list;
  o->nmetrics_allow = n;
  mcp__str_drop_lines(&o->refusals, SETTER);
  return MCP_OK;
}

mcp_status mcp__hs_metrics_prepare(mcp_server_t *server,
                                   const mcp_http_options_t *o,
                                   mcp_error_t *err) {
  if (o == NULL || o->metrics_path == NULL)
    return MCP_OK;
  if (strcmp(o->metrics_path, o->endpoint) == 0)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "options refused: " SETTER ": path \"%.100s\" is "
                         "also the MCP endpoint's "
                         "(mcp_http_options_set_endpoint)",
                         o->metrics_path);
  return mcp__server_collect_metrics(server, err);
}

/* "127.0.0.1:51234", "[::1]:51234" or "?", for the log. */
static void peer_text(const struct sockaddr *sa, char out[80]) {
  char host[INET6_ADDRSTRLEN] = "?";
  if (sa && sa->sa_family == AF_INET) {
    const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    snprintf(out, 80, "%s:%u", host, (unsigned)ntohs(in->sin_port));
  } else if (sa && sa->sa_family == AF_INET6) {
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
    inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
    snprintf(out, 80, "[%s]:%u", host, (unsigned)ntohs(in6->sin6_port));
  } else {
    snprintf(out, 80, "?");
  }
}

/* A plain-text answer; body is copied. */
static enum mcp__he_result answer(mcp__he_conn *conn, unsigned status,
                                  const char *type, const char *body,
                                  size_t len, const char *allow) {
  mcp__he_resp *resp =
      mcp__he_resp_buffer(len, (void *)body, MCP__HE_MEM_MUST_COPY);
  if (resp == NULL)
    return MCP__HE_NO;
  mcp__he_resp_header(resp, MCP__HTTP_HEADER_CONTENT_TYPE, type);
  mcp__he_resp_header(resp, MCP__HTTP_HEADER_CACHE_CONTROL, "no-store");
  if (allow)
    mcp__he_resp_header(resp, MCP__HTTP_HEADER_ALLOW, allow);
  enum mcp__he_result ret = mcp__he_queue(conn, status, resp);
  mcp__he_resp_destroy(resp);
  return ret;
}

static enum mcp__he_result refuse(mcp__he_conn *conn, unsigned status,
                                  const char *why) {
  return answer(conn, status, "text/plain; charset=utf-8", why, strlen(why),
                NULL);
}

int mcp__hs_metrics_route(mcp_http_server_t *h, hs_req *r, const char *url) {
  const mcp_http_options_t *o = h->o;
  if (o->metrics_path == NULL || strcmp(url, o->metrics_path) != 0)
    return -1;
  mcp__he_conn *conn = r->conn;
  const struct sockaddr *peer = mcp__he_client_addr(conn);
  if (!mcp__cidr_list_has(o->metrics_allow, o->nmetrics_allow, peer)) {
    char addr[80]; /* mcp__log checks the level */
    peer_text(peer, addr);
    mcp__log(h->server, MCP_LOG_INFO,
             "http: refused client=%s status=404: not on the metrics "
             "allow-list (answered as an unknown path)",
             addr);
    return -1;
  }
  /* DNS rebinding and browsers: the MCP endpoint's checks (http_request.c) */
  const char *host = mcp__he_lookup(conn, "Host");
  if (o->nhosts && !mcp__http_list_has(o->hosts, o->nhosts, host))
    return refuse(conn, MCP__HTTP_FORBIDDEN, "Forbidden: Host not allowed\n");
  const char *origin = mcp__he_lookup(conn, "Origin");
  if (origin && o->norigins &&
      !mcp__http_list_has(o->origins, o->norigins, origin) &&
      !mcp__hs_cors_allows(o, origin))
    return refuse(conn, MCP__HTTP_FORBIDDEN,
                  "Forbidden: Origin not allowed\n");
  if (r->method != M_GET)
    return answer(conn, MCP__HTTP_METHOD_NOT_ALLOWED,
                  "text/plain; charset=utf-8", "Method Not Allowed\n", 19,
                  "GET");
  mcp__buf text;
  mcp__buf_init(&text);
  enum mcp__he_result ret;
  if (mcp__server_metrics_text(h->server, &text))
    ret = answer(conn, MCP__HTTP_OK, "text/plain; version=0.0.4; charset=utf-8",
                 text.data ? text.data : "", text.len, NULL);
  else
    ret = refuse(conn, MCP__HTTP_INTERNAL_SERVER_ERROR,
                 "Internal Server Error: out of memory\n");
  mcp__buf_free(&text);
  return ret;
}
