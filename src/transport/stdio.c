/* SPDX-License-Identifier: MIT */
/* stdio.c - MCP over newline-delimited JSON on two file descriptors.
 *
 * Threads: the caller's thread reads and classifies lines (client responses
 * and notifications such as notifications/cancelled are handled right there,
 * so they are never stuck behind busy workers); requests go to a pool of
 * worker threads. Where a message is accepted and where its call runs is
 * the core's decision (mcp__server_triage, mcp__call_schedule: lifecycle
 * requests in input order here, a call of a tool proven cheap here, the
 * rest on workers), shared with HTTP: the hand-off to a worker costs more
 * than a cheap tool. Of a pipelined burst of cheap calls the reader runs a
 * share (a third on two cores, see may_run_here and share_period), so that
 * the workers keep the other cores busy. Workers are woken sparingly (see publish): one per call that
 * may block, few for cheap ones.
 *
 * Output uses flat combining: a sender appends its line to a shared buffer,
 * and whichever sender finds no write in progress writes out everything
 * pending. Under load many responses leave in one write(2); when idle each
 * response is written at once. Lines the reading thread sends while it
 * works through one read(2) chunk are held and written together when the
 * chunk is done (one write for all the answers of a chunk). A worker
 * likewise holds the responses of the cheap calls it runs back to back and
 * hands them over together at the end of a run, when its queue runs dry,
 * or before a call that may take long: one lock for many answers instead
 * of one each. A response that others follow at once from other threads
 * (a task's first answer, MCP__SEND_NOW) is never held.
 */
#include "mcp/stdio.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "server/dispatch.h"
#include "transport/stdout_guard.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/hash.h"
#include "util/pool.h"

/* Pending output above this blocks senders until the writer catches up, so a
 * client that stops reading cannot make the server buffer without bound. */
#define OUTPUT_HIGH_WATER (8u << 20)
#define READ_CHUNK        65536
/* Requests waiting for a worker above which the reader pauses. Bounds memory
 * under a flood; see wait_for_room() for why the pause is never permanent. */
#define QUEUE_HIGH_WATER 1024
/* Responses a worker holds (see worker_out) are handed over at this size at
 * the latest. */
#define WORKER_HOLD_MAX 65536
/* Cheap calls a worker takes from the queue at once. */
#define WORKER_TAKE 16

/* A request line handed to a worker, with the reader's parse of it when it
 * made one (a tape allocates nothing: the nodes are moved into the job).
 * The worker decodes it: memory a message allocates is then allocated and
 * freed on one thread, which keeps glibc's arenas uncontended (decoding on
 * the reader and freeing on a worker made malloc locks the top cost in
 * profiles). One allocation holds the job, the nodes and the line. */
typedef struct job {
  struct job *next;
  mcp_call_t *call; /* already accepted by the reader, or NULL: decode bytes */
  size_t len;
  size_t depth;      /* nesting found by the reader's scan */
  mcp__tnode *nodes; /* the reader's tape of bytes, or NULL: parse them */
  size_t count;      /* nodes */
  bool decoded_nul;  /* the tape's flag of that name */
  bool cheap;        /* a tools/call of a tool that has proven cheap */
  char *bytes;       /* the line, NUL-terminated */
} job;

/* A counter on its own cache line. A call is counted up on the thread
 * that accepts it and down on the one that finishes it, mostly the same:
 * each thread counts in the slot its id hashes to, and only the sum means
 * anything (a slot may go negative). */
#define INFLIGHT_SLOTS 16
typedef union inflight_slot {
  atomic_long n;
  char line[64];
} inflight_slot;

typedef struct stdio_transport {
  mcp_server_t *server;
  int in_fd, out_fd;
  mcp_session_t *session;

  /* output */
  pthread_mutex_t out_lock;
  pthread_cond_t out_drained;
  mcp__buf pending, writing;
  size_t written; /* bytes of writing already out (a write the reader left
                   * unfinished, see flush_held); the flusher's */
  bool flushing;
  bool out_broken;  /* write failed (EPIPE): drop further output */
  pthread_t reader; /* the thread that runs read_loop */
  bool holding;     /* read_loop runs: the reader holds its own output and
                     * never blocks on writing it (only the reader reads or
                     * writes this) */

  /* work queue */
  pthread_mutex_t q_lock;
  pthread_cond_t q_nonempty;
  job *head, *tail;
  unsigned idle_workers;
  /* Workers worth running cheap calls at once: the cores beside the
   * reader's. More would only take turns on the same cores, each turn a
   * wake-up (see publish). */
  unsigned cheap_workers;
  size_t queued;      /* jobs in head..tail */
  uint64_t completed; /* jobs finished, for progress detection */
  /* completed when last seen to move, and when (stalled()) */
  uint64_t completed_seen;
  int64_t progress_ns;
  unsigned busy_slow; /* workers running a job not proven cheap */
  pthread_cond_t q_room;
  bool stopping;
  job *batch_head, *batch_tail; /* reader-local: jobs of the current chunk */
  unsigned cheap_seen; /* reader-local: cheap calls seen in this chunk */
  /* The reader runs one run of cheap calls in this many. It also parses
   * every line (about 0.4 of a call's cost), so on two cores it takes a
   * third and a worker the rest: both cores then do the same work
   * (bench/stdio/run: 550k calls/s against 515k with every other run,
   * medians of five). With more cores the workers have them: only each
   * chunk's first run is the reader's. */
  unsigned share_period;
  mcp__pool workers;
  /* Accepted requests not finished yet, parked tasks/result calls included;
   * shutdown waits (q_idle, under q_lock) for zero before freeing the
   * transport. Counted in slots by thread (see inflight_slot), summed only
   * then: one shared counter was a cache line every core wrote twice per
   * request. */
  inflight_slot inflight[INFLIGHT_SLOTS];
  pthread_cond_t q_idle;
  atomic_bool draining; /* shutdown waits on q_idle: out_done must wake it */
  /* Jobs the workers are done with, for the reader to free: a job is
   * allocated on the reading thread, and freeing it there keeps glibc from
   * locking that thread's arena against the workers (a cross-thread free
   * per request was a tenth of the lock traffic under load). */
  _Atomic(struct job *) spent;
} stdio_transport;

/* The responses a worker holds: final responses of the calls it ran since
 * it last handed them over, newline-ended. Only the worker's own thread
 * (worker_held) touches it. */
typedef struct worker_out {
  struct stdio_transport *t;
  mcp__buf held;
  int64_t held_since; /* when the oldest answer held was added */
  bool cheap; /* the call running now is a cheap one: its answer may wait */
} worker_out;

/* A worker holds answers across its runs of cheap calls while more wait in
 * the queue, but none longer than this: a call that proved cheap and turns
 * slow keeps earlier answers back at most by about this much. */
#define WORKER_HOLD_NS 200000

/* The holding worker running on this thread, or NULL: how out_send, called
 * deep inside a call, knows that its caller may hold the message. */
static _Thread_local worker_out *worker_held;

static bool write_all(int fd, const char *p, size_t len) {
  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    p += w;
    len -= (size_t)w;
  }
  return true;
}

/* Output not yet written: what a write left over plus what is pending. */
static size_t unwritten_locked(const stdio_transport *t) {
  return t->writing.len - t->written + t->pending.len;
}

/* Moves pending to writing when writing is all out. out_lock held by the
 * flusher. */
static void next_batch_locked(stdio_transport *t) {
  if (t->written < t->writing.len)
    return;
  mcp__buf tmp = t->writing;
  t->writing = t->pending;
  t->pending = tmp;
  mcp__buf_reset(&t->pending);
  t->written = 0;
}

/* Writes out everything unwritten; the caller has set t->flushing and holds
 * out_lock, which is released while writing. */
static mcp_status drain_locked(stdio_transport *t) {
  mcp_status st = MCP_OK;
  while (unwritten_locked(t) > 0 && !t->out_broken) {
    next_batch_locked(t);
    pthread_mutex_unlock(&t->out_lock);
    bool ok = write_all(t->out_fd, t->writing.data + t->written,
                        t->writing.len - t->written);
    pthread_mutex_lock(&t->out_lock);
    mcp__buf_reset(&t->writing);
    t->written = 0;
    if (!ok) {
      t->out_broken = true;
      st = MCP_ERR_IO;
    }
    pthread_cond_broadcast(&t->out_drained);
  }
  t->flushing = false;
  pthread_cond_broadcast(&t->out_drained);
  return st;
}

/* Appends len bytes to the output (with a newline after them unless
 * terminated) and writes what is pending unless somebody else does. */
static mcp_status out_append(stdio_transport *t, const char *msg, size_t len,
                             bool terminated) {
  pthread_mutex_lock(&t->out_lock);
  while (t->pending.len > OUTPUT_HIGH_WATER && t->flushing && !t->out_broken)
    pthread_cond_wait(&t->out_drained, &t->out_lock);
  if (t->out_broken) {
    pthread_mutex_unlock(&t->out_lock);
    return MCP_ERR_IO;
  }
  if (!mcp__buf_reserve(&t->pending, len + 1)) {
    pthread_mutex_unlock(&t->out_lock);
    return MCP_ERR_NOMEM;
  }
  mcp__buf_append(&t->pending, msg, len);
  if (!terminated)
    mcp__buf_append_char(&t->pending, '\n');
  /* the active writer will take our line; the reader writes its own lines
   * when its chunk is done, without blocking (flush_held) */
  if (t->flushing || (pthread_equal(pthread_self(), t->reader) && t->holding)) {
    pthread_mutex_unlock(&t->out_lock);
    return MCP_OK;
  }
  t->flushing = true;
  mcp_status st = drain_locked(t);
  pthread_mutex_unlock(&t->out_lock);
  return st;
}

/* Hands what the worker holds over to the output. */
static void worker_release(worker_out *w) {
  if (w->held.len == 0)
    return;
  out_append(w->t, w->held.data, w->held.len, true);
  mcp__buf_reset(&w->held);
}

static mcp_status out_send(void *ctx, const char *msg, size_t len,
                           unsigned flags) {
  stdio_transport *t = ctx;
  worker_out *w = worker_held;
  if (w != NULL && w->t == t) {
    /* A worker holds final responses; anything else (progress, a log
     * message, a question to the client) goes out at once, after what is
     * held, so that the order stays and no question waits behind us. */
    if (w->cheap && (flags & MCP__SEND_FINAL) && !(flags & MCP__SEND_NOW) &&
        w->held.len + len < WORKER_HOLD_MAX &&
        mcp__buf_reserve(&w->held, len + 1)) {
      if (w->held.len == 0)
        w->held_since = mcp__monotonic_ns();
      mcp__buf_append(&w->held, msg, len);
      mcp__buf_append_char(&w->held, '\n');
      return MCP_OK;
    }
    worker_release(w);
  }
  return out_append(t, msg, len, false);
}

/* The reader's chunk is done: what it holds goes out as far as the output
 * takes it without blocking, in pieces of PIPE_BUF while poll says there
 * is room (a pipe with room takes such a piece whole). The reader must
 * never block on output: a client that writes all its requests before it
 * reads any answer would wait for us while we wait for it. Returns the
 * bytes left with nobody writing them (0 while another thread writes). */
static size_t flush_held(stdio_transport *t) {
  pthread_mutex_lock(&t->out_lock);
  if (t->flushing || t->out_broken || unwritten_locked(t) == 0) {
    pthread_mutex_unlock(&t->out_lock);
    return 0;
  }
  t->flushing = true;
  bool ok = true, full = false;
  while (ok && !full && unwritten_locked(t) > 0) {
    next_batch_locked(t);
    size_t off = t->written; /* others read t->written under the lock */
    pthread_mutex_unlock(&t->out_lock);
    while (off < t->writing.len) {
      struct pollfd pf = {.fd = t->out_fd, .events = POLLOUT};
      int r = poll(&pf, 1, 0);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0) { /* no room now (or poll failed): later */
        full = true;
        break;
      }
      /* room, or an error that write reports */
      size_t n = t->writing.len - off;
      ssize_t w =
          write(t->out_fd, t->writing.data + off, n < PIPE_BUF ? n : PIPE_BUF);
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        full = true;
        break;
      }
      if (w < 0) {
        ok = false;
        break;
      }
      off += (size_t)w;
    }
    pthread_mutex_lock(&t->out_lock);
    t->written = off;
    if (t->written == t->writing.len) {
      mcp__buf_reset(&t->writing);
      t->written = 0;
    }
  }
  if (!ok)
    t->out_broken = true;
  t->flushing = false;
  pthread_cond_broadcast(&t->out_drained);
  size_t left = t->out_broken ? 0 : unwritten_locked(t);
  pthread_mutex_unlock(&t->out_lock);
  return left;
}

/* Everything unwritten, blocking: at the end of input. */
static void flush_all(stdio_transport *t) {
  pthread_mutex_lock(&t->out_lock);
  if (!t->flushing && unwritten_locked(t) > 0) {
    t->flushing = true;
    drain_locked(t);
  }
  pthread_mutex_unlock(&t->out_lock);
}

/* Waits until the output takes more or, unless output is backed up past
 * OUTPUT_HIGH_WATER, input arrives. A client that does not read its
 * answers gets no more of its requests read (issue #16 item 10). True when
 * input is there to read; false when only the output has room, and the
 * reader must write before it reads: a read would block while the client,
 * done writing, waits for the answers we hold. */
static bool wait_out_or_in(stdio_transport *t, size_t left) {
  struct pollfd p[2] = {{.fd = t->out_fd, .events = POLLOUT},
                        {.fd = t->in_fd, .events = POLLIN}};
  nfds_t n = left > OUTPUT_HIGH_WATER ? 1 : 2;
  while (poll(p, n, -1) < 0 && errno == EINTR)
    ;
  return n == 2 && (p[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

/* This thread's slot of t->inflight. */
static atomic_long *inflight_here(stdio_transport *t) {
  return &t->inflight[mcp__hash_thread() >> 60].n; /* 16 slots */
}

/* Requests in flight now. At shutdown, once nothing new is accepted, the
 * sum only falls, so a sum of zero is final. */
static long inflight_sum(stdio_transport *t) {
  long sum = 0;
  for (size_t i = 0; i < INFLIGHT_SLOTS; i++)
    sum += atomic_load(&t->inflight[i].n);
  return sum;
}

static void out_done(void *ctx) {
  stdio_transport *t = ctx;
  atomic_fetch_sub(inflight_here(t), 1);
  /* The lock only while shutdown waits (both atomics sequentially
   * consistent: either this sees draining, or the waiter's sum sees our
   * decrement). */
  if (atomic_load(&t->draining)) {
    pthread_mutex_lock(&t->q_lock); /* the waiter sums under this lock */
    if (inflight_sum(t) == 0)
      pthread_cond_broadcast(&t->q_idle);
    pthread_mutex_unlock(&t->q_lock);
  }
}

/* Parses one message; a request comes back as *call, counted in flight
 * until its channel is done. */
static bool accept_line(stdio_transport *t, const char *line, size_t len,
                        const mcp__prescan *scan, mcp_call_t **call) {
  /* before accept: done may run on another thread at once */
  atomic_fetch_add(inflight_here(t), 1);
  /* the session outlives every request in flight (see serve_fds) */
  mcp__channel reply = {out_send, out_done, t, t, .pins_session = true};
  if (mcp__server_accept_scanned(t->server, t->session, NULL, line, len, scan,
                                 reply, call) == MCP__ACCEPT_REQUEST)
    return true;
  out_done(t); /* not a request: the channel was never taken */
  return false;
}

/* A worker is about to run a call (mcp__call_run_queued): the answers it
 * holds go out first unless the call is cheap, whose answer may then be
 * held too (see worker_out). */
static void worker_before_run(void *ctx, bool cheap) {
  worker_out *w = ctx;
  w->cheap = cheap;
  if (!cheap)
    worker_release(w);
}

/* Runs one job on a worker. Responses of cheap calls stay held (see
 * worker_out); a call that may take long first hands over what is held,
 * so that no answer waits behind it. */
static void run_job(stdio_transport *t, worker_out *w, job *j) {
  mcp_call_t *call = j->call;
  /* The reader scanned it: the depth is known, and the tape when it parsed
   * the line. */
  mcp__prescan scan = {.kind = MCP__SCAN_REQUEST, .depth = j->depth};
  mcp__tape view; /* only its header is used: not initialized whole */
  if (j->nodes != NULL) {
    mcp__tape_view(&view, j->nodes, j->count, j->depth, j->decoded_nul);
    scan.tape = &view;
  }
  if (call != NULL || accept_line(t, j->bytes, j->len, &scan, &call)) {
    /* Nothing a call emits on stdio waits behind its response; the output
     * takes messages from any thread (a tasks/result for a running task
     * parks its call and gives the worker back at once). */
    mcp__runner worker = {.before_run = worker_before_run,
                          .ctx = w,
                          .any_thread = true};
    mcp__call_run_queued(call, &worker);
    w->cheap = false;
  }
}

/* Hands the jobs first..last (linked) back to the reader, which frees
 * them. */
static void give_back(stdio_transport *t, job *first, job *last) {
  job *old = atomic_load(&t->spent);
  do
    last->next = old;
  while (!atomic_compare_exchange_weak(&t->spent, &old, first));
}

/* Frees the jobs the workers are done with (the reader's thread, or after
 * the workers stopped). */
static void free_spent(stdio_transport *t) {
  if (atomic_load_explicit(&t->spent, memory_order_relaxed) == NULL)
    return;
  for (job *j = atomic_exchange(&t->spent, NULL), *next; j; j = next) {
    next = j->next;
    free(j);
  }
}

/* Workers awake and free for cheap calls: not waiting for work, not in a
 * call that may block. q_lock held. */
static unsigned awake_for_cheap(const stdio_transport *t) {
  return t->workers.n - t->idle_workers - t->busy_slow;
}

static void *worker_main(void *arg) {
  stdio_transport *t = arg;
  worker_out w = {.t = t};
  mcp__buf_init(&w.held);
  worker_held = &w;
  pthread_mutex_lock(&t->q_lock);
  for (;;) {
    if (t->head == NULL && w.held.len > 0) {
      /* Nothing more to do now: what is held goes out before we wait. */
      pthread_mutex_unlock(&t->q_lock);
      worker_release(&w);
      pthread_mutex_lock(&t->q_lock);
      continue;
    }
    while (t->head == NULL && !t->stopping) {
      t->idle_workers++;
      pthread_cond_wait(&t->q_nonempty, &t->q_lock);
      t->idle_workers--;
    }
    if (t->head == NULL)
      break;
    /* A run of cheap calls at once: one lock for them. Anything else
     * alone. What is left wakes one more worker when it may block (not
     * proven cheap) or when another core could share the cheap ones; a
     * cheap call that turns out slow holds up only its own run, since the
     * reader wakes a worker when the queue has not moved (publish). */
    job *first = t->head, *last = first;
    unsigned taken = 1;
    while (first->cheap && taken < WORKER_TAKE && last->next != NULL &&
           last->next->cheap)
      last = last->next, taken++;
    t->head = last->next;
    if (t->head == NULL)
      t->tail = NULL;
    last->next = NULL;
    t->queued -= taken;
    bool slow = !first->cheap; /* it may block: let others take the rest */
    t->busy_slow += slow;
    if (t->head != NULL && t->idle_workers > 0 &&
        (slow || !t->head->cheap || awake_for_cheap(t) < t->cheap_workers))
      pthread_cond_signal(&t->q_nonempty);
    pthread_mutex_unlock(&t->q_lock);
    for (job *j = first; j != NULL; j = j->next)
      run_job(t, &w, j);
    give_back(t, first, last);
    /* held answers go out when the queue runs dry (above) or when they
     * have waited long enough: one write for many runs under load */
    if (w.held.len > 0 && mcp__monotonic_ns() - w.held_since > WORKER_HOLD_NS)
      worker_release(&w);
    pthread_mutex_lock(&t->q_lock);
    t->completed += taken;
    t->busy_slow -= slow;
    if (t->queued <= QUEUE_HIGH_WATER / 2)
      pthread_cond_signal(&t->q_room);
  }
  pthread_mutex_unlock(&t->q_lock);
  worker_release(&w);
  worker_held = NULL;
  mcp__buf_free(&w.held);
  return NULL;
}

/* Requests parsed from one read(2) chunk are published to the workers
 * together: one lock and at most one wake-up per chunk instead of per
 * message, which is what keeps pipelined traffic cheap. */
static bool enqueue(stdio_transport *t, mcp_call_t *call, const char *line,
                    size_t len, const mcp__prescan *scan, bool cheap) {
  const mcp__tape *tape = scan ? scan->tape : NULL;
  size_t moved = tape ? mcp__tape_moved_size(tape) : 0;
  job *j = malloc(sizeof *j + moved + len + 1);
  if (j == NULL)
    return false;
  j->nodes = tape ? (mcp__tnode *)(j + 1) : NULL;
  j->count = tape ? tape->count : 0;
  j->decoded_nul = tape ? tape->decoded_nul : false;
  j->bytes = (char *)(j + 1) + moved;
  memcpy(j->bytes, line, len);
  j->bytes[len] = '\0';
  if (tape)
    mcp__tape_move(tape, line, len, j->bytes, j->nodes);
  j->len = len;
  j->depth = scan ? scan->depth : 0;
  j->cheap = cheap;
  j->call = call;
  j->next = NULL;
  if (t->batch_tail)
    t->batch_tail->next = j;
  else
    t->batch_head = j;
  t->batch_tail = j;
  return true;
}

/* Whether jobs have waited STALL_MS while no worker finished anything: then
 * one more worker is woken (each awake one may be stuck in a call that had
 * proven cheap). True once per STALL_MS at most. q_lock held. */
#define STALL_MS 20
static bool stalled(stdio_transport *t) {
  int64_t now = mcp__monotonic_ns();
  if (t->queued == 0 || t->completed != t->completed_seen) {
    t->completed_seen = t->completed;
    t->progress_ns = now;
    return false;
  }
  if (now - t->progress_ns < STALL_MS * (int64_t)1000000)
    return false;
  t->progress_ns = now;
  return true;
}

/* Wakes as few workers as the published jobs need: one for each job that
 * may block (not proven cheap), and for cheap ones a single worker when
 * fewer than cheap_workers are awake (the others join from the queue, see
 * worker_main). A queue that has not moved since the last publish while
 * jobs wait wakes one more: a cheap call turned slow must not hold up the
 * rest. */
static void publish(stdio_transport *t) {
  if (t->batch_head == NULL)
    return;
  size_t n = 0, cheap = 0;
  for (job *j = t->batch_head; j; j = j->next)
    n++, cheap += j->cheap;
  pthread_mutex_lock(&t->q_lock);
  bool stuck = stalled(t);
  t->queued += n;
  if (t->tail)
    t->tail->next = t->batch_head;
  else
    t->head = t->batch_head;
  t->tail = t->batch_tail;
  unsigned idle = t->idle_workers;
  unsigned awake = awake_for_cheap(t);
  pthread_mutex_unlock(&t->q_lock);
  t->batch_head = t->batch_tail = NULL;
  size_t wanted = n - cheap + stuck;
  if (cheap > 0 && awake + wanted < t->cheap_workers)
    wanted++;
  if (wanted >= idle && idle > 1)
    pthread_cond_broadcast(&t->q_nonempty);
  else
    for (size_t i = 0; i < wanted && i < idle; i++)
      pthread_cond_signal(&t->q_nonempty);
}

/* Cheap calls of one chunk are shared out in runs of this many: the
 * reader's runs (see share_period), the workers' between them. */
#define SHARE_RUN 64

/* Whether a request the core found cheap (mcp__triage) is the reader's to
 * run: then it is parsed here, and run here if the parsed request allows
 * (mcp__call_schedule). A lone request runs here (no hand-off, no
 * wake-up); of a pipelined burst the reader takes the first run of
 * SHARE_RUN and then one of every share_period, the workers the rest. */
static bool may_run_here(stdio_transport *t, bool cheap) {
  return cheap && (t->cheap_seen++ / SHARE_RUN) % t->share_period == 0;
}

/* The reader's runner (mcp__call_schedule): a call that does not run here
 * joins the chunk's jobs; one that does first lets the jobs before it go,
 * so that earlier requests stay ahead and the workers run while we do. */
static bool reader_queue(void *ctx, mcp_call_t *call) {
  return enqueue(ctx, call, "", 0, NULL, false);
}

static void reader_before_run(void *ctx, bool cheap) {
  (void)cheap;
  publish(ctx);
}

static void handle_scanned(stdio_transport *t, const char *line, size_t len,
                           const mcp__prescan *scan);

static void handle_line(stdio_transport *t, const char *line, size_t len) {
  while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' ' ||
                     line[len - 1] == '\t'))
    len--;
  size_t start = 0;
  while (start < len && (line[start] == ' ' || line[start] == '\t'))
    start++;
  if (start == len)
    return; /* blank lines carry no message */
  line += start;
  len -= start;
  /* One parse decides: responses, notifications, initialize and ping are
   * handled here, ordinary requests go to the workers with the tape (they
   * decode without parsing again). A big line is only prescanned here and
   * parsed by its worker. */
  mcp__prescan scan;
  if (len > MCP__SCAN_PARSE_MAX) {
    mcp__jsonrpc_prescan(line, len, &scan);
    handle_scanned(t, line, len, &scan);
    return;
  }
  mcp__tape tape;
  mcp__jsonrpc_scan(line, len, &tape, &scan);
  handle_scanned(t, line, len, &scan);
  mcp__tape_release(&tape);
}

/* handle_line with the line scanned (its tape, if any, lent for the
 * call). */
static void handle_scanned(stdio_transport *t, const char *line, size_t len,
                           const mcp__prescan *scan) {
  mcp__triage triage = mcp__server_triage(t->server, scan);
  if (!triage.at_once && !may_run_here(t, triage.cheap) &&
      enqueue(t, NULL, line, len, scan, triage.cheap))
    return;
  mcp_call_t *call = NULL;
  if (!accept_line(t, line, len, scan, &call))
    return;
  /* The core runs it here (in input order, or a cheap call) or hands it
   * back to join the chunk's jobs: a handler that has not proven cheap
   * must never block the reader. */
  mcp__runner reader = {.queue = reader_queue,
                        .before_run = reader_before_run,
                        .ctx = t,
                        .any_thread = true};
  mcp__call_schedule(call, &reader);
}

static void report_oversize(stdio_transport *t) {
  char msg[128];
  snprintf(msg, sizeof msg,
           "Invalid Request: message exceeds the limit of %zu bytes",
           mcp__server_max_message_bytes(t->server));
  mcp__channel reply = {out_send, NULL, t, t, false};
  mcp__reply_error(reply, MCP_RPC_INVALID_REQUEST, msg);
}

/* Whether output is backed up: the writer is stuck (the client does not
 * read) and senders wait for room. */
static bool output_backed_up(stdio_transport *t) {
  pthread_mutex_lock(&t->out_lock);
  bool backed =
      t->flushing && !t->out_broken && unwritten_locked(t) > OUTPUT_HIGH_WATER;
  pthread_mutex_unlock(&t->out_lock);
  return backed;
}

/* Pauses the reader while too many requests wait. If no worker finishes
 * anything for a while (all may be blocked waiting for this very client to
 * answer a server-to-client request), reading resumes anyway: an answer in
 * the input must never be stuck behind the pause. Unless the workers are
 * stuck on output: a client that does not read its answers gets no more of
 * its requests read, so memory stays bounded (issue #16 item 10). */
static void wait_for_room(stdio_transport *t) {
  pthread_mutex_lock(&t->q_lock);
  while (t->queued > QUEUE_HIGH_WATER) {
    uint64_t before = t->completed;
    struct timespec ts;
    mcp__deadline_in(CLOCK_REALTIME, 50, &ts);
    pthread_cond_timedwait(&t->q_room, &t->q_lock, &ts);
    if (t->completed != before)
      continue;
    pthread_mutex_unlock(&t->q_lock); /* out_lock is never taken inside */
    bool backed = output_backed_up(t);
    pthread_mutex_lock(&t->q_lock);
    if (!backed)
      break;
  }
  pthread_mutex_unlock(&t->q_lock);
}

/* Returns when input is there to read (or the read would fail). While
 * requests wait for a worker it looks at the queue every STALL_MS, since a
 * client that waits for its answers sends nothing that would publish (and
 * so look, see stalled). */
static void wait_for_input(stdio_transport *t) {
  for (;;) {
    pthread_mutex_lock(&t->q_lock);
    bool waiting = t->queued > 0;
    if (stalled(t) && t->idle_workers > 0)
      pthread_cond_signal(&t->q_nonempty);
    pthread_mutex_unlock(&t->q_lock);
    if (!waiting)
      return; /* the read may block: nothing waits on us */
    struct pollfd p = {.fd = t->in_fd, .events = POLLIN};
    int r = poll(&p, 1, STALL_MS);
    if (r != 0 && !(r < 0 && errno == EINTR))
      return;
  }
}

/* Reads until EOF, splitting lines. A line longer than the limit is
 * discarded as it streams by (never buffered whole) and answered with an
 * error once its end is seen. */
static mcp_status read_loop(stdio_transport *t) {
  size_t limit = mcp__server_max_message_bytes(t->server);
  mcp__buf line;
  mcp__buf_init(&line);
  bool discarding = false;
  char *chunk = malloc(READ_CHUNK);
  if (chunk == NULL)
    return MCP_ERR_NOMEM;
  mcp_status st = MCP_OK;
  t->holding = true;
  for (;;) {
    size_t left = flush_held(t);
    if (left > 0) {
      if (!wait_out_or_in(t, left))
        continue; /* write more before reading more */
    }
    wait_for_room(t);
    wait_for_input(t);
    ssize_t got = read(t->in_fd, chunk, READ_CHUNK);
    if (got < 0) {
      if (errno == EINTR)
        continue;
      st = MCP_ERR_IO;
      break;
    }
    if (got == 0)
      break;
    const char *p = chunk, *end = chunk + got;
    while (p < end) {
      const char *nl = memchr(p, '\n', (size_t)(end - p));
      size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
      if (!discarding) {
        if (line.len == 0 && nl) {
          if (n > limit + 1) /* +1: a trailing \r is not content */
            report_oversize(t);
          else
            handle_line(t, p, n); /* whole line in this chunk: no copy */
        } else if (line.len + n > limit + 1) {
          discarding = true;
          mcp__buf_reset(&line);
        } else if (!mcp__buf_append(&line, p, n)) {
          st = MCP_ERR_NOMEM;
          goto out;
        } else if (nl) {
          handle_line(t, line.data, line.len);
          mcp__buf_reset(&line);
        }
      }
      if (nl && discarding) {
        discarding = false;
        report_oversize(t);
      }
      p = nl ? nl + 1 : end;
    }
    publish(t);
    t->cheap_seen = 0;
    free_spent(t);
  }
  if (!discarding && line.len > 0) /* last line without a newline */
    handle_line(t, line.data, line.len);
  else if (discarding)
    report_oversize(t);
out:
  publish(t);
  t->holding = false;
  flush_all(t);
  free(chunk);
  mcp__buf_free(&line);
  return st;
}

mcp_status mcp_server_serve_fds(mcp_server_t *s, int in_fd, int out_fd) {
  if (s == NULL || in_fd < 0 || out_fd < 0)
    return MCP_ERR_INVALID_ARG;
  mcp_status ready = mcp__server_start_serving(s, NULL); /* logs why not */
  if (ready != MCP_OK)
    return ready;
  stdio_transport *t = calloc(1, sizeof *t);
  if (t == NULL)
    return MCP_ERR_NOMEM;
  t->server = s;
  t->in_fd = in_fd;
  t->out_fd = out_fd;
  t->reader = pthread_self(); /* read_loop runs on the caller's thread */
  pthread_mutex_init(&t->out_lock, NULL);
  pthread_cond_init(&t->out_drained, NULL);
  pthread_mutex_init(&t->q_lock, NULL);
  pthread_cond_init(&t->q_nonempty, NULL);
  pthread_cond_init(&t->q_room, NULL);
  pthread_cond_init(&t->q_idle, NULL);
  mcp__buf_init(&t->pending);
  mcp__buf_init(&t->writing);
  /* A vanished client must not kill the process with SIGPIPE; write()
   * reports EPIPE instead. */
  signal(SIGPIPE, SIG_IGN);

  mcp__channel notify = {out_send, NULL, t, t, false};
  mcp_status st = mcp__session_new(s, notify, &t->session);
  if (st != MCP_OK)
    goto cleanup;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  t->cheap_workers = cores > 2 ? (unsigned)cores - 1 : 1;
  t->share_period = cores > 2 ? UINT_MAX : 3;
  /* workers.n is read under q_lock by workers that start before it is set */
  pthread_mutex_lock(&t->q_lock);
  unsigned started = mcp__pool_start(&t->workers, mcp__server_worker_threads(s),
                                     worker_main, t);
  pthread_mutex_unlock(&t->q_lock);
  if (started == 0) {
    st = MCP_ERR_NOMEM;
    goto cleanup;
  }

  st = read_loop(t);
  /* The client left: its listen streams end (they would wait forever). */
  mcp__server_channel_gone(s, t);

  /* Orderly shutdown: no more answers can come from the client, but the
   * requests already received finish and are answered. */
  mcp__session_input_closed(t->session);
  mcp__pool_stop(&t->workers, &t->q_lock, &t->q_nonempty, &t->stopping);
  mcp__server_channel_gone(s, t); /* listen requests that were still running */
  /* Parked tasks/result calls are answered when their tasks end. */
  pthread_mutex_lock(&t->q_lock);
  atomic_store(&t->draining, true);
  while (inflight_sum(t) > 0)
    pthread_cond_wait(&t->q_idle, &t->q_lock);
  pthread_mutex_unlock(&t->q_lock);
cleanup:
  if (t->session) {
    mcp__session_close(t->session);
    mcp__session_release(t->session);
  }
  mcp__pool_stop(&t->workers, NULL, NULL, NULL); /* joined: frees */
  free_spent(t);
  mcp__buf_free(&t->pending);
  mcp__buf_free(&t->writing);
  pthread_mutex_destroy(&t->out_lock);
  pthread_cond_destroy(&t->out_drained);
  pthread_mutex_destroy(&t->q_lock);
  pthread_cond_destroy(&t->q_nonempty);
  pthread_cond_destroy(&t->q_room);
  pthread_cond_destroy(&t->q_idle);
  free(t);
  return st;
}

mcp_status mcp_server_serve_stdio(mcp_server_t *s) {
  if (s == NULL)
    return MCP_ERR_INVALID_ARG;
  mcp__stdout_guard guard;
  int out = mcp__stdout_guard_begin(&guard, s);
  mcp_status st = mcp_server_serve_fds(s, STDIN_FILENO, out);
  mcp__stdout_guard_end(&guard);
  return st;
}
