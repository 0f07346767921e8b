/* SPDX-License-Identifier: MIT */
/* http_engine_internal.h - structures shared by http_engine.c (loops,
 * daemon) and http_conn.c (one connection). See http_engine.h.
 *
 * Threads: a connection belongs to one loop thread, which alone reads,
 * writes and frees it. Other threads only call resume, which marks the
 * connection under its loop's lock and wakes the loop through its eventfd.
 * A closed connection is freed at the end of the loop's event batch, and
 * only once no wake-up for it is pending.
 */
#ifndef MCP_TRANSPORT_HTTP_ENGINE_INTERNAL_H
#define MCP_TRANSPORT_HTTP_ENGINE_INTERNAL_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

#include "transport/http_engine.h"
#include "transport/http_parse.h"
#include "transport/http_tls_ossl.h"

#define HE_SCRATCH (64u * 1024) /* per-loop receive buffer */
#define HE_EVENTS  256
#define HE_HEAD_BUF 512 /* a response head without an allocation */

typedef struct he_loop he_loop;

struct mcp__he_resp {
  atomic_int refs;
  bool callback; /* body from crc, else data/len */
  bool close;    /* a "Connection: close" header was added */
  char *data;
  size_t len;
  bool owned;
  mcp__he_reader_fn crc;
  void *crc_cls;
  mcp__he_reader_free_fn crfc;
  size_t block;
  char *hdrs; /* "Name: value\r\n" lines: hsmall, or heap once longer */
  size_t hlen, hcap;
  char hsmall[160];
};

struct mcp__he_daemon {
  const mcp__he_handler *handler;
  void *dh_cls;
  mcp__he_completed_fn done;
  void *done_cls;
  mcp__he_notify_fn notify;
  void *notify_cls;
  int lfd;
  atomic_bool quiesced, stop;
  unsigned nloops;
  he_loop *loops;
  size_t head_max;
  unsigned timeout_s;
  unsigned conn_limit;
  atomic_uint nconns;
  atomic_uint next_loop;
  mcp__tls_ctx *tls;
};

struct he_loop {
  mcp__he_daemon *d;
  pthread_t thread;
  bool started;
  int ep, evfd;
  bool listening; /* the listening socket is in ep */
  int64_t accept_paused_until;
  atomic_uint epoch; /* advances every loop iteration (quiesce) */
  pthread_mutex_t mu;
  mcp__he_conn *wake;  /* resumed connections (mu) */
  bool signalled;               /* evfd written, not yet read (mu) */
  mcp__he_conn *conns; /* open connections */
  mcp__he_conn *grave; /* closed, freed at the end of a batch */
  char *scratch;
  mcp__hp_field fields[MCP__HP_MAX_FIELDS];
  /* a response head is written here and sent at once; only what the
   * socket does not take is copied to the connection (obuf) */
  char head[HE_HEAD_BUF];
  char date[40];
  time_t date_sec;
  /* tags of the two descriptors in ep that are not connections */
  char tag_listen, tag_wake;
};

enum he_state {
  HE_TLS = 0,  /* TLS handshake */
  HE_HEAD,     /* reading a request head (idle between requests too) */
  HE_BODY,     /* reading a request body */
  HE_PARK_REQ, /* the request callback suspended the connection */
  HE_WRITE,    /* writing a response */
  HE_PARK_OUT, /* the body reader suspended the connection */
  HE_LINGER    /* answered, closing: reading and dropping the rest */
};

/* The request in progress: its head, parsed in place in this block. */
typedef struct he_req {
  mcp__hp_head head;
  char text[]; /* the head's bytes, then the field array */
} he_req;

struct mcp__he_conn {
  he_loop *loop;
  int fd;
  uint8_t state;
  uint32_t events;   /* the interest set in ep */
  bool dead;         /* closed: freed at the end of the batch */
  bool queued;       /* on loop->wake (loop->mu) */
  bool called;       /* the request callback saw the current request */
  bool must_close;   /* close after this response */
  bool chunked;      /* the response body goes out chunked */
  bool body_end;     /* the reader ended the body */
  bool no_body;      /* HEAD or a status without a body */
  bool unread;       /* request body bytes were left unread */
  bool want_write;   /* TLS needs a writable socket to go on */
  bool susp_in_call; /* the last callback suspended the connection */
  bool req_read;     /* the current request is read to its end */
  bool peer_shut;    /* the client shut its side while its answer was owed:
                        nothing more is read, close after the answer */
  uint32_t susp_seq; /* suspensions so far (loop thread) */
  atomic_bool suspended;
  void *socket_context;
  void *con_cls;
  struct sockaddr_in6 addr;
  he_req *req;
  uint64_t body_left;
  mcp__hp_chunked ch;
  char *rbuf; /* unprocessed input, only while a request is being read */
  uint32_t rlen, rcap, scanned;
  mcp__he_resp *resp;
  unsigned status;
  char *obuf; /* head and framing bytes to send, only while writing */
  uint32_t olen, ooff;
  const char *body;
  size_t body_len; /* left of a buffer response */
  uint64_t rpos;   /* reader position */
  int64_t active_ms, linger_until;
  mcp__tls *tls;
  mcp__he_conn *prev, *next, *wnext;
};

/* ---- http_engine.c (loop thread unless noted) ------------------------- */
int64_t mcp__he_now_ms(void);
/* Sets the interest set of c (EPOLLIN, EPOLLOUT, EPOLLRDHUP). */
void mcp__he_want(mcp__he_conn *c, uint32_t events);
/* Closes c: completion and close notifications, descriptor, buffers. */
void mcp__he_close(mcp__he_conn *c,
                   enum mcp__he_end toe);
/* Queues c for mcp__he_continue on its loop (any thread). */
void mcp__he_wake(mcp__he_conn *c);
/* The Date header value of now (cached per second). */
const char *mcp__he_date(he_loop *l);

/* ---- http_conn.c (loop thread) ----------------------------------------- */
/* Events of c's socket. */
void mcp__he_conn_event(mcp__he_conn *c, uint32_t events);
/* A resumed connection goes on. */
void mcp__he_continue(mcp__he_conn *c);
/* The response of c and its request block are released. */
void mcp__he_conn_release(mcp__he_conn *c);

#endif
