/* SPDX-License-Identifier: MIT */
/* http_tls_ossl.c - TLS through OpenSSL 3 (see http_tls_ossl.h). */
#include "transport/http_tls_ossl.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <string.h>

static void why_openssl(char *why, size_t n, const char *what) {
  unsigned long e = ERR_get_error();
  char text[256] = "";
  if (e)
    ERR_error_string_n(e, text, sizeof text);
  snprintf(why, n, "%s%s%s", what, e ? ": " : "", text);
  ERR_clear_error();
}

mcp__tls_ctx *mcp__tls_ctx_new(const char *chain_pem, const char *key_pem,
                               char *why, size_t why_len) {
  SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == NULL) {
    why_openssl(why, why_len, "cannot create a TLS context");
    return NULL;
  }
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
                            SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                            SSL_MODE_RELEASE_BUFFERS);
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
  BIO *certs = BIO_new_mem_buf(chain_pem, -1);
  BIO *keys = BIO_new_mem_buf(key_pem, -1);
  X509 *leaf = certs ? PEM_read_bio_X509(certs, NULL, NULL, NULL) : NULL;
  EVP_PKEY *key = keys ? PEM_read_bio_PrivateKey(keys, NULL, NULL, NULL) : NULL;
  bool ok = leaf && key && SSL_CTX_use_certificate(ctx, leaf) == 1;
  if (!ok)
    why_openssl(why, why_len,
                leaf ? "cannot read the private key"
                     : "cannot read the "
                       "certificate");
  /* the rest of the file is the chain, leaf first */
  X509 *extra;
  while (ok && (extra = PEM_read_bio_X509(certs, NULL, NULL, NULL)) != NULL)
    if (SSL_CTX_add0_chain_cert(ctx, extra) != 1) {
      X509_free(extra);
      ok = false;
      why_openssl(why, why_len, "cannot use the certificate chain");
    }
  ERR_clear_error(); /* the end of the PEM text */
  if (ok && (SSL_CTX_use_PrivateKey(ctx, key) != 1 ||
             SSL_CTX_check_private_key(ctx) != 1)) {
    ok = false;
    why_openssl(why, why_len, "the key does not match the certificate");
  }
  X509_free(leaf);
  EVP_PKEY_free(key);
  BIO_free(certs);
  BIO_free(keys);
  if (!ok) {
    SSL_CTX_free(ctx);
    return NULL;
  }
  return (mcp__tls_ctx *)ctx;
}

void mcp__tls_ctx_free(mcp__tls_ctx *ctx) {
  SSL_CTX_free((SSL_CTX *)ctx);
}

mcp__tls *mcp__tls_new(mcp__tls_ctx *ctx, int fd) {
  SSL *s = SSL_new((SSL_CTX *)ctx);
  if (s == NULL)
    return NULL;
  if (SSL_set_fd(s, fd) != 1) {
    SSL_free(s);
    return NULL;
  }
  SSL_set_accept_state(s);
  return (mcp__tls *)s;
}

void mcp__tls_free(mcp__tls *t) {
  SSL_free((SSL *)t);
}

static ssize_t outcome(SSL *s, int rc, bool *want_write) {
  int e = SSL_get_error(s, rc);
  *want_write = e == SSL_ERROR_WANT_WRITE;
  ERR_clear_error();
  if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
    return MCP__TLS_AGAIN;
  if (e == SSL_ERROR_ZERO_RETURN)
    return MCP__TLS_EOF;
  return MCP__TLS_ERROR;
}

ssize_t mcp__tls_handshake(mcp__tls *t, bool *want_write) {
  SSL *s = (SSL *)t;
  int rc = SSL_do_handshake(s);
  if (rc == 1) {
    *want_write = false;
    return 1;
  }
  ssize_t r = outcome(s, rc, want_write);
  return r == MCP__TLS_EOF ? MCP__TLS_ERROR : r;
}

ssize_t mcp__tls_read(mcp__tls *t, void *buf, size_t len, bool *want_write) {
  SSL *s = (SSL *)t;
  size_t got = 0;
  int rc = SSL_read_ex(s, buf, len, &got);
  if (rc == 1) {
    *want_write = false;
    return (ssize_t)got;
  }
  /* a peer that closes without close_notify ends the stream too */
  if (SSL_get_error(s, rc) == SSL_ERROR_SYSCALL) {
    *want_write = false;
    ERR_clear_error();
    return MCP__TLS_EOF;
  }
  return outcome(s, rc, want_write);
}

ssize_t mcp__tls_write(mcp__tls *t, const void *buf, size_t len,
                       bool *want_write) {
  SSL *s = (SSL *)t;
  size_t put = 0;
  int rc = SSL_write_ex(s, buf, len, &put);
  if (rc == 1) {
    *want_write = false;
    return (ssize_t)put;
  }
  return outcome(s, rc, want_write);
}
