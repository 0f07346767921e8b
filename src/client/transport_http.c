/* SPDX-License-Identifier: MIT */
/* transport_http.c - client side of Streamable HTTP on libcurl.
 *
 * Every message is its own POST. A request's answer comes back either as
 * application/json or as a text/event-stream that carries the response
 * (and, before it, notifications and server-to-client requests). When such
 * a stream ends before the response arrived, the transport resumes it with
 * GET + Last-Event-ID after waiting the stream's retry: interval (SEP-1699
 * polling). The session id from the initialize answer and the negotiated
 * protocol version go out as headers on every later request. */
#include <ctype.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "client/internal.h"
#include "client/sse.h"
#include "util/clock.h"
#include "util/thread.h"
#include "json/load.h"

/* How often one request's stream may be resumed without any event arriving
 * in between, and the wait when the server never sent retry:. */
enum { MAX_IDLE_RESUMES = 5, DEFAULT_RETRY_MS = 1000 };

typedef struct http_transport {
  mcp__ctransport base;
  pthread_mutex_t lock; /* guards the fields below */
  char *session_id;
  char *protocol_version;
  bool modern; /* 2026-07-28: no session id, no standalone stream */
  /* The standalone GET stream, for server-initiated requests and
   * notifications (the only way they reach a client outside a request). */
  pthread_t listener;
  bool listening;
  /* The GET stream was answered (or gave up): connect waits for this so the
   * standalone stream never races the first requests (a server, or the
   * conformance suite, would otherwise take it for a resumption). */
  bool listener_ready;
  pthread_cond_t listener_cond;
  bool stopping;
  int get_fd; /* socket of the GET stream, -1 when none */
} http_transport;

/* State of one HTTP exchange. */
typedef struct exchange {
  http_transport *t;
  long status;
  char *www_authenticate; /* of a 401/403, malloc'd */
  bool is_sse;
  mcp__buf body;         /* non-SSE body */
  mcp__sse *sse;         /* persists across resumptions of one stream */
  size_t events;         /* SSE events with data seen in this exchange */
  const json_t *wait_id; /* the request this stream answers, or NULL */
  bool answered;         /* wait_id got its response: stop reading */
  bool listener;         /* this is the standalone GET stream */
  char *const *extra;    /* per-request header lines, or NULL */
  int timeout_ms;        /* 0: the client's; < 0: none */
} exchange;

static void mark_listener_ready(http_transport *t) {
  pthread_mutex_lock(&t->lock);
  t->listener_ready = true;
  pthread_cond_broadcast(&t->listener_cond);
  pthread_mutex_unlock(&t->lock);
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init_once(void) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void on_event(const char *event, const char *id, const char *data,
                     size_t len, void *user_data) {
  exchange *x = user_data;
  x->events++;
  if (len == 0 || strcmp(event, "message") != 0)
    return; /* priming events carry an id and no data */
  mcp__client_receive_text(x->t->base.client, data, len);
}

static size_t on_header(char *buf, size_t size, size_t n, void *ud) {
  exchange *x = ud;
  size_t len = size * n;
  if (x->listener && (len == 2 || len == 1) &&
      (buf[0] == '\r' || buf[0] == '\n'))
    mark_listener_ready(x->t); /* end of the GET stream's headers */
  const char *colon = memchr(buf, ':', len);
  if (colon == NULL)
    return len;
  size_t name_len = (size_t)(colon - buf);
  const char *v = colon + 1;
  const char *end = buf + len;
  while (v < end && (*v == ' ' || *v == '\t'))
    v++;
  while (end > v && isspace((unsigned char)end[-1]))
    end--;
  if (name_len == 10 && strncasecmp(buf, "dpop-nonce", 10) == 0) {
    mcp_client_options_t *o = &x->t->base.client->opts;
    char *nonce = strndup(v, (size_t)(end - v));
    if (nonce != NULL && o->dpop_nonce_fn != NULL)
      o->dpop_nonce_fn(o->token_ud, nonce);
    free(nonce);
  } else if (name_len == 16 && strncasecmp(buf, "www-authenticate", 16) == 0) {
    free(x->www_authenticate);
    x->www_authenticate = strndup(v, (size_t)(end - v));
  } else if (name_len == 12 && strncasecmp(buf, "content-type", 12) == 0) {
    x->is_sse =
        (size_t)(end - v) >= 17 && strncasecmp(v, "text/event-stream", 17) == 0;
  } else if (name_len == 14 && strncasecmp(buf, "mcp-session-id", 14) == 0 &&
             end > v && !x->t->modern) {
    char *sid = strndup(v, (size_t)(end - v));
    if (sid != NULL) {
      pthread_mutex_lock(&x->t->lock);
      free(x->t->session_id);
      x->t->session_id = sid;
      pthread_mutex_unlock(&x->t->lock);
    }
  }
  return len;
}

static size_t on_body(char *buf, size_t size, size_t n, void *ud) {
  exchange *x = ud;
  size_t len = size * n;
  bool ok = x->is_sse ? mcp__sse_feed(x->sse, buf, len)
                      : mcp__buf_append(&x->body, buf, len);
  /* A stream may stay open after the response (a resumed GET usually
   * does); once the answer is in, stop reading instead of waiting. */
  if (ok && x->is_sse && x->wait_id != NULL &&
      !mcp__client_is_pending(x->t->base.client, x->wait_id)) {
    x->answered = true;
    return 0;
  }
  return ok ? len : 0;
}

static struct curl_slist *base_headers(http_transport *t, const char *verb,
                                       bool post, const char *last_event_id,
                                       char *const *extra) {
  mcp_client_options_t *o = &t->base.client->opts;
  struct curl_slist *h = NULL, *tmp;
  char line[1024];
#define ADD(s)                                                                 \
  do {                                                                         \
    tmp = curl_slist_append(h, (s));                                           \
    if (tmp == NULL)                                                           \
      goto fail;                                                               \
    h = tmp;                                                                   \
  } while (0)
  if (post) {
    ADD("Content-Type: application/json");
    ADD("Accept: application/json, text/event-stream");
  } else {
    ADD("Accept: text/event-stream");
  }
  pthread_mutex_lock(&t->lock);
  /* decided under the lock: a session restart may clear the id meanwhile */
  bool fits = t->session_id != NULL && !t->modern &&
              snprintf(line, sizeof line, "MCP-Session-Id: %s", t->session_id) <
                  (int)sizeof line;
  pthread_mutex_unlock(&t->lock);
  if (fits)
    ADD(line);
  pthread_mutex_lock(&t->lock);
  fits = t->protocol_version != NULL &&
         snprintf(line, sizeof line, "MCP-Protocol-Version: %s",
                  t->protocol_version) < (int)sizeof line;
  pthread_mutex_unlock(&t->lock);
  if (fits)
    ADD(line);
  if (last_event_id != NULL && last_event_id[0] != '\0' &&
      snprintf(line, sizeof line, "Last-Event-ID: %s", last_event_id) <
          (int)sizeof line)
    ADD(line);
  char *provided = NULL;
  if (o->token_fn != NULL &&
      o->token_fn(o->token_ud, o->url, 0, NULL, &provided, NULL) != MCP_OK)
    provided = NULL;
  const char *bearer = o->token_fn ? provided : o->bearer;
  if (bearer != NULL) {
    /* a DPoP-bound token goes with a fresh proof of this very request */
    char *proof = o->token_fn && o->dpop_proof_fn
                      ? o->dpop_proof_fn(o->token_ud, verb, o->url, bearer)
                      : NULL;
    if (proof != NULL) {
      char *dpop = NULL;
      if (asprintf(&dpop, "DPoP: %s", proof) < 0)
        dpop = NULL;
      tmp = dpop ? curl_slist_append(h, dpop) : NULL;
      free(dpop);
      if (tmp == NULL) {
        free(proof);
        free(provided);
        goto fail;
      }
      h = tmp;
    }
    size_t need = strlen(bearer) + 32;
    char *auth = malloc(need);
    if (auth == NULL) {
      free(proof);
      free(provided);
      goto fail;
    }
    snprintf(auth, need, "Authorization: %s %s", proof ? "DPoP" : "Bearer",
             bearer);
    free(proof);
    free(provided);
    tmp = curl_slist_append(h, auth);
    free(auth);
    if (tmp == NULL)
      goto fail;
    h = tmp;
  }
  for (size_t i = 0; o->headers != NULL && o->headers[i] != NULL; i++)
    ADD(o->headers[i]);
  for (size_t i = 0; extra != NULL && extra[i] != NULL; i++)
    ADD(extra[i]);
#undef ADD
  return h;
fail:
  curl_slist_free_all(h);
  return NULL;
}

/* Called by curl about once a second and on progress: a request that no
 * longer waits (a stopped listen, a timed-out request) ends its stream even
 * while the server sends nothing. */
static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow,
                       curl_off_t ultotal, curl_off_t ulnow) {
  (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
  exchange *x = ud;
  if (x->wait_id != NULL &&
      !mcp__client_is_pending(x->t->base.client, x->wait_id)) {
    x->answered = true;
    return 1;
  }
  return 0;
}

/* The listener's socket is recorded so close() can shut it down: a
 * blocked GET then returns at once instead of at its next timeout. */
static curl_socket_t open_listener_socket(void *ud, curlsocktype purpose,
                                          struct curl_sockaddr *a) {
  http_transport *t = ud;
  curl_socket_t fd = socket(a->family, a->socktype, a->protocol);
  pthread_mutex_lock(&t->lock);
  if (t->stopping && fd >= 0) {
    close(fd);
    fd = CURL_SOCKET_BAD;
  }
  t->get_fd = fd;
  pthread_mutex_unlock(&t->lock);
  return fd;
}

static int close_listener_socket(void *ud, curl_socket_t fd) {
  http_transport *t = ud;
  pthread_mutex_lock(&t->lock);
  if (t->get_fd == fd)
    t->get_fd = -1;
  pthread_mutex_unlock(&t->lock);
  return close(fd);
}

/* Runs one HTTP exchange: POST body (when non-NULL), GET with
 * Last-Event-ID, or DELETE. What x learnt of the previous exchange (status,
 * type, body, event count) is reset first; its SSE parser carries over. */
static mcp_status perform(http_transport *t, const char *verb, const char *body,
                          size_t len, exchange *x, mcp_error_t *err) {
  mcp_client_options_t *o = &t->base.client->opts;
  x->status = 0;
  free(x->www_authenticate);
  x->www_authenticate = NULL;
  x->is_sse = false;
  x->events = 0;
  mcp__buf_reset(&x->body);
  CURL *curl = curl_easy_init();
  struct curl_slist *h =
      base_headers(t, verb, body != NULL,
                   strcmp(verb, "GET") == 0 ? mcp__sse_last_id(x->sse) : NULL,
                   body != NULL ? x->extra : NULL);
  if (curl == NULL || h == NULL) {
    curl_easy_cleanup(curl);
    curl_slist_free_all(h);
    return mcp_error_set(err, MCP_ERR_NOMEM, "cannot set up the HTTP request");
  }
  char errbuf[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(curl, CURLOPT_URL, o->url);
  /* https: the peer's certificate and name are always verified */
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  if (o->cacert != NULL)
    curl_easy_setopt(curl, CURLOPT_CAINFO, o->cacert);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, h);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, x);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, x);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
  if (x->wait_id != NULL) {
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, x);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  }
  if (x->listener) {
    curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, open_listener_socket);
    curl_easy_setopt(curl, CURLOPT_OPENSOCKETDATA, t);
    curl_easy_setopt(curl, CURLOPT_CLOSESOCKETFUNCTION, close_listener_socket);
    curl_easy_setopt(curl, CURLOPT_CLOSESOCKETDATA, t);
    /* its own connection: a reused socket would escape the shutdown */
    curl_easy_setopt(curl, CURLOPT_FORBID_REUSE, 1L);
    curl_easy_setopt(curl, CURLOPT_FRESH_CONNECT, 1L);
  } else if (x->timeout_ms == 0 && o->timeout_ms > 0) {
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, (long)o->timeout_ms);
  } else if (x->timeout_ms > 0) {
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, (long)x->timeout_ms);
  }
  if (body != NULL) {
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, (long)len);
  } else if (strcmp(verb, "DELETE") == 0) {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "DELETE");
  }
  int64_t started_ns = o->http_observer ? mcp__monotonic_ns() : 0;
  CURLcode rc = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &x->status);
  if (o->http_observer != NULL)
    o->http_observer(t->base.client, verb, o->url, x->status,
                     (double)(mcp__monotonic_ns() - started_ns) / 1e6,
                     x->is_sse, o->http_observer_ud);
  curl_easy_cleanup(curl);
  curl_slist_free_all(h);
  /* A stream the server closes is the normal end of an SSE exchange. */
  if ((rc == CURLE_WRITE_ERROR || rc == CURLE_ABORTED_BY_CALLBACK) &&
      x->answered)
    rc = CURLE_OK;
  if (rc != CURLE_OK && !(x->is_sse && x->status == 200 &&
                          (rc == CURLE_PARTIAL_FILE || rc == CURLE_RECV_ERROR)))
    return mcp_error_set(
        err, rc == CURLE_OPERATION_TIMEDOUT ? MCP_ERR_TIMEOUT : MCP_ERR_IO,
        "%s %s: %s", verb, o->url, errbuf[0] ? errbuf : curl_easy_strerror(rc));
  return MCP_OK;
}

static mcp_status http_status_error(http_transport *t, exchange *x,
                                    const char *verb, mcp_error_t *err) {
  pthread_mutex_lock(&t->lock);
  bool in_session = t->session_id != NULL;
  pthread_mutex_unlock(&t->lock);
  /* POST: the core starts a new session (MCP_ERR_NOT_FOUND, internal.h);
   * a resumed GET cannot be replayed in another session. */
  if (x->status == 404 && in_session)
    return mcp_error_set(
        err, strcmp(verb, "POST") == 0 ? MCP_ERR_NOT_FOUND : MCP_ERR_CLOSED,
        "%s: HTTP 404: the session ended on the server", verb);
  const char *body = x->body.data ? x->body.data : "";
  return mcp_error_set(err, MCP_ERR_IO, "%s: HTTP %ld%s%.160s", verb, x->status,
                       body[0] ? ": " : "", body);
}

/* Whether a 4xx says by itself what went wrong with the HTTP exchange, so
 * that a body not naming the request does not replace it: credentials
 * (401, 403: token providers, mcpc's hints), the endpoint (404: a wrong
 * URL, or in a session its end, on which a new one is started, see
 * http_status_error; 405) and media types (406, 415). */
static bool status_speaks(long status) {
  return status == 401 || status == 403 || status == 404 || status == 405 ||
         status == 406 || status == 415;
}

/* A 4xx answer whose body is the JSON-RPC error for this very request (the
 * 2026-07-28 era answers -32020/-32021/-32022/-32602 with 400 and unknown
 * methods with 404): delivered as the answer, so the caller sees the
 * server's code and message. As tolerant as a 2xx answer: an "error"
 * object is all it needs, without "jsonrpc". The body answers this
 * exchange, so it may also lack the id (or carry a null one, a server that
 * could not read ours) unless the status itself speaks (status_speaks); it
 * is delivered under this request's id. An id naming another request, a
 * result or a method keep it an HTTP error. */
static bool deliver_error_body(http_transport *t, exchange *x,
                               const json_t *request_id) {
  if (request_id == NULL || x->is_sse || x->status < 400 || x->status >= 500 ||
      x->body.len == 0)
    return false;
  json_error_t je;
  json_t *msg = mcp__json_load(x->body.data, x->body.len, &je);
  json_t *id = json_object_get(msg, "id");
  bool unnamed = id == NULL || json_is_null(id);
  bool ours =
      json_is_object(msg) && json_is_object(json_object_get(msg, "error")) &&
      json_object_get(msg, "result") == NULL &&
      json_object_get(msg, "method") == NULL &&
      (unnamed ? !status_speaks(x->status) : json_equal(id, request_id));
  /* a copy: request_id stays the caller's alone */
  if (!ours ||
      json_object_set_new(msg, "id", json_deep_copy(request_id)) != 0) {
    json_decref(msg);
    return false;
  }
  mcp__client_receive_json(t->base.client, msg);
  return true;
}

static mcp_status http_send(mcp__ctransport *base, const char *bytes,
                            size_t len, const mcp__csend *info,
                            mcp_error_t *err) {
  http_transport *t = (http_transport *)base;
  const json_t *request_id = info ? info->request_id : NULL;
  mcp__sse sse;
  exchange x = {.t = t,
                .sse = &sse,
                .wait_id = request_id,
                .extra = info ? info->headers : NULL,
                .timeout_ms = info ? info->timeout_ms : 0};
  mcp__buf_init(&x.body);
  mcp__sse_init(&sse, on_event, &x);
  mcp_status st = perform(t, "POST", bytes, len, &x, err);
  /* 401/403: a token provider may obtain a (better) token; the request is
   * sent again, a few times at most (step-up can take more than one). */
  mcp_client_options_t *o = &t->base.client->opts;
  for (int retry = 0; st == MCP_OK && o->token_fn != NULL && retry < 3 &&
                      (x.status == 401 || x.status == 403);
       retry++) {
    char *token = NULL;
    st = o->token_fn(o->token_ud, o->url, (int)x.status, x.www_authenticate,
                     &token, err);
    free(token); /* sent by base_headers, which asks again */
    if (st == MCP_OK)
      st = perform(t, "POST", bytes, len, &x, err);
  }
  if (st == MCP_OK && (x.status < 200 || x.status >= 300)) {
    if (deliver_error_body(t, &x, request_id)) {
      mcp__sse_free(&sse);
      mcp__buf_free(&x.body);
      return MCP_OK;
    }
    st = http_status_error(t, &x, "POST", err);
  }
  if (st == MCP_OK && request_id != NULL && !x.is_sse) {
    if (x.body.len == 0 ||
        !mcp__client_receive_text(t->base.client, x.body.data, x.body.len))
      st = mcp_error_set(err, MCP_ERR_PARSE,
                         "POST: HTTP %ld without a JSON-RPC answer", x.status);
  }
  /* The stream ended without the response: resume it (SEP-1699). */
  int idle = 0;
  while (st == MCP_OK && x.is_sse && request_id != NULL &&
         mcp__client_is_pending(t->base.client, request_id)) {
    if (mcp__sse_last_id(&sse)[0] == '\0' || idle >= MAX_IDLE_RESUMES) {
      st = mcp_error_set(err, MCP_ERR_CLOSED,
                         "the event stream ended before the response and "
                         "cannot be resumed");
      break;
    }
    mcp__client_sleep_ms(sse.retry_ms >= 0 ? sse.retry_ms : DEFAULT_RETRY_MS);
    st = perform(t, "GET", NULL, 0, &x, err);
    if (st == MCP_OK && x.status != 200)
      st = http_status_error(t, &x, "GET", err);
    if (st == MCP_OK && !x.is_sse)
      st = mcp_error_set(err, MCP_ERR_IO, "GET: not an event stream");
    idle = x.events > 0 ? 0 : idle + 1;
  }
  mcp__sse_free(&sse);
  mcp__buf_free(&x.body);
  free(x.www_authenticate);
  return st;
}

static bool stopping(http_transport *t) {
  pthread_mutex_lock(&t->lock);
  bool s = t->stopping;
  pthread_mutex_unlock(&t->lock);
  return s;
}

/* Waits ms, returning early (false) once the transport is stopping. */
static bool pause_unless_stopping(http_transport *t, long ms) {
  for (long waited = 0; waited < ms; waited += 50) {
    if (stopping(t))
      return false;
    mcp__client_sleep_ms(ms - waited < 50 ? ms - waited : 50);
  }
  return !stopping(t);
}

/* The standalone GET stream: reconnects (with Last-Event-ID, after the
 * retry: interval) when the server ends it; stops for good when the server
 * offers none (405 or any non-stream answer) or after repeated failures. */
static void *listener_main(void *arg) {
  http_transport *t = arg;
  mcp__sse sse;
  exchange x = {.t = t, .sse = &sse, .listener = true};
  mcp__buf_init(&x.body);
  mcp__sse_init(&sse, on_event, &x);
  int failures = 0;
  while (!stopping(t) && failures < MAX_IDLE_RESUMES) {
    mcp_status st = perform(t, "GET", NULL, 0, &x, NULL);
    if (stopping(t) || (st == MCP_OK && (x.status != 200 || !x.is_sse)))
      break;
    failures = st == MCP_OK ? 0 : failures + 1;
    if (!pause_unless_stopping(t, sse.retry_ms >= 0 ? sse.retry_ms
                                                    : DEFAULT_RETRY_MS))
      break;
  }
  mark_listener_ready(t); /* never leave connect waiting */
  mcp__sse_free(&sse);
  mcp__buf_free(&x.body);
  free(x.www_authenticate);
  return NULL;
}

static void http_set_version(mcp__ctransport *base, const char *version) {
  http_transport *t = (http_transport *)base;
  char *v = version ? strdup(version) : NULL;
  bool modern = version != NULL && strcmp(version, MCP__MODERN_VERSION) >= 0;
  pthread_mutex_lock(&t->lock);
  t->modern = modern;
  if (modern || version == NULL) {
    /* no session in 2026-07-28; NULL: back to a legacy start */
    free(t->protocol_version);
    t->protocol_version = v;
    free(t->session_id);
    t->session_id = NULL;
    pthread_mutex_unlock(&t->lock);
    return;
  }
  free(t->protocol_version);
  t->protocol_version = v;
  /* initialize succeeded: from now on the server may talk first */
  t->listener_ready = false;
  pthread_mutex_unlock(&t->lock);
  if (!t->listening && mcp__thread_start(&t->listener, listener_main, t) == 0) {
    t->listening = true;
    struct timespec deadline;
    /* a server that never answers GET costs 3 s once */
    mcp__deadline_in(CLOCK_REALTIME, 3000, &deadline);
    pthread_mutex_lock(&t->lock);
    while (!t->listener_ready &&
           pthread_cond_timedwait(&t->listener_cond, &t->lock, &deadline) == 0)
      ;
    pthread_mutex_unlock(&t->lock);
  }
}

/* Ends the standalone GET stream and joins its thread (t->stopping stays
 * set; the caller decides what comes next). */
static void stop_listener(http_transport *t) {
  pthread_mutex_lock(&t->lock);
  t->stopping = true;
  if (t->get_fd >= 0)
    shutdown(t->get_fd, SHUT_RDWR);
  pthread_mutex_unlock(&t->lock);
  if (t->listening)
    pthread_join(t->listener, NULL);
}

/* Stops the standalone stream of the old session and forgets the session:
 * the next initialize goes out without MCP-Session-Id, and its answer
 * (http_set_version) starts a new stream. */
static void http_reset_session(mcp__ctransport *base) {
  http_transport *t = (http_transport *)base;
  stop_listener(t);
  pthread_mutex_lock(&t->lock);
  t->listening = false;
  t->stopping = false;
  free(t->session_id);
  t->session_id = NULL;
  free(t->protocol_version);
  t->protocol_version = NULL;
  pthread_mutex_unlock(&t->lock);
}

static const char *http_session_id(mcp__ctransport *base) {
  return ((http_transport *)base)->session_id;
}

static void http_close(mcp__ctransport *base) {
  http_transport *t = (http_transport *)base;
  stop_listener(t);
  if (t->session_id != NULL) {
    /* spec: S send DELETE to end the session; 405 means "not allowed" and
     * is fine, so the outcome is ignored */
    mcp__sse sse;
    exchange x = {.t = t, .sse = &sse};
    mcp__buf_init(&x.body);
    mcp__sse_init(&sse, NULL, NULL);
    perform(t, "DELETE", NULL, 0, &x, NULL);
    mcp__sse_free(&sse);
    mcp__buf_free(&x.body);
    free(x.www_authenticate);
  }
  mcp__client_closed(t->base.client);
  free(t->session_id);
  free(t->protocol_version);
  pthread_mutex_destroy(&t->lock);
  pthread_cond_destroy(&t->listener_cond);
  free(t);
}

static const mcp__ctransport_ops HTTP_OPS = {
    .send = http_send,
    .set_protocol_version = http_set_version,
    .session_id = http_session_id,
    .reset_session = http_reset_session,
    .close = http_close};

mcp_status mcp__ctransport_http_new(mcp_client_t *c, mcp__ctransport **out,
                                    mcp_error_t *err) {
  pthread_once(&curl_once, curl_init_once);
  http_transport *t = calloc(1, sizeof *t);
  if (t == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  t->base.ops = &HTTP_OPS;
  t->base.client = c;
  t->get_fd = -1;
  pthread_mutex_init(&t->lock, NULL);
  pthread_cond_init(&t->listener_cond, NULL);
  *out = &t->base;
  return MCP_OK;
}
