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

typedef struct he_loop he_loop;

struct MHD_Response {
  atomic_int refs;
  bool callback; /* body from crc, else data/len */
  bool close;    /* a "Connection: close" header was added */
  char *data;
  size_t len;
  bool owned;
  MHD_ContentReaderCallback crc;
  void *crc_cls;
  MHD_ContentReaderFreeCallback crfc;
  size_t block;
  char *hdrs; /* "Name: value\r\n" lines */
  size_t hlen, hcap;
};

struct MHD_Daemon {
  MHD_AccessHandlerCallback dh;
  void *dh_cls;
  MHD_RequestCompletedCallback done;
  void *done_cls;
  MHD_NotifyConnectionCallback notify;
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
  union MHD_DaemonInfo info; /* answer of MHD_get_daemon_info */
  mcp__tls_ctx *tls;
};

struct he_loop {
  struct MHD_Daemon *d;
  pthread_t thread;
  bool started;
  int ep, evfd;
  bool listening; /* the listening socket is in ep */
  int64_t accept_paused_until;
  atomic_uint epoch; /* advances every loop iteration (quiesce) */
  pthread_mutex_t mu;
  struct MHD_Connection *wake;  /* resumed connections (mu) */
  bool signalled;               /* evfd written, not yet read (mu) */
  struct MHD_Connection *conns; /* open connections */
  struct MHD_Connection *grave; /* closed, freed at the end of a batch */
  char *scratch;
  mcp__hp_field fields[MCP__HP_MAX_FIELDS];
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

struct MHD_Connection {
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
  struct sockaddr *addr_p; /* &addr, for MHD_CONNECTION_INFO_CLIENT_ADDRESS */
  struct sockaddr_in6 addr;
  he_req *req;
  uint64_t body_left;
  mcp__hp_chunked ch;
  char *rbuf; /* unprocessed input, only while a request is being read */
  uint32_t rlen, rcap, scanned;
  struct MHD_Response *resp;
  unsigned status;
  char *obuf; /* head and framing bytes to send, only while writing */
  uint32_t olen, ooff;
  const char *body;
  size_t body_len; /* left of a buffer response */
  uint64_t rpos;   /* reader position */
  int64_t active_ms, linger_until;
  mcp__tls *tls;
  struct MHD_Connection *prev, *next, *wnext;
};

/* ---- http_engine.c (loop thread unless noted) ------------------------- */
int64_t mcp__he_now_ms(void);
/* Sets the interest set of c (EPOLLIN, EPOLLOUT, EPOLLRDHUP). */
void mcp__he_want(struct MHD_Connection *c, uint32_t events);
/* Closes c: completion and close notifications, descriptor, buffers. */
void mcp__he_close(struct MHD_Connection *c,
                   enum MHD_RequestTerminationCode toe);
/* Queues c for mcp__he_continue on its loop (any thread). */
void mcp__he_wake(struct MHD_Connection *c);
/* The Date header value of now (cached per second). */
const char *mcp__he_date(he_loop *l);

/* ---- http_conn.c (loop thread) ----------------------------------------- */
/* Events of c's socket. */
void mcp__he_conn_event(struct MHD_Connection *c, uint32_t events);
/* A resumed connection goes on. */
void mcp__he_continue(struct MHD_Connection *c);
/* The response of c and its request block are released. */
void mcp__he_conn_release(struct MHD_Connection *c);

/* MHD-compatible functions of http_conn.c, in the table of http_engine.c */
const char *mcp__he_lookup(struct MHD_Connection *c, enum MHD_ValueKind kind,
                           const char *key);
int mcp__he_values(struct MHD_Connection *c, enum MHD_ValueKind kind,
                   MHD_KeyValueIterator it, void *cls);
const union MHD_ConnectionInfo *
mcp__he_conn_info(struct MHD_Connection *c, enum MHD_ConnectionInfoType type,
                  ...);
enum MHD_Result mcp__he_queue(struct MHD_Connection *c, unsigned int status,
                              struct MHD_Response *r);
void mcp__he_suspend(struct MHD_Connection *c);
void mcp__he_resume(struct MHD_Connection *c);
struct MHD_Response *mcp__he_resp_buffer(size_t size, void *data,
                                         enum MHD_ResponseMemoryMode mode);
struct MHD_Response *mcp__he_resp_callback(uint64_t size, size_t block,
                                           MHD_ContentReaderCallback crc,
                                           void *crc_cls,
                                           MHD_ContentReaderFreeCallback crfc);
enum MHD_Result mcp__he_resp_options(struct MHD_Response *r,
                                     enum MHD_ResponseFlags flags, ...);
enum MHD_Result mcp__he_resp_header(struct MHD_Response *r, const char *name,
                                    const char *value);
void mcp__he_resp_destroy(struct MHD_Response *r);

#endif
