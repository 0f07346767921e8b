/* SPDX-License-Identifier: MIT */
/* http_request.c - one HTTP request of MCP Streamable HTTP: POST, GET,
 * DELETE, and the reply channel of the call a POST carries.
 *
 * Threads: the engine (http_engine.h) runs epoll loops on a few threads
 * and calls on_request for every request. The core says where a POST's
 * message is accepted and where its call runs (mcp__server_triage,
 * mcp__call_schedule): client responses, notifications and lifecycle
 * requests are dispatched on the network thread (they never block;
 * initialize must be ordered before what follows on the session), and so
 * is a call of a tool that has proven fast and cannot need to reach the
 * client before its response (no two wake-ups of a hand-off). An ordinary
 * request goes to a worker pool, which parses and runs it, and the
 * connection is suspended; the worker's response (or first notification,
 * which upgrades the answer to SSE) resumes it. SSE connections stay
 * suspended while idle (http_stream.c), so no thread is tied to a
 * connection.
 *
 * Era: a POST whose MCP-Protocol-Version header is modern, or whose body
 * carries the modern _meta version, runs without a session (2026-07-28);
 * everything else follows the 2025-11-25 session rules.
 */
#include "mcp/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "auth/auth_http.h"
#include "jsonrpc/jsonrpc.h"
#include "server/dispatch.h"
#include "transport/http_cors.h"
#include "transport/http_guard.h"
#include "transport/http_internal.h"
#include "transport/http_metrics.h"
#include "transport/http_parse.h"
#include "util/clock.h"
#include "util/str.h"

#define HDR_SESSION            "Mcp-Session-Id"
#define DEFAULT_LEGACY_VERSION "2025-03-26"
/* JSON-RPC code for transport-level refusals that have no standard code. */
#define RPC_SERVER_BUSY -32000

/* ---- requests ------------------------------------------------------------ */

#if defined(__GLIBC__) && UINTPTR_MAX == UINT64_MAX
/* Like a call (core/call_internal.h), a request fits glibc's per-thread
 * cache, and a listen stream keeps one for its whole life. */
_Static_assert(sizeof(hs_req) <= 1032,
               "an HTTP request outgrew glibc's per-thread cache (1032 bytes)");
#endif

static hs_req *req_new(mcp_http_server_t *h, mcp__he_conn *conn) {
  hs_req *r = malloc(sizeof *r); /* not calloc: see mcp__call_new */
  if (r == NULL)
    return NULL;
  *r = (hs_req){0};
  atomic_init(&r->refs, 1);
  r->h = h;
  r->conn = conn;
  pthread_mutex_init(&r->lock, NULL);
  mcp__buf_init(&r->body);
  mcp__buf_init(&r->resp);
  r->status = MCP__HTTP_OK;
  atomic_fetch_add(&h->live_reqs, 1);
  mcp__hs_server_retain(h); /* released last in req_release */
  return r;
}

static void req_release(hs_req *r) {
  if (atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) != 1)
    return;
  if (r->hs) {
    mcp__hs_share_save(r->hs); /* when the request changed its state */
    if (!r->stream_only)
      mcp__hs_session_touch(r->hs, -1);
    mcp__hs_session_release(r->hs);
  }
  if (r->temp) {
    mcp__session_close(r->temp);
    mcp__session_release(r->temp);
  }
  mcp__hs_stream_release(r->stream);
  mcp__buf_free(&r->body);
  mcp__buf_free(&r->resp);
  free(r->hdr_copies);
  free(r->span_facts);
  free(r->subject);
  free(r->scopes);
  mcp__auth_wait_free(r->auth_wait); /* its answer came after the request */
  pthread_mutex_destroy(&r->lock);
  mcp_http_server_t *h = r->h;
  atomic_fetch_sub(&h->live_reqs, 1);
  free(r);
  mcp__hs_server_release(h);
}

/* ---- SEP-2243 headers ---------------------------------------------------- */

typedef struct param_scan {
  mcp__header found[HS_MAX_PARAM_HEADERS]; /* borrowed from the engine */
  size_t count;
  size_t total; /* bytes to copy, NULs included */
  bool too_many;
} param_scan;

static enum mcp__he_result scan_param(void *cls, const char *key,
                                      const char *value) {
  param_scan *sc = cls;
  if (value == NULL)
    value = "";
  size_t kl = strlen(key);
  if (kl <= MCP__HP_PARAM_PREFIX_LEN ||
      strncasecmp(key, MCP__HP_PARAM_PREFIX, MCP__HP_PARAM_PREFIX_LEN) != 0)
    return MCP__HE_YES;
  if (sc->count == HS_MAX_PARAM_HEADERS) {
    sc->too_many = true;
    return MCP__HE_NO;
  }
  sc->found[sc->count++] = (mcp__header){key + MCP__HP_PARAM_PREFIX_LEN, value};
  sc->total += kl - MCP__HP_PARAM_PREFIX_LEN + 1 + strlen(value) + 1;
  return MCP__HE_YES;
}

static const char *copy_into(char **at, const char *text) {
  size_t n = strlen(text) + 1;
  memcpy(*at, text, n);
  const char *copy = *at;
  *at += n;
  return copy;
}

/* Longest Host and traceparent a span takes (longer: not kept). */
#define SPAN_HOST_MAX        255
#define SPAN_TRACEPARENT_MAX 63

/* The facts a span of r's call records (client address, Host,
 * traceparent), copied into one block that r owns: the call may outlive
 * the connection's memory. Only while tracing is on, so that a request
 * (and a listen stream's, which lives long) holds nothing for spans
 * otherwise. false when memory ran out. */
static bool keep_span_facts(hs_req *r) {
  mcp__he_conn *conn = r->conn;
  const char *host = mcp__he_known(conn, MCP__HK_HOST);
  const char *traceparent = mcp__he_known(conn, MCP__HK_TRACEPARENT);
  size_t hl = host ? strlen(host) : 0;
  size_t tl = traceparent ? strlen(traceparent) : 0;
  if (hl > SPAN_HOST_MAX)
    host = NULL, hl = 0;
  if (tl > SPAN_TRACEPARENT_MAX)
    traceparent = NULL, tl = 0;
  r->span_facts = malloc(sizeof *r->span_facts + hl + 1 + tl + 1);
  if (r->span_facts == NULL)
    return false;
  char *at = r->span_facts->text;
  if (host)
    r->peer.host_header = copy_into(&at, host);
  if (traceparent)
    r->peer.traceparent_header = copy_into(&at, traceparent);
  const struct sockaddr *sa = mcp__he_client_addr(conn);
  if (sa != NULL && (sa->sa_family == AF_INET || sa->sa_family == AF_INET6)) {
    memcpy(&r->span_facts->client, sa,
           sa->sa_family == AF_INET ? sizeof(struct sockaddr_in)
                                    : sizeof(struct sockaddr_in6));
    r->peer.client_addr = (const struct sockaddr *)&r->span_facts->client;
  }
  r->peer.local_port = r->h->port;
  r->peer.http_minor = mcp__he_http_minor(conn);
  return true;
}

/* Copies the request's Mcp-Method, Mcp-Name and Mcp-Param-* headers into r
 * (into r itself when they are short, else one allocation that holds the
 * Mcp-Param-* table too): the call reads them on a worker, after the
 * engine may have reused the connection's memory. The table is not a
 * member of r, which a listen stream keeps for its whole life, and which
 * stays small enough for malloc's per-thread cache. The engine's parser
 * indexed and counted them (a repeat is refused later, in the 2026-07-28
 * checks). false when there are too many or memory ran out. */
static bool collect_mcp_headers(hs_req *r) {
  mcp__he_conn *conn = r->conn;
  r->peer.http = true;
  r->peer.protocol_header = r->proto;
  r->peer.repeated_header =
      mcp__he_known_count(conn, MCP__HK_MCP_PROTOCOL_VERSION) > 1 ||
      mcp__he_known_count(conn, MCP__HK_MCP_METHOD) > 1 ||
      mcp__he_known_count(conn, MCP__HK_MCP_NAME) > 1;
  const char *method = mcp__he_known(conn, MCP__HK_MCP_METHOD);
  const char *name = mcp__he_known(conn, MCP__HK_MCP_NAME);
  if (mcp__server_traces(r->h->server) && !keep_span_facts(r))
    return false;
  size_t total = (method ? strlen(method) + 1 : 0) + (name ? strlen(name) + 1 : 0);
  if (mcp__he_param_count(conn) == 0) { /* the common case */
    if (total == 0)
      return true;
    char *at = total <= sizeof r->hdr_small ? r->hdr_small
                                             : (r->hdr_copies = malloc(total));
    if (at == NULL)
      return false;
    if (method)
      r->peer.method_header = copy_into(&at, method);
    if (name)
      r->peer.name_header = copy_into(&at, name);
    return true;
  }
  param_scan sc = {.count = 0};
  mcp__he_values(conn, scan_param, &sc);
  if (sc.too_many)
    return false;
  size_t table = sc.count * sizeof(mcp__header);
  if ((r->hdr_copies = malloc(table + total + sc.total)) == NULL)
    return false;
  mcp__header *params = (mcp__header *)(void *)r->hdr_copies;
  char *at = r->hdr_copies + table;
  if (method)
    r->peer.method_header = copy_into(&at, method);
  if (name)
    r->peer.name_header = copy_into(&at, name);
  for (size_t i = 0; i < sc.count; i++) {
    params[i].name = copy_into(&at, sc.found[i].name);
    params[i].value = copy_into(&at, sc.found[i].value);
  }
  r->peer.param_headers = params;
  r->peer.param_header_count = sc.count;
  return true;
}

/* ---- responses ----------------------------------------------------------- */

/* A JSON body (when not empty) with its Content-Type. */
static enum mcp__he_result queue_buf(mcp__he_conn *conn, unsigned status,
                                     mcp__buf *body,
                                     const char *session_id) {
  size_t len = 0;
  char *data = body->len ? mcp__buf_steal(body, &len) : NULL;
  mcp__he_resp *resp =
      data ? mcp__he_resp_buffer(len, data, MCP__HE_MEM_MUST_FREE)
           : mcp__he_resp_buffer(0, (void *)"",
                                 MCP__HE_MEM_PERSISTENT);
  if (resp == NULL) {
    free(data);
    return MCP__HE_NO;
  }
  if (data)
    MCP__HE_RESP_HEADER_LITERAL(resp, MCP__HTTP_HEADER_CONTENT_TYPE,
                                "application/json");
  if (session_id)
    mcp__he_resp_header(resp, HDR_SESSION, session_id);
  enum mcp__he_result ret = mcp__hs_queue_response(conn, status, resp);
  mcp__he_resp_destroy(resp);
  return ret;
}

/* An HTTP error with a JSON-RPC error body (no id). */
static enum mcp__he_result reply_error(mcp__he_conn *conn, unsigned status,
                                       int code, const char *message,
                                       json_t *data) {
  mcp__buf b;
  mcp__buf_init(&b);
  mcp__jsonrpc_encode_error(&b, NULL, code, message, data);
  json_decref(data);
  enum mcp__he_result ret = queue_buf(conn, status, &b, NULL);
  mcp__buf_free(&b);
  return ret;
}

/* An HTTP error with a JSON-RPC error body (no id) and one more header. */
static enum mcp__he_result reply_error_with(mcp__he_conn *conn,
                                        unsigned status, const char *message,
                                        const char *name, const char *value) {
  mcp__buf b;
  mcp__buf_init(&b);
  mcp__jsonrpc_encode_error(&b, NULL, MCP_RPC_INVALID_REQUEST, message, NULL);
  size_t len = 0;
  char *data = mcp__buf_steal(&b, &len);
  mcp__buf_free(&b);
  mcp__he_resp *resp =
      data ? mcp__he_resp_buffer(len, data, MCP__HE_MEM_MUST_FREE)
           : NULL;
  if (resp == NULL) {
    free(data);
    return MCP__HE_NO;
  }
  mcp__he_resp_header(resp, MCP__HTTP_HEADER_CONTENT_TYPE,
                      "application/json");
  mcp__he_resp_header(resp, name, value);
  enum mcp__he_result ret = mcp__hs_queue_response(conn, status, resp);
  mcp__he_resp_destroy(resp);
  return ret;
}

/* 415 for a body in a content coding (RFC 9110 15.5.16: Accept-Encoding
 * names what is accepted). */
static enum mcp__he_result reply_unsupported_coding(mcp__he_conn *conn) {
  return reply_error_with(conn, MCP__HTTP_UNSUPPORTED_MEDIA_TYPE,
                          "Unsupported Media Type: Content-Encoding is not "
                          "supported; send the body without a content coding",
                          "Accept-Encoding", "identity");
}

static enum mcp__he_result reply_empty(mcp__he_conn *conn, unsigned status,
                                       const char *allow) {
  mcp__he_resp *resp =
      mcp__he_resp_buffer(0, (void *)"", MCP__HE_MEM_PERSISTENT);
  if (resp == NULL)
    return MCP__HE_NO;
  if (allow)
    mcp__he_resp_header(resp, MCP__HTTP_HEADER_ALLOW, allow);
  enum mcp__he_result ret = mcp__hs_queue_response(conn, status, resp);
  mcp__he_resp_destroy(resp);
  return ret;
}

/* The client's address as text ("127.0.0.1:51234", "[::1]:51234"), or
 * "?" when the connection does not say. */
static void client_address(mcp__he_conn *conn, char out[80]) {
  const struct sockaddr *sa = mcp__he_client_addr(conn);
  char host[INET6_ADDRSTRLEN] = "?";
  unsigned port = 0;
  if (sa && sa->sa_family == AF_INET) {
    const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    port = ntohs(in->sin_port);
    snprintf(out, 80, "%s:%u", host, port);
  } else if (sa && sa->sa_family == AF_INET6) {
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
    inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
    port = ntohs(in6->sin6_port);
    snprintf(out, 80, "[%s]:%u", host, port);
  } else {
    snprintf(out, 80, "?");
  }
}

/* Info-level line for a request refused by a limit or by authorization
 * (docs/observability.md): who, what status, why. */
static void log_refusal(mcp_http_server_t *h, mcp__he_conn *conn,
                        unsigned status, const char *why) {
  char addr[80]; /* refusals are rare: mcp__log checks the level */
  client_address(conn, addr);
  mcp__log(h->server, MCP_LOG_INFO, "http: refused client=%s status=%u: %s",
           addr, status, why);
}

/* Sends a reply the resource server made (metadata, 401, 403, 503). */
static enum mcp__he_result reply_auth(mcp_http_server_t *h,
                                      mcp__he_conn *conn,
                                      mcp__auth_reply *a) {
  if (a->status >= 400)
    log_refusal(h, conn, a->status,
                a->status == 401   ? "authorization: no valid bearer token"
                : a->status == 403 ? "authorization: insufficient scope or "
                                     "forbidden"
                                   : "authorization");
  mcp__he_resp *resp = mcp__he_resp_buffer(
      a->body_len, a->body ? a->body : (void *)"", MCP__HE_MEM_MUST_COPY);
  enum mcp__he_result ret = MCP__HE_NO;
  if (resp) {
    if (a->body)
      mcp__he_resp_header(resp, MCP__HTTP_HEADER_CONTENT_TYPE,
                          "application/json");
    if (a->www_authenticate)
      mcp__he_resp_header(resp, MCP__HTTP_HEADER_WWW_AUTHENTICATE,
                          a->www_authenticate);
    if (a->dpop_nonce) /* RFC 9449 9: the nonce the next proof must carry */
      mcp__he_resp_header(resp, "DPoP-Nonce", a->dpop_nonce);
    if (a->retry_after_s) {
      char secs[16];
      snprintf(secs, sizeof secs, "%u", a->retry_after_s);
      mcp__he_resp_header(resp, MCP__HTTP_HEADER_RETRY_AFTER, secs);
    }
    mcp__he_resp_header(resp, MCP__HTTP_HEADER_CACHE_CONTROL, "no-store");
    ret = mcp__hs_queue_response(conn, a->status, resp); /* + CORS */
    mcp__he_resp_destroy(resp);
  }
  mcp__auth_reply_free(a);
  return ret;
}

/* What the resource server needs to know about r. */
static mcp__auth_request auth_request(hs_req *r, const char *url) {
  mcp__he_conn *conn = r->conn;
  const char *name = r->method == M_POST      ? "POST"
                     : r->method == M_GET     ? "GET"
                     : r->method == M_DELETE  ? "DELETE"
                     : r->method == M_OPTIONS ? "OPTIONS"
                                              : "OTHER";
  return (mcp__auth_request){
      name,
      url,
      mcp__he_known(conn, MCP__HK_AUTHORIZATION),
      mcp__he_known_count(conn, MCP__HK_AUTHORIZATION) > 1,
      mcp__he_known(conn, MCP__HK_HOST),
      r->h->o->endpoint,
      r->h->o->tls_cert != NULL,
      mcp__he_known(conn, MCP__HK_DPOP),
      mcp__he_known_count(conn, MCP__HK_DPOP) > 1};
}

/* A refusal by a limit (http_limits.h): 503 or 429 with Retry-After, and
 * the connection closes so that its slot frees at once. */
static enum mcp__he_result reply_limit(mcp_http_server_t *h,
                                       mcp__he_conn *conn,
                                       enum hs_admit why, const char *message) {
  log_refusal(h, conn, why == HS_ADMIT_TOO_MANY ? 429 : 503, message);
  mcp__buf b;
  mcp__buf_init(&b);
  mcp__jsonrpc_encode_error(&b, NULL, RPC_SERVER_BUSY, message, NULL);
  size_t len = 0;
  char *data = mcp__buf_steal(&b, &len);
  mcp__buf_free(&b);
  if (data == NULL)
    return MCP__HE_NO;
  mcp__he_resp *resp =
      mcp__he_resp_buffer(len, data, MCP__HE_MEM_MUST_FREE);
  if (resp == NULL) {
    free(data);
    return MCP__HE_NO;
  }
  char secs[16];
  snprintf(secs, sizeof secs, "%u", h->o->retry_after_s);
  mcp__he_resp_header(resp, MCP__HTTP_HEADER_CONTENT_TYPE,
                      "application/json");
  mcp__he_resp_header(resp, MCP__HTTP_HEADER_RETRY_AFTER, secs);
  mcp__he_resp_header(resp, MCP__HTTP_HEADER_CONNECTION, "close");
  enum mcp__he_result ret = mcp__he_queue(conn,
                                          why == HS_ADMIT_TOO_MANY
                                          ? MCP__HTTP_TOO_MANY_REQUESTS
                                          : MCP__HTTP_SERVICE_UNAVAILABLE,
                                          resp);
  mcp__he_resp_destroy(resp);
  return ret;
}

/* Modern-era errors carry HTTP meaning (DELTA 6): the client tells a modern
 * server from a legacy one by these statuses. */
static unsigned modern_status(const mcp__buf *resp) {
  /* The common answer, a result to an integer id, told by its first bytes
   * (the core writes the envelope in this order: call_finish.c) */
  static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":";
  static const char result[] = ",\"result\":";
  size_t at = sizeof head - 1;
  if (resp->len > at && memcmp(resp->data, head, at) == 0) {
    at += resp->data[at] == '-';
    while (at < resp->len && resp->data[at] >= '0' && resp->data[at] <= '9')
      at++;
    if (resp->len - at >= sizeof result - 1 &&
        memcmp(resp->data + at, result, sizeof result - 1) == 0)
      return MCP__HTTP_OK;
  }
  if (resp->len == 0 || strstr(resp->data, "\"error\"") == NULL)
    return MCP__HTTP_OK;
  json_t *msg = json_loadb(resp->data, resp->len, 0, NULL);
  json_t *err = json_object_get(msg, "error");
  int code = json_is_object(err)
                 ? (int)json_integer_value(json_object_get(err, "code"))
                 : 0;
  json_decref(msg);
  if (code == MCP_RPC_METHOD_NOT_FOUND)
    return MCP__HTTP_NOT_FOUND;
  if (code == MCP_RPC_INVALID_PARAMS || code == MCP_RPC_INVALID_REQUEST ||
      code == MCP_RPC_UNSUPPORTED_PROTOCOL_VERSION ||
      code == MCP_RPC_MISSING_CLIENT_CAPABILITY ||
      code == MCP_RPC_HEADER_MISMATCH)
    return MCP__HTTP_BAD_REQUEST;
  return MCP__HTTP_OK;
}

/* The 200 answer that carries an SSE stream (with the new session's id). */
static enum mcp__he_result queue_stream(mcp__he_conn *conn, hs_stream *st,
                                        const char *session_id) {
  mcp__he_resp *resp = mcp__hs_stream_response(st);
  if (resp == NULL)
    return MCP__HE_NO;
  /* Every long-lived SSE response counts against the stream limits. */
  mcp__hs_conn_streaming(st->h->limits, conn, st->session);
  if (session_id)
    mcp__he_resp_header(resp, HDR_SESSION, session_id);
  enum mcp__he_result ret = mcp__hs_queue_response(conn, MCP__HTTP_OK, resp);
  mcp__he_resp_destroy(resp);
  return ret;
}

/* Queues the answer of a request whose call produced output. */
static enum mcp__he_result queue_answer(hs_req *r) {
  pthread_mutex_lock(&r->lock);
  enum req_state state = r->state;
  if (state == R_JSON || state == R_SSE)
    r->state = R_QUEUED;
  pthread_mutex_unlock(&r->lock);
  const char *sid = NULL;
  if (r->new_session) {
    /* Only a successful initialize opens the session. */
    if (mcp__session_is_initialized(r->hs->se)) {
      sid = r->hs->id;
      mcp__hs_share_save(r->hs); /* before the client can go elsewhere */
    } else {
      mcp__hs_session_end(r->hs);
    }
  }
  if (state == R_SSE)
    return queue_stream(r->conn, r->stream, sid);
  if (state != R_JSON)
    return MCP__HE_YES;
  unsigned status = r->status;
  if (r->rejected)
    status = MCP__HTTP_BAD_REQUEST;
  else if (r->modern && status == MCP__HTTP_OK)
    status = modern_status(&r->resp);
  return queue_buf(r->conn, status, &r->resp, sid);
}

/* ---- the reply channel of a call ----------------------------------------- */

/* Upgrades the answer to SSE. r->lock held. */
static mcp_status upgrade(hs_req *r) {
  mcp_http_server_t *h = r->h;
  char id[HS_STREAM_ID_MAX] = "";
  bool resumable = r->hs && h->store.ops && !r->modern;
  if (resumable && !mcp__hs_session_next_stream_id(r->hs, id))
    return MCP_ERR_CLOSED;
  hs_stream *st =
      mcp__hs_stream_new(h, resumable ? r->hs : NULL, id, resumable, r->conn);
  if (st == NULL)
    return MCP_ERR_NOMEM;
  if (r->listen)
    mcp__hs_stream_notifications_only(st);
  if (resumable)
    mcp__hs_session_add_stream(r->hs, st);
  r->stream = st;
  r->state = R_SSE;
  return mcp__hs_stream_prime(st, h->o->sse_poll);
}

static void resume_if_suspended(hs_req *r) {
  if (r->suspended && !r->hold) {
    r->suspended = false;
    mcp__he_resume(r->conn);
  }
}

static mcp_status req_send(void *ctx, const char *msg, size_t len,
                           unsigned flags) {
  hs_req *r = ctx;
  bool final = flags & MCP__SEND_FINAL;
  pthread_mutex_lock(&r->lock);
  if ((flags & MCP__SEND_LIVE) && r->engine_done) {
    pthread_mutex_unlock(&r->lock); /* the client is gone */
    return MCP_ERR_CLOSED;
  }
  if (r->stream == NULL) {
    if (r->engine_done || r->state >= R_JSON) {
      pthread_mutex_unlock(&r->lock);
      return MCP_ERR_CLOSED;
    }
    if (final && !r->h->o->always_sse) {
      mcp__buf_reset(&r->resp);
      bool ok = mcp__buf_append(&r->resp, msg, len);
      r->state = R_JSON;
      resume_if_suspended(r);
      pthread_mutex_unlock(&r->lock);
      return ok ? MCP_OK : MCP_ERR_NOMEM;
    }
    mcp_status s = upgrade(r);
    if (s != MCP_OK && r->stream == NULL) {
      pthread_mutex_unlock(&r->lock);
      return s;
    }
    resume_if_suspended(r);
  }
  hs_stream *st = r->stream;
  mcp__hs_stream_retain(st);
  pthread_mutex_unlock(&r->lock);
  mcp_status s = mcp__hs_stream_send(st, msg, len, flags);
  if (final && st->session)
    mcp__hs_session_remove_stream(st->session, st);
  mcp__hs_stream_release(st);
  return s;
}

/* The call is over. A cancelled call sends nothing: end the HTTP exchange
 * anyway (204 or the end of the stream). */
static void req_done(void *ctx) {
  hs_req *r = ctx;
  pthread_mutex_lock(&r->lock);
  if (r->state == R_RUNNING) {
    r->state = R_JSON;
    r->status = MCP__HTTP_NO_CONTENT;
    resume_if_suspended(r);
  }
  hs_stream *st = r->stream;
  if (st)
    mcp__hs_stream_retain(st);
  pthread_mutex_unlock(&r->lock);
  if (st) {
    mcp__hs_stream_finish(st);
    if (st->session)
      mcp__hs_session_remove_stream(st->session, st);
    mcp__hs_stream_release(st);
  }
  req_release(r);
}

/* ---- POST ---------------------------------------------------------------- */

/* Suspends the connection and queues r for a worker, which runs call, or
 * parses the body first when call is NULL. */
static enum mcp__he_result hand_to_worker(hs_req *r, mcp_call_t *call) {
  r->call = call;
  pthread_mutex_lock(&r->lock);
  r->suspended = true;
  mcp__he_suspend(r->conn);
  pthread_mutex_unlock(&r->lock);
  mcp__hs_enqueue(r->h, r);
  return MCP__HE_YES;
}

/* The network thread's runner (mcp__call_schedule): a call that does not
 * run here goes to the worker pool. Events a call sends before its answer
 * wait until it returns (the answer becomes an SSE stream only then). */
static bool queue_call(void *ctx, mcp_call_t *call) {
  hand_to_worker(ctx, call);
  return true;
}

static enum mcp__he_result post_scanned(mcp_http_server_t *h, hs_req *r,
                                        mcp__prescan *scan);

static enum mcp__he_result post_complete(mcp_http_server_t *h, hs_req *r) {
  mcp__he_conn *conn = r->conn;
  if (r->too_large)
    return reply_error(conn, MCP__HTTP_CONTENT_TOO_LARGE,
                       MCP_RPC_INVALID_REQUEST,
                       "Invalid Request: body exceeds the size limit", NULL);
  mcp__buf_append(&r->body, "", 0); /* NUL-terminated even when empty */
  if (r->body.data == NULL || r->body.len == 0)
    return reply_error(conn, MCP__HTTP_BAD_REQUEST, MCP_RPC_PARSE_ERROR,
                       "Parse error: empty body", NULL);
  /* One parse tells all the transport needs (batch, depth, era,
   * initialize, what may run on this thread), and the dispatcher decodes
   * from the same tape when the request is accepted here. */
  mcp__prescan scan;
  if (r->body.len > MCP__SCAN_PARSE_MAX) {
    /* A big body may go to a worker, which parses it: the network thread
     * only looks (no allocation, a fraction of a parse). */
    mcp__jsonrpc_prescan(r->body.data, r->body.len, &scan);
    return post_scanned(h, r, &scan);
  }
  mcp__tape tape;
  mcp__jsonrpc_scan(r->body.data, r->body.len, &tape, &scan);
  enum mcp__he_result res = post_scanned(h, r, &scan);
  mcp__tape_release(&tape);
  return res;
}

/* post_complete with the body scanned into scan (its tape lent for the
 * call). */
static enum mcp__he_result post_scanned(mcp_http_server_t *h, hs_req *r,
                                        mcp__prescan *scan) {
  mcp__he_conn *conn = r->conn;
  if (scan->kind == MCP__SCAN_BATCH)
    return reply_error(conn, MCP__HTTP_BAD_REQUEST, MCP_RPC_INVALID_REQUEST,
                       "Invalid Request: batches (JSON arrays) are not "
                       "supported",
                       NULL);
  if (h->max_depth && scan->depth > h->max_depth)
    return reply_error(conn, MCP__HTTP_BAD_REQUEST, MCP_RPC_INVALID_REQUEST,
                       "Invalid Request: JSON nesting exceeds the depth limit",
                       NULL);
  if (h->o->auth) { /* scopes the message needs, before anything runs */
    mcp__auth_request ar = auth_request(r, h->o->endpoint);
    mcp__auth_reply reply;
    if (mcp__auth_authorize(h->o->auth, &ar, r->scopes, r->body.data,
                            r->body.len, &reply) == MCP__ADMIT_REPLY)
      return reply_auth(h, conn, &reply);
  }
  /* A legacy version header over a body whose _meta names a version,
   * outside a session, is a 2026-07-28 request whose headers disagree with
   * it (-32020 there). */
  r->modern = r->proto ? !r->proto_legacy || (scan->modern && r->hs == NULL)
                       : scan->modern;
  mcp__triage triage = mcp__server_triage(h->server, scan);
  bool initialize = triage.opens_session;

  mcp_session_t *se = NULL;
  if (r->modern) {
    se = NULL;
    /* A long-lived answer (subscriptions/listen) is an SSE stream. */
    r->listen = triage.long_lived;
    enum hs_admit admit =
        r->listen ? mcp__hs_stream_admit(h->limits, NULL) : HS_ADMIT_OK;
    if (admit != HS_ADMIT_OK)
      return reply_limit(h, conn, admit,
                         "Server busy: the stream limit is reached");
  } else if (h->o->stateless) {
    mcp_status s;
    if (initialize) {
      mcp__channel none = {NULL, NULL, NULL, NULL, false};
      s = mcp__session_new(h->server, none, &r->temp);
    } else {
      s = mcp__session_new_stateless(
          h->server, r->proto ? r->proto : DEFAULT_LEGACY_VERSION, &r->temp);
    }
    if (s != MCP_OK)
      return reply_error(conn, MCP__HTTP_INTERNAL_SERVER_ERROR,
                         MCP_RPC_INTERNAL_ERROR, "Internal error", NULL);
    se = r->temp;
  } else if (r->hs) {
    se = r->hs->se;
  } else if (initialize) {
    hs_session *hs;
    mcp_status s = mcp__hs_session_create(h, &hs);
    if (s == MCP_ERR_LIMIT)
      return reply_limit(h, conn, HS_ADMIT_BUSY,
                         "Server busy: the session limit is reached");
    if (s != MCP_OK)
      return reply_error(conn, MCP__HTTP_INTERNAL_SERVER_ERROR,
                         MCP_RPC_INTERNAL_ERROR, "Internal error", NULL);
    mcp__hs_session_touch(hs, 1);
    r->hs = hs; /* released (and untouched) with r */
    if (r->subject && (hs->subject = strdup(r->subject)) == NULL) {
      mcp__hs_session_end(hs);
      return reply_error(conn, MCP__HTTP_INTERNAL_SERVER_ERROR,
                         MCP_RPC_INTERNAL_ERROR, "Internal error", NULL);
    }
    r->new_session = true;
    se = hs->se;
  } else {
    return reply_error(conn, MCP__HTTP_BAD_REQUEST, MCP_RPC_INVALID_REQUEST,
                       "Bad Request: Mcp-Session-Id header is required", NULL);
  }

  r->se = se;
  r->state = R_RUNNING;
  if (!r->new_session && !triage.at_once && !triage.cheap) {
    /* An ordinary request: the worker parses, runs and frees it, so its
     * memory never crosses threads (glibc arenas stay uncontended). */
    atomic_fetch_add(&r->refs, 1); /* the worker's */
    /* the tape (and strings decoded into it) end with post_complete: the
     * worker parses again, knowing the depth */
    r->scan = (mcp__prescan){.kind = scan->kind, .depth = scan->depth};
    return hand_to_worker(r, NULL);
  }
  mcp__channel reply = {req_send, req_done, r, r->h, false};
  mcp_call_t *call = NULL;
  mcp__accept a = mcp__server_accept_scanned(
      h->server, se, &r->peer, r->body.data, r->body.len, scan, reply, &call);
  mcp__buf_free(&r->body); /* the call owns its parsed message */
  if (a == MCP__ACCEPT_HANDLED) {
    r->state = R_QUEUED;
    return reply_empty(conn, MCP__HTTP_ACCEPTED, NULL);
  }
  if (a == MCP__ACCEPT_REJECTED) {
    r->rejected = true;
    if (r->state == R_RUNNING)
      r->state = R_JSON;
    return queue_answer(r);
  }
  atomic_fetch_add(&r->refs, 1); /* the call's, released by req_done */
  mcp__runner here = {.queue = queue_call, .ctx = r, .holds_events = true};
  if (mcp__call_schedule(call, &here))
    return queue_answer(r);
  return MCP__HE_YES; /* a worker answers (hand_to_worker) */
}

void mcp__hs_work(hs_req *r, bool cancel) {
  mcp_call_t *call = r->call;
  if (call == NULL) { /* parse here (see post_complete); r holds our ref */
    mcp__channel reply = {req_send, req_done, r, r->h, false};
    /* An error reply sent while parsing must not resume the connection
     * before rejected is set. */
    pthread_mutex_lock(&r->lock);
    r->hold = true;
    pthread_mutex_unlock(&r->lock);
    mcp__accept a =
        mcp__server_accept_scanned(r->h->server, r->se, &r->peer, r->body.data,
                                   r->body.len, &r->scan, reply, &call);
    /* Parsed: the call owns its message. A long-lived answer (a listen
     * stream) must not keep the bytes too. */
    mcp__buf_free(&r->body);
    pthread_mutex_lock(&r->lock);
    r->hold = false;
    if (a == MCP__ACCEPT_REQUEST)
      pthread_mutex_unlock(&r->lock);
    else {
      if (a == MCP__ACCEPT_HANDLED) {
        mcp__buf_reset(&r->resp);
        r->status = MCP__HTTP_ACCEPTED;
      } else {
        r->rejected = true;
      }
      if (r->state == R_RUNNING)
        r->state = R_JSON;
      resume_if_suspended(r);
      pthread_mutex_unlock(&r->lock);
      req_release(r);
      return;
    }
    /* our reference becomes the call's, released by req_done */
  }
  if (cancel)
    mcp__call_cancel(call);
  /* req_send and req_done work from any thread: a blocked tasks/result
   * gives its worker back and is answered when the task ends. */
  mcp__runner worker = {.holds_events = true, .any_thread = true};
  mcp__call_run_queued(call, &worker); /* may free r through done */
}

/* ---- GET and DELETE ------------------------------------------------------ */

/* "<stream>-<n>" -> "<stream>" */
static bool stream_of_event(const char *event_id, char out[HS_STREAM_ID_MAX]) {
  const char *dash = strrchr(event_id, '-');
  if (dash == NULL || dash == event_id ||
      (size_t)(dash - event_id) >= HS_STREAM_ID_MAX)
    return false;
  memcpy(out, event_id, (size_t)(dash - event_id));
  out[dash - event_id] = '\0';
  return true;
}

/* r is a GET stream from now on: it is no activity of its session, so an
 * open stream does not keep an idle session alive (issue #16 item 2). */
static void stream_only(hs_req *r) {
  if (r->hs && !r->stream_only) {
    r->stream_only = true;
    mcp__hs_session_touch(r->hs, -1);
  }
}

static enum mcp__he_result handle_resume(mcp_http_server_t *h, hs_req *r,
                                         const char *last_id) {
  char sid[HS_STREAM_ID_MAX];
  if (!stream_of_event(last_id, sid))
    return reply_error(r->conn, MCP__HTTP_BAD_REQUEST, MCP_RPC_INVALID_REQUEST,
                       "Bad Request: malformed Last-Event-ID", NULL);
  enum hs_admit admit = mcp__hs_stream_admit(h->limits, r->hs);
  if (admit != HS_ADMIT_OK)
    return reply_limit(h, r->conn, admit,
                       admit == HS_ADMIT_BUSY
                           ? "Server busy: the stream limit is reached"
                           : "Too many streams open for this session");
  hs_stream *st = mcp__hs_session_find_stream(r->hs, sid);
  if (st == NULL) {
    /* The stream ended: replay what the client missed, then end. */
    st = mcp__hs_stream_new(h, r->hs, sid, false, NULL);
    if (st == NULL)
      return MCP__HE_NO;
    mcp__hs_stream_finish(st);
  }
  mcp_status s = mcp__hs_stream_attach(st, r->conn, last_id);
  if (s == MCP_OK)
    stream_only(r);
  enum mcp__he_result ret =
      s == MCP_OK
          ? queue_stream(r->conn, st, NULL)
          : reply_error(r->conn, MCP__HTTP_BAD_REQUEST, MCP_RPC_INVALID_REQUEST,
                        "Bad Request: unknown or expired Last-Event-ID", NULL);
  mcp__hs_stream_release(st);
  return ret;
}

static enum mcp__he_result handle_get(mcp_http_server_t *h, hs_req *r) {
  mcp__he_conn *conn = r->conn;
  const char *accept = mcp__he_known(conn, MCP__HK_ACCEPT);
  if (!mcp__http_accepts(accept, "text/event-stream"))
    return reply_error(conn, MCP__HTTP_NOT_ACCEPTABLE, MCP_RPC_INVALID_REQUEST,
                       "Not Acceptable: Accept must include text/event-stream",
                       NULL);
  const char *last_id = mcp__he_known(conn, MCP__HK_LAST_EVENT_ID);
  if (last_id && h->store.ops)
    return handle_resume(h, r, last_id);
  hs_session *hs = r->hs;
  enum hs_admit admit = mcp__hs_stream_admit(h->limits, hs);
  if (admit != HS_ADMIT_OK)
    return reply_limit(h, conn, admit,
                       admit == HS_ADMIT_BUSY
                           ? "Server busy: the stream limit is reached"
                           : "Too many streams open for this session");
  pthread_mutex_lock(&hs->lock);
  if (hs->ended) {
    /* Ended since the lookup (DELETE, expiry, a server stop): the end has
     * released its streams already, so one installed now would hold the
     * session (and it the stream) for ever, and a stopping server would
     * wait on them. */
    pthread_mutex_unlock(&hs->lock);
    return reply_error(conn, MCP__HTTP_NOT_FOUND, MCP_RPC_INVALID_REQUEST,
                       "Not Found: unknown or terminated session", NULL);
  }
  hs_stream *old = hs->get_stream;
  bool busy = false;
  if (old) {
    pthread_mutex_lock(&old->lock);
    busy = old->conn != NULL && !old->finished;
    pthread_mutex_unlock(&old->lock);
  }
  if (busy) {
    pthread_mutex_unlock(&hs->lock);
    return reply_error(conn, MCP__HTTP_CONFLICT, MCP_RPC_INVALID_REQUEST,
                       "Conflict: this session already has a GET stream", NULL);
  }
  hs_stream *st =
      mcp__hs_stream_new(h, hs, HS_GET_STREAM_ID, h->store.ops != NULL, conn);
  if (st) {
    mcp__hs_stream_notifications_only(st);
    hs->get_stream = st;
  } else
    hs->get_stream = old, old = NULL;
  pthread_mutex_unlock(&hs->lock);
  if (old) {
    mcp__hs_stream_finish(old);
    mcp__hs_stream_release(old);
  }
  if (st == NULL)
    return MCP__HE_NO;
  mcp__hs_stream_prime(st, false);
  stream_only(r);
  /* What the stream may carry follows its caller, also on a replica that
   * adopted the session (its resources/subscribe ran elsewhere). Out of
   * memory keeps the earlier viewer. */
  (void)mcp__session_set_viewer_peer(hs->se, &r->peer);
  /* Task messages that found no stream so far go out on this one. */
  mcp__session_stream_opened(hs->se);
  return queue_stream(conn, st, NULL);
}

/* ---- request entry ------------------------------------------------------- */

static bool origin_ok(mcp_http_server_t *h, mcp__he_conn *conn) {
  const char *origin = mcp__he_known(conn, MCP__HK_ORIGIN);
  if (origin == NULL || h->o->norigins == 0)
    return true;
  return mcp__http_list_has(h->o->origins, h->o->norigins, origin) ||
         mcp__hs_cors_allows(h->o, origin); /* CORS implies allowed */
}

static bool host_ok(mcp_http_server_t *h, mcp__he_conn *conn) {
  if (h->o->nhosts == 0)
    return true;
  const char *host = mcp__he_known(conn, MCP__HK_HOST);
  return mcp__http_list_has(h->o->hosts, h->o->nhosts, host);
}

/* Identity headers a request must not be ambiguous about: a repeated Host
 * or Origin would let the allow-list check one value while something else
 * reads the other (the engine's parser counts them; it refuses a repeated
 * Host itself). Framing is not looked at here: the engine decides all of
 * it in its parser (http_parse.c) before this layer sees the request.
 * Returns MCP__HE_YES/MCP__HE_NO after queuing a response, or -1. */
static int check_headers(mcp__he_conn *conn) {
  unsigned host = mcp__he_known_count(conn, MCP__HK_HOST);
  unsigned origin = mcp__he_known_count(conn, MCP__HK_ORIGIN);
  if (host > 1 || origin > 1)
    return reply_error(conn, MCP__HTTP_BAD_REQUEST, MCP_RPC_INVALID_REQUEST,
                       host > 1 ? "Bad Request: more than one Host header"
                                : "Bad Request: more than one Origin header",
                       NULL);
  return -1;
}

/* A content coding the body would need decoding from (RFC 9110 8.4):
 * none is supported, so such a body is refused instead of being read as
 * plain JSON. */
static bool content_coded(mcp__he_conn *conn) {
  const char *ce = mcp__he_known(conn, MCP__HK_CONTENT_ENCODING);
  return ce != NULL && !mcp__http_coding_is_identity(ce);
}

static bool same_subject(const char *a, const char *b) {
  return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

/* first_call's answer while the admission waits (token introspection, the
 * DPoP replay record): the connection is parked at its head (its body
 * unread) until auth_ready resumes it. */
#define AUTH_PENDING (-2)

/* The resource server granted r: what its call may see. */
static void admitted(mcp_http_server_t *h, hs_req *r) {
  r->peer.subject = r->subject;
  r->peer.scopes = r->scopes;
  r->peer.may_read = mcp__auth_may_read; /* streams see what it may read */
  r->peer.policy = h->o->auth;
}

/* The resource server has the answer r's admission waited for (an
 * introspection, the DPoP replay record: mcp__auth_admit's ready, on its
 * thread): the parked connection goes on (on_later, auth_resumed). */
static void auth_ready(void *ctx) {
  hs_req *r = ctx;
  pthread_mutex_lock(&r->lock);
  r->auth_answered = true;
  resume_if_suspended(r);
  pthread_mutex_unlock(&r->lock);
  req_release(r); /* the waiter's */
}

/* The resource server's admission (metadata, bearer token, DPoP proof),
 * run or resumed (resume: r->auth_wait's answer is in). -1 when granted,
 * MCP__HE_YES/MCP__HE_NO after queuing a reply, AUTH_PENDING when it waits
 * for an introspection or the DPoP replay record: the connection is
 * suspended and no other connection waits for it. */
static int admission(mcp_http_server_t *h, hs_req *r, const char *url,
                     bool resume) {
  mcp__he_conn *conn = r->conn;
  mcp__auth_request ar = auth_request(r, url);
  for (;;) {
    mcp__auth_reply reply;
    pthread_mutex_lock(&r->lock);
    r->auth_answered = false;
    pthread_mutex_unlock(&r->lock);
    atomic_fetch_add(&r->refs, 1); /* a waiter's, should there be one */
    mcp__admit a =
        resume ? mcp__auth_admit_resume(h->o->auth, r->auth_wait, &ar,
                                        &r->subject, &r->scopes, &reply)
               : mcp__auth_admit(h->o->auth, &ar, &r->subject, &r->scopes,
                                 &reply, auth_ready, r, &r->auth_wait);
    if (a != MCP__ADMIT_PENDING) {
      req_release(r);
      r->auth_wait = NULL; /* freed by the resource server */
    }
    if (a == MCP__ADMIT_REPLY)
      return reply_auth(h, conn, &reply);
    if (a == MCP__ADMIT_GRANTED) {
      admitted(h, r);
      return -1;
    }
    pthread_mutex_lock(&r->lock);
    bool answered = r->auth_answered; /* already: no need to park */
    if (!answered) {
      r->suspended = true;
      mcp__he_suspend(conn);
    }
    pthread_mutex_unlock(&r->lock);
    if (!answered)
      return AUTH_PENDING;
    resume = true;
  }
}

static int after_admission(mcp_http_server_t *h, hs_req *r, const char *url);

/* Checks made once the headers are in. Returns MCP__HE_YES/MCP__HE_NO after
 * queuing a response, AUTH_PENDING (suspended), or -1 to go on. */
static int first_call(mcp_http_server_t *h, hs_req *r, const char *url) {
  mcp__he_conn *conn = r->conn;
  int framing = check_headers(conn);
  if (framing >= 0)
    return framing;
  /* Prometheus: its own allow-list, no MCP authorization (http_metrics.h) */
  int metrics = mcp__hs_metrics_route(h, r, url);
  if (metrics >= 0)
    return metrics;
  /* the resource server: metadata, bearer token (a CORS preflight carries
   * no credentials: it is answered below) */
  if (h->o->auth && !(r->method == M_OPTIONS && h->o->ncors)) {
    int ret = admission(h, r, url, false);
    if (ret != -1)
      return ret;
  }
  return after_admission(h, r, url);
}

/* A request parked in its admission is resumed: the admission goes on
 * (it may park again), then first_call where it left. */
static int auth_resumed(mcp_http_server_t *h, hs_req *r) {
  const char *url = mcp__he_path(r->conn);
  if (url == NULL)
    return MCP__HE_NO;
  int ret = admission(h, r, url, true);
  return ret != -1 ? ret : after_admission(h, r, url);
}

/* first_call after the admission. */
static int after_admission(mcp_http_server_t *h, hs_req *r, const char *url) {
  mcp__he_conn *conn = r->conn;
  if (strcmp(url, h->o->endpoint) != 0)
    return reply_error(conn, MCP__HTTP_NOT_FOUND, MCP_RPC_INVALID_REQUEST,
                       "Not Found", NULL);
  /* Both checks defend against DNS rebinding; 403 for both keeps one rule
   * for clients (documented in docs/http.md). */
  if (!host_ok(h, conn))
    return reply_error(conn, MCP__HTTP_FORBIDDEN, MCP_RPC_INVALID_REQUEST,
                       "Forbidden: Host not allowed", NULL);
  if (!origin_ok(h, conn))
    return reply_error(conn, MCP__HTTP_FORBIDDEN, MCP_RPC_INVALID_REQUEST,
                       "Forbidden: Origin not allowed", NULL);
  if (atomic_load(&h->stopping))
    return reply_error(conn, MCP__HTTP_SERVICE_UNAVAILABLE, RPC_SERVER_BUSY,
                       "Service Unavailable: shutting down", NULL);
  const char *allow = h->o->stateless    ? "POST"
                      : h->o->get_stream ? "GET, POST, DELETE"
                                         : "POST, DELETE";
  if (r->method == M_OPTIONS && h->o->ncors)
    return mcp__hs_cors_preflight(h->o, conn, allow);
  if (r->method == M_OTHER || r->method == M_OPTIONS ||
      (r->method == M_GET && (h->o->stateless || !h->o->get_stream)) ||
      (r->method == M_DELETE && h->o->stateless))
    return reply_empty(conn, MCP__HTTP_METHOD_NOT_ALLOWED, allow);

  const char *proto = mcp__he_known(conn, MCP__HK_MCP_PROTOCOL_VERSION);
  /* A POST with an unknown version is answered by the server in the
   * 2026-07-28 era, with the request's id (it may be a newer client). */
  const char *sid = mcp__he_known(conn, MCP__HK_MCP_SESSION_ID);
  bool in_session = sid != NULL;
  if (proto && (r->method != M_POST || in_session) &&
      !mcp__version_is_supported(proto) && !mcp__version_is_modern(proto)) {
    json_t *data =
        json_pack("{s:o,s:s}", "supported", mcp__supported_versions_json(),
                  "requested", proto);
    return reply_error(conn, MCP__HTTP_BAD_REQUEST,
                       MCP_RPC_UNSUPPORTED_PROTOCOL_VERSION,
                       "Bad Request: unsupported MCP-Protocol-Version", data);
  }
  /* 2026-07-28 has no GET stream (subscriptions/listen replaces it), no
   * Last-Event-ID resumption and no session to DELETE: POST only. */
  if (r->method != M_POST && proto && mcp__version_is_modern(proto))
    return reply_empty(conn, MCP__HTTP_METHOD_NOT_ALLOWED, "POST");
  if (proto) { /* any other than an unknown POST's is short */
    mcp__str_copy(r->proto_buf, sizeof r->proto_buf, proto);
    r->proto = r->proto_buf;
    r->proto_legacy = mcp__version_is_supported(proto);
  }
  if (r->method == M_POST && !collect_mcp_headers(r))
    return reply_error(conn, MCP__HTTP_BAD_REQUEST, MCP_RPC_HEADER_MISMATCH,
                       "Bad Request: too many Mcp-Param-* headers", NULL);
  if (r->method == M_POST) {
    const char *accept = mcp__he_known(conn, MCP__HK_ACCEPT);
    static const char *const both[] = {"application/json",
                                       "text/event-stream"};
    /* what clients send (the SDKs, the spec's examples) needs no parse */
    bool usual = accept != NULL &&
                 strcmp(accept, "application/json, text/event-stream") == 0;
    if (!usual && mcp__http_accepts_each(accept, both, 2) != 3)
      return reply_error(conn, MCP__HTTP_NOT_ACCEPTABLE, MCP_RPC_INVALID_REQUEST,
                         "Not Acceptable: Accept must list application/json "
                         "and text/event-stream",
                         NULL);
    if (content_coded(conn))
      return reply_unsupported_coding(conn);
    const char *type = mcp__he_known(conn, MCP__HK_CONTENT_TYPE);
    if (!(type && strcmp(type, "application/json") == 0) && /* the usual */
        !mcp__http_media_type_is(type, "application/json"))
      return reply_error(conn, MCP__HTTP_UNSUPPORTED_MEDIA_TYPE,
                         MCP_RPC_INVALID_REQUEST,
                         "Unsupported Media Type: use application/json", NULL);
    uint64_t length;
    if (mcp__he_body_length(conn, &length) && length > h->o->max_body)
      return reply_error(conn, MCP__HTTP_CONTENT_TOO_LARGE,
                         MCP_RPC_INVALID_REQUEST,
                         "Invalid Request: body exceeds the size limit", NULL);
  }
  if (!h->o->stateless) {
    bool modern_post = r->method == M_POST && r->proto && !r->proto_legacy;
    if (sid && !modern_post) {
      bool unreachable = false;
      r->hs = mcp__hs_session_find(h, sid, &unreachable);
      if (r->hs == NULL && unreachable) /* shared sessions, store away */
        return reply_error(conn, MCP__HTTP_SERVICE_UNAVAILABLE,
                           MCP_RPC_INTERNAL_ERROR,
                           "Service Unavailable: the session store cannot be "
                           "reached; try again later",
                           NULL);
      /* A session belongs to the subject that opened it: to anyone else
       * it does not exist. */
      if (r->hs && !same_subject(r->hs->subject, r->subject)) {
        mcp__hs_session_release(r->hs);
        r->hs = NULL;
      }
      if (r->hs == NULL)
        return reply_error(conn, MCP__HTTP_NOT_FOUND, MCP_RPC_INVALID_REQUEST,
                           "Not Found: unknown or terminated session", NULL);
      mcp__hs_session_touch(r->hs, 1);
    } else if (r->method != M_POST) {
      return reply_error(conn, MCP__HTTP_BAD_REQUEST, MCP_RPC_INVALID_REQUEST,
                         "Bad Request: Mcp-Session-Id header is required",
                         NULL);
    }
  }
  if (r->method == M_GET)
    return handle_get(h, r);
  if (r->method == M_DELETE) {
    mcp__hs_share_drop(r->hs);
    mcp__hs_session_end(r->hs);
    return reply_empty(conn, MCP__HTTP_NO_CONTENT, NULL);
  }
  return -1;
}

/* on_head: the request's checks and, unless a body follows, its answer
 * (now, or after a suspension). */
static enum mcp__he_result on_head(void *cls, mcp__he_conn *conn,
                                   const char *method, const char *url,
                                   const char *version, void **con_cls) {
  mcp_http_server_t *h = cls;
  hs_req *r = req_new(h, conn);
  if (r == NULL)
    return MCP__HE_NO;
  *con_cls = r;
  r->method = strcmp(method, "POST") == 0      ? M_POST
              : strcmp(method, "GET") == 0     ? M_GET
              : strcmp(method, "DELETE") == 0  ? M_DELETE
              : strcmp(method, "OPTIONS") == 0 ? M_OPTIONS
                                               : M_OTHER;
  enum hs_admit admit =
      mcp__hs_conn_request(h->limits, conn, r->method == M_POST);
  if (admit != HS_ADMIT_OK) {
    r->state = R_QUEUED;
    return reply_limit(h, conn, admit,
                       admit == HS_ADMIT_BUSY
                           ? "Server busy: the connection limit is reached"
                           : "Too many connections from this address");
  }
  (void)version; /* the engine answers other majors; 1.0 and 1.1 alike here */
  int ret = first_call(h, r, url);
  if (ret >= 0) {
    r->state = R_QUEUED;
    return (enum mcp__he_result)ret;
  }
  return MCP__HE_YES; /* a POST: the body follows (or, suspended, later) */
}

/* on_body: a POST's body is collected up to max_body; a body after an
 * early answer is dropped. */
static enum mcp__he_result on_body(void *cls, mcp__he_conn *conn,
                                   void **con_cls, const char *data,
                                   size_t len) {
  mcp_http_server_t *h = cls;
  hs_req *r = *con_cls;
  (void)conn;
  if (r == NULL || r->state != R_READING || len == 0)
    return MCP__HE_YES;
  if (r->too_large || r->body.len + len > h->o->max_body) {
    r->too_large = true;
    mcp__buf_free(&r->body);
  } else if (!mcp__buf_append(&r->body, data, len)) {
    return MCP__HE_NO;
  }
  return MCP__HE_YES;
}

/* on_end and on_resume: a POST whose body is complete goes to its call;
 * a request whose call produced its answer gets it queued. */
static enum mcp__he_result on_later(void *cls, mcp__he_conn *conn,
                                    void **con_cls) {
  mcp_http_server_t *h = cls;
  hs_req *r = *con_cls;
  if (r == NULL)
    return MCP__HE_NO;
  if (r->auth_wait) { /* resumed at its head: the admission's answer is in */
    int ret = auth_resumed(h, r);
    if (ret >= 0) {
      r->state = R_QUEUED;
      return (enum mcp__he_result)ret;
    }
    return MCP__HE_YES; /* a POST: now its body is read (or parked again) */
  }
  if (r->state == R_READING) {
    mcp__hs_conn_body_done(h->limits, conn);
    return post_complete(h, r);
  }
  /* Resumed after the call produced its answer. */
  pthread_mutex_lock(&r->lock);
  enum req_state state = r->state;
  pthread_mutex_unlock(&r->lock);
  if (state == R_JSON || state == R_SSE)
    return queue_answer(r);
  return MCP__HE_YES;
}

const mcp__he_handler mcp__hs_handler = {
    .on_head = on_head,
    .on_body = on_body,
    .on_end = on_later,
    .on_resume = on_later,
};

void mcp__hs_on_completed(void *cls, mcp__he_conn *conn,
                          void **con_cls, enum mcp__he_end toe) {
  mcp_http_server_t *h = cls;
  (void)toe;
  mcp__hs_conn_request_done(h->limits, conn);
  hs_req *r = *con_cls;
  if (r == NULL)
    return;
  *con_cls = NULL;
  if (r->auth_wait && mcp__auth_wait_cancel(h->o->auth, r->auth_wait)) {
    /* gone while its token was introspected: no answer will come */
    mcp__auth_wait_free(r->auth_wait);
    r->auth_wait = NULL;
    req_release(r); /* the waiter's */
  }
  pthread_mutex_lock(&r->lock);
  r->engine_done = true;
  /* The own engine completes a parked request whose client left (close
   * detection): nothing may resume its connection afterwards. */
  r->suspended = false;
  /* A 2026-07-28 answer that streamed may be a subscriptions/listen
   * stream, which lives until its client leaves: now. */
  bool streamed = r->modern && r->stream != NULL;
  pthread_mutex_unlock(&r->lock);
  if (streamed)
    mcp__server_channel_gone(r->h->server, r);
  req_release(r);
}
