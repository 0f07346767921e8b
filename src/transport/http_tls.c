/* SPDX-License-Identifier: MIT */
/* http_tls.c - starting the transport's libmicrohttpd daemon, with HTTPS
 * when a certificate is configured, and reloading the certificate without
 * dropping connections.
 *
 * libmicrohttpd (0.9.75) fixes a daemon's certificate at start. A reload
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

/* TLS 1.2 and 1.3 only (GnuTLS priority string). */
#define TLS_PRIORITIES "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"
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

struct MHD_Daemon *mcp__hs_daemon_start(mcp_http_server_t *h,
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
  struct MHD_OptionItem tls[] = {
      {MHD_OPTION_HTTPS_MEM_CERT, 0, cert},
      {MHD_OPTION_HTTPS_MEM_KEY, 0, key},
      {MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)TLS_PRIORITIES},
      {MHD_OPTION_END, 0, NULL}};
  struct MHD_OptionItem none[] = {{MHD_OPTION_END, 0, NULL}};
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
  struct MHD_Daemon *d = MHD_start_daemon(
      h->mhd_flags | (cert ? MHD_USE_TLS : 0), h->port, NULL, NULL,
      mcp__hs_on_request, h, MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
      MHD_OPTION_THREAD_POOL_SIZE, h->io_threads,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, h->mem_limit,
      MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)h->o->conn_timeout_s,
      MHD_OPTION_CONNECTION_LIMIT, (unsigned)mcp__hs_limits_mhd_cap(h->limits),
      MHD_OPTION_NOTIFY_COMPLETED, mcp__hs_on_completed, h,
      MHD_OPTION_NOTIFY_CONNECTION, mcp__hs_on_connection, h, MHD_OPTION_ARRAY,
      cert ? tls : none, MHD_OPTION_END);
  int e = errno;
  /* libmicrohttpd copies the certificate into its GnuTLS credentials */
  if (key)
    memset(key, 0, strlen(key));
  free(cert);
  free(key);
  if (d == NULL)
    mcp_error_set(err, MCP_ERR_IO, "cannot serve on %s port %u%s: %s",
                  h->o->address, (unsigned)h->port,
                  h->o->tls_cert ? " (TLS: check the certificate and key)" : "",
                  e ? strerror(e) : "libmicrohttpd refused the settings");
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
    struct MHD_Daemon *fresh = mcp__hs_daemon_start(h, err);
    if (fresh == NULL) {
      st = err ? err->status : MCP_ERR_IO; /* the old certificate stays */
    } else {
      /* The old daemon stops accepting and returns its descriptor. */
      MHD_socket old = MHD_quiesce_daemon(h->daemon);
      if (old != MHD_INVALID_SOCKET)
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
    const union MHD_DaemonInfo *info =
        MHD_get_daemon_info(h->retired[i], MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    if (all || (info && info->num_connections == 0)) {
      MHD_stop_daemon(h->retired[i]);
      h->retired[i] = h->retired[--h->nretired];
    } else {
      i++;
    }
  }
  pthread_mutex_unlock(&h->tls_lock);
}
