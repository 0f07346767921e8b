/* SPDX-License-Identifier: MIT */
/* progress.c - progress display for long calls. On a terminal (stderr) a
 * bar redrawn in place with the status message and elapsed time; otherwise,
 * or with --format json, one plain line per update, so logs and pipes stay
 * readable. Always on stderr: stdout carries only the result. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "util/clock.h"

void mcpc_progress_init(mcpc_progress *p, const mcpc_ctx *ctx) {
  p->tty = !ctx->json && isatty(STDERR_FILENO);
  p->drawn = false;
  p->start_ms = mcp__monotonic_ms();
}

void mcpc_progress_update(mcpc_progress *p, double progress, double total,
                          const char *message) {
  double elapsed = (double)(mcp__monotonic_ms() - p->start_ms) / 1000.0;
  if (message == NULL)
    message = "";
  if (!p->tty) {
    const char *sep = message[0] ? " " : "";
    if (total > 0)
      fprintf(stderr, "progress %g/%g%s%s (%.1fs)\n", progress, total, sep,
              message, elapsed);
    else
      fprintf(stderr, "progress %g%s%s (%.1fs)\n", progress, sep, message,
              elapsed);
    return;
  }
  enum { WIDTH = 30 };
  char bar[WIDTH + 1];
  if (total > 0) {
    double f = progress / total;
    if (f < 0)
      f = 0;
    if (f > 1)
      f = 1;
    int filled = (int)(f * WIDTH);
    for (int i = 0; i < WIDTH; i++)
      bar[i] = i < filled ? '#' : '-';
    bar[WIDTH] = '\0';
    fprintf(stderr, "\r\033[K[%s] %3d%% %.60s %.1fs", bar, (int)(f * 100),
            message, elapsed);
  } else {
    /* unknown total: a marker that moves with each update */
    int pos = (int)progress % WIDTH;
    for (int i = 0; i < WIDTH; i++)
      bar[i] = i == pos ? '#' : '-';
    bar[WIDTH] = '\0';
    fprintf(stderr, "\r\033[K[%s] %.60s %.1fs", bar, message, elapsed);
  }
  fflush(stderr);
  p->drawn = true;
}

void mcpc_progress_status(mcpc_progress *p, int step, const char *message) {
  if (p->tty) {
    mcpc_progress_update(p, step, -1, message);
    return;
  }
  double elapsed = (double)(mcp__monotonic_ms() - p->start_ms) / 1000.0;
  fprintf(stderr, "progress %s (%.1fs)\n", message, elapsed);
}

void mcpc_progress_done(mcpc_progress *p) {
  if (p->tty && p->drawn)
    fprintf(stderr, "\r\033[K");
  p->drawn = false;
}

void mcpc_progress_cb(double progress, double total, const char *message,
                      void *user_data) {
  mcpc_progress_update(user_data, progress, total, message);
}
