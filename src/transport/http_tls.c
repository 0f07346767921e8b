/* SPDX-License-Identifier: MIT */
/* http_tls.c - starting the transport's HTTP engine, with HTTPS (TLS 1.2
 * and 1.3, http_tls_ossl.c) when a certificate is configured, and reloading
 * the certificate without dropping connections.
 *
 * An engine's certificate is fixed at its start. A reload
 * therefore starts a second daemon with the new certificate on the same
 * listening socket and quiesces the old one: from then on new connections
 * are accepted by the new daemon, while the old one goes on serving the
 * connections it has (their TLS sessions are established already) and is
 * stopped by the housekeeper once they have all ended. Both daemons call
 * the same request handlers with the same server state. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transport/http_cors.h"
#include "transport/http_internal.h"

#define PEM_MAX        (1u << 20)

static char *read_pem(const char *path, mcp_error_t *err) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    mcp_error_set(err, MCP_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    return NULL;
  }
  char *text = malloc(PEM_MAX + 1);
  size_t n = text ? fread(text, 1, PEM_MAX + 1, f) : 0;
  fclose(f);
  if (text == NULL || n > PEM_MAX || n == 0) {
    free(text);
    mcp_error_set(err, MCP_ERR_IO, "%s is empty or too large", path);
    return NULL;
  }
  text[n] = '\0';
  return text;
}

mcp__he_daemon *mcp__hs_daemon_start(mcp_http_server_t *h,
                                     mcp_error_t *err) {
  char *cert = NULL, *key = NULL;
  if (h->o->tls_cert) {
    cert = read_pem(h->o->tls_cert, err);
    key = cert ? read_pem(h->o->tls_key, err) : NULL;
    if (key == NULL) {
      free(cert);
      return NULL;
    }
  }
  /* Each daemon gets its own descriptor of the listening socket: a daemon
   * that fails to start closes the one it was given, and a quiesced one
   * hands its back to be closed. */
  int fd = dup(h->listen_fd);
  if (fd < 0) {
    free(cert);
    free(key);
    mcp_error_set(err, MCP_ERR_IO, "dup: %s", strerror(errno));
    return NULL;
  }
  errno = 0;
  mcp__he_config cfg = {
      .listen_fd = fd,
      .loops = h->io_threads,
      .head_max = h->o->max_header,
      .timeout_s = (unsigned)h->o->conn_timeout_s,
      .conn_limit = (unsigned)mcp__hs_limits_engine_cap(h->limits),
      .tls_cert = cert,
      .tls_key = key,
      .handler = &mcp__hs_handler,
      .on_completed = mcp__hs_on_completed,
      .on_connection = mcp__hs_on_connection,
      .cls = h};
  mcp__he_daemon *d = mcp__he_start(&cfg);
  int e = errno;
  /* the engine copied the certificate into its OpenSSL context */
  if (key)
    memset(key, 0, strlen(key));
  free(cert);
  free(key);
  if (d == NULL)
    mcp_error_set(err, MCP_ERR_IO, "cannot serve on %s port %u%s: %s",
                  h->o->address, (unsigned)h->port,
                  h->o->tls_cert ? " (TLS: check the certificate and key)" : "",
                  e ? strerror(e) : "the engine refused the settings");
  return d;
}

mcp_status mcp_http_server_reload_tls(mcp_http_server_t *h, mcp_error_t *err) {
  if (h == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "no server");
  if (h->o->tls_cert == NULL)
    return mcp_error_set(err, MCP_ERR_STATE, "the server does not use TLS");
  if (atomic_load(&h->stopping))
    return mcp_error_set(err, MCP_ERR_STATE, "the server is stopping");
  pthread_mutex_lock(&h->tls_lock);
  mcp_status st = MCP_OK;
  if (h->nretired == HS_MAX_RETIRED) {
    st = mcp_error_set(err, MCP_ERR_LIMIT,
                       "%d earlier certificates still serve connections",
                       HS_MAX_RETIRED);
  } else {
    mcp__he_daemon *fresh = mcp__hs_daemon_start(h, err);
    if (fresh == NULL) {
      st = err ? err->status : MCP_ERR_IO; /* the old certificate stays */
    } else {
      /* The old daemon stops accepting and returns its descriptor. */
      int old = mcp__he_quiesce(h->daemon);
      if (old != -1)
        close(old);
      h->retired[h->nretired++] = h->daemon;
      h->daemon = fresh;
    }
  }
  pthread_mutex_unlock(&h->tls_lock);
  return st;
}

void mcp__hs_retired_reap(mcp_http_server_t *h, bool all) {
  pthread_mutex_lock(&h->tls_lock);
  for (size_t i = 0; i < h->nretired;) {
    if (all || mcp__he_connections(h->retired[i]) == 0) {
      mcp__he_stop(h->retired[i]);
      h->retired[i] = h->retired[--h->nretired];
    } else {
      i++;
    }
  }
  pthread_mutex_unlock(&h->tls_lock);
}
