/* SPDX-License-Identifier: MIT */
/* event_store_memory.c - the in-memory SSE event store.
 *
 * Per session a FIFO of events (oldest first) bounded by count, bytes and
 * age; the oldest are evicted first, so a resume that refers to an evicted
 * id fails with MCP_ERR_NOT_FOUND instead of silently skipping events.
 * Sessions live in a fixed-size hash table under one mutex: appends are
 * short (a copy and a list link), so one lock is cheaper than finer ones.
 * Ids are "<stream>-<n>" with n counting per session, so they are unique in
 * the session and name their stream.
 */
#include "mcp/event_store.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"

#define BUCKETS 256
/* Room for "-" and 20 digits after the stream id within MCP_EVENT_ID_MAX. */
#define STREAM_MAX (MCP_EVENT_ID_MAX - 21)

typedef struct mem_event {
  struct mem_event *next;
  uint64_t seq;
  int64_t at_ms;
  char stream[STREAM_MAX];
  size_t len;
  char data[]; /* len bytes + NUL */
} mem_event;

typedef struct mem_session {
  struct mem_session *next; /* bucket chain */
  char *id;
  mem_event *head, *tail; /* head is the oldest */
  size_t count, bytes;
  uint64_t next_seq;
} mem_session;

typedef struct mem_store {
  pthread_mutex_t lock;
  mcp_event_store_memory_limits limits;
  mem_session *buckets[BUCKETS];
} mem_store;

static size_t hash(const char *s) {
  size_t h = 5381;
  for (; *s; s++)
    h = h * 33 + (unsigned char)*s;
  return h % BUCKETS;
}

static mem_session *find(mem_store *m, const char *id, bool create) {
  size_t b = hash(id);
  for (mem_session *s = m->buckets[b]; s; s = s->next)
    if (strcmp(s->id, id) == 0)
      return s;
  if (!create)
    return NULL;
  mem_session *s = calloc(1, sizeof *s);
  if (s == NULL || (s->id = strdup(id)) == NULL) {
    free(s);
    return NULL;
  }
  s->next_seq = 1;
  s->next = m->buckets[b];
  m->buckets[b] = s;
  return s;
}

static void evict_oldest(mem_session *s) {
  mem_event *e = s->head;
  s->head = e->next;
  if (s->head == NULL)
    s->tail = NULL;
  s->count--;
  s->bytes -= e->len;
  free(e);
}

static void enforce_limits(const mcp_event_store_memory_limits *l,
                           mem_session *s, int64_t now) {
  while (s->head && ((l->max_events && s->count > l->max_events) ||
                     (l->max_bytes && s->bytes > l->max_bytes) ||
                     (l->max_age_ms && now - s->head->at_ms > l->max_age_ms)))
    evict_oldest(s);
}

static mcp_status mem_append(void *impl, const char *session_id,
                             const char *stream_id, const char *data,
                             size_t len, char event_id[MCP_EVENT_ID_MAX]) {
  mem_store *m = impl;
  if (strlen(stream_id) >= STREAM_MAX || strchr(stream_id, '-'))
    return MCP_ERR_INVALID_ARG; /* the id must split back at its last '-' */
  mem_event *e = malloc(sizeof *e + len + 1);
  if (e == NULL)
    return MCP_ERR_NOMEM;
  memcpy(e->data, data, len);
  e->data[len] = '\0';
  e->len = len;
  e->next = NULL;
  snprintf(e->stream, sizeof e->stream, "%s", stream_id);
  e->at_ms = mcp__monotonic_ms();
  pthread_mutex_lock(&m->lock);
  mem_session *s = find(m, session_id, true);
  if (s == NULL) {
    pthread_mutex_unlock(&m->lock);
    free(e);
    return MCP_ERR_NOMEM;
  }
  e->seq = s->next_seq++;
  if (s->tail)
    s->tail->next = e;
  else
    s->head = e;
  s->tail = e;
  s->count++;
  s->bytes += len;
  snprintf(event_id, MCP_EVENT_ID_MAX, "%s-%" PRIu64, stream_id, e->seq);
  enforce_limits(&m->limits, s, e->at_ms);
  pthread_mutex_unlock(&m->lock);
  return MCP_OK;
}

/* Splits "<stream>-<n>"; false when malformed. */
static bool parse_id(const char *id, char stream[MCP_EVENT_ID_MAX],
                     uint64_t *seq) {
  const char *dash = strrchr(id, '-');
  if (dash == NULL || dash == id || (size_t)(dash - id) >= MCP_EVENT_ID_MAX ||
      dash[1] == '\0')
    return false;
  char *end;
  unsigned long long n = strtoull(dash + 1, &end, 10);
  if (*end != '\0' || dash[1] < '0' || dash[1] > '9')
    return false;
  memcpy(stream, id, (size_t)(dash - id));
  stream[dash - id] = '\0';
  *seq = n;
  return true;
}

static mcp_status mem_replay(void *impl, const char *session_id,
                             const char *last_event_id, mcp_event_replay_fn fn,
                             void *ctx, char stream_id_out[MCP_EVENT_ID_MAX]) {
  mem_store *m = impl;
  char stream[MCP_EVENT_ID_MAX];
  uint64_t seq;
  if (!parse_id(last_event_id, stream, &seq))
    return MCP_ERR_NOT_FOUND;
  /* Copy the matching events out under the lock and call fn without it:
   * fn writes to a connection buffer and must not stall other sessions. */
  pthread_mutex_lock(&m->lock);
  mem_session *s = find(m, session_id, false);
  if (s)
    enforce_limits(&m->limits, s, mcp__monotonic_ms());
  bool known = false;
  mem_event *copy_head = NULL, **copy_tail = &copy_head;
  mcp_status st = MCP_OK;
  if (s && seq < s->next_seq) {
    /* seq may be the last event of the stream and still be retained, or be
     * older than the oldest retained event of the session (evicted). */
    known = s->head && seq >= s->head->seq;
    for (mem_event *e = s->head; e && known; e = e->next) {
      if (e->seq <= seq || strcmp(e->stream, stream) != 0)
        continue;
      mem_event *c = malloc(sizeof *c + e->len + 1);
      if (c == NULL) {
        st = MCP_ERR_NOMEM;
        break;
      }
      memcpy(c, e, sizeof *c + e->len + 1);
      c->next = NULL;
      *copy_tail = c;
      copy_tail = &c->next;
    }
  }
  pthread_mutex_unlock(&m->lock);
  if (!known && st == MCP_OK)
    st = MCP_ERR_NOT_FOUND;
  if (st == MCP_OK && stream_id_out)
    snprintf(stream_id_out, MCP_EVENT_ID_MAX, "%s", stream);
  for (mem_event *c = copy_head, *next; c; c = next) {
    next = c->next;
    if (st == MCP_OK) {
      char id[MCP_EVENT_ID_MAX];
      snprintf(id, sizeof id, "%s-%" PRIu64, c->stream, c->seq);
      st = fn(ctx, id, c->data, c->len);
    }
    free(c);
  }
  return st;
}

static void free_session(mem_session *s) {
  while (s->head)
    evict_oldest(s);
  free(s->id);
  free(s);
}

static void mem_drop(void *impl, const char *session_id) {
  mem_store *m = impl;
  pthread_mutex_lock(&m->lock);
  for (mem_session **p = &m->buckets[hash(session_id)]; *p; p = &(*p)->next)
    if (strcmp((*p)->id, session_id) == 0) {
      mem_session *s = *p;
      *p = s->next;
      free_session(s);
      break;
    }
  pthread_mutex_unlock(&m->lock);
}

static void mem_close(void *impl) {
  mem_store *m = impl;
  if (m == NULL)
    return;
  for (size_t b = 0; b < BUCKETS; b++)
    for (mem_session *s = m->buckets[b], *next; s; s = next) {
      next = s->next;
      free_session(s);
    }
  pthread_mutex_destroy(&m->lock);
  free(m);
}

static const mcp_event_store_ops memory_ops = {
    .version = 1,
    .name = "memory",
    .append = mem_append,
    .replay_after = mem_replay,
    .drop_session = mem_drop,
    .close = mem_close,
};

mcp_status
mcp_event_store_memory_new(const mcp_event_store_memory_limits *limits,
                           mcp_event_store *out) {
  if (out == NULL)
    return MCP_ERR_INVALID_ARG;
  out->ops = NULL;
  out->impl = NULL;
  mem_store *m = calloc(1, sizeof *m);
  if (m == NULL)
    return MCP_ERR_NOMEM;
  pthread_mutex_init(&m->lock, NULL);
  if (limits)
    m->limits = *limits;
  else
    m->limits = (mcp_event_store_memory_limits){1024, 1u << 20, 300000};
  out->ops = &memory_ops;
  out->impl = m;
  return MCP_OK;
}
