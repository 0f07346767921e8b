/* SPDX-License-Identifier: MIT */
/* http_tls_ossl.h - TLS 1.2+ for the transport's own HTTP engine, through
 * OpenSSL 3: a context per certificate (chain and key from PEM text), and
 * non-blocking handshakes, reads and writes on a connection's socket.
 */
#ifndef MCP_TRANSPORT_HTTP_TLS_OSSL_H
#define MCP_TRANSPORT_HTTP_TLS_OSSL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct mcp__tls_ctx mcp__tls_ctx; /* an SSL_CTX */
typedef struct mcp__tls mcp__tls;         /* an SSL */

/* A server context with the certificate chain (first the leaf) and the
 * private key, both PEM text; NULL with why filled when they do not load or
 * do not match. */
mcp__tls_ctx *mcp__tls_ctx_new(const char *chain_pem, const char *key_pem,
                               char *why, size_t why_len);
void mcp__tls_ctx_free(mcp__tls_ctx *ctx);

/* A server-side TLS connection over fd (NULL when out of memory). */
mcp__tls *mcp__tls_new(mcp__tls_ctx *ctx, int fd);
void mcp__tls_free(mcp__tls *t);

/* Results of the calls below: bytes (> 0), MCP__TLS_AGAIN (retry when the
 * socket is ready: readable, or writable when *want_write), MCP__TLS_EOF,
 * or MCP__TLS_ERROR. */
#define MCP__TLS_AGAIN (-1)
#define MCP__TLS_ERROR (-2)
#define MCP__TLS_EOF   0

/* 1 when the handshake is complete, else AGAIN or ERROR. */
ssize_t mcp__tls_handshake(mcp__tls *t, bool *want_write);
ssize_t mcp__tls_read(mcp__tls *t, void *buf, size_t len, bool *want_write);
ssize_t mcp__tls_write(mcp__tls *t, const void *buf, size_t len,
                       bool *want_write);

#endif
