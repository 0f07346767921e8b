/* SPDX-License-Identifier: MIT */
/* demo_tls_test.c - the demo server over HTTPS (--tls-cert/--tls-key): a CA
 * and server certificates made here with OpenSSL; mcpc --cacert and curl
 * reach it; a wrong CA (and the system store) is refused by the client;
 * TLS 1.1 is refused by the server; SIGHUP reloads the certificate while a
 * connection opened before keeps working, and a broken certificate file
 * leaves the old one in service. Also: the warning of a server bound
 * beyond loopback without authorization. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <pty.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mcpc_run.h"

static EVP_PKEY *ca_key;
static pid_t demo_pid = -1; /* stopped by teardown when a test fails */
static X509 *ca_cert;
static char ca_path[300], wrong_ca_path[300], cert_path[300], key_path[300];

static void add_ext(X509 *x, X509V3_CTX *ctx, int nid, const char *value) {
  X509_EXTENSION *e = X509V3_EXT_conf_nid(NULL, ctx, nid, value);
  assert_non_null(e);
  X509_add_ext(x, e, -1);
  X509_EXTENSION_free(e);
}

/* A certificate for key named cn: a CA when issuer is NULL (self-signed),
 * else a server certificate for 127.0.0.1 / localhost signed by issuer. */
static X509 *make_cert(EVP_PKEY *key, const char *cn, X509 *issuer,
                       EVP_PKEY *issuer_key, long serial) {
  X509 *x = X509_new();
  X509_set_version(x, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x), serial);
  X509_gmtime_adj(X509_getm_notBefore(x), -3600);
  X509_gmtime_adj(X509_getm_notAfter(x), 86400);
  X509_set_pubkey(x, key);
  X509_NAME *n = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC, (const unsigned char *)cn,
                             -1, -1, 0);
  X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : n);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer ? issuer : x, x, NULL, NULL, 0);
  if (issuer == NULL) {
    add_ext(x, &ctx, NID_basic_constraints, "critical,CA:TRUE");
    add_ext(x, &ctx, NID_key_usage, "critical,keyCertSign,cRLSign");
    add_ext(x, &ctx, NID_subject_key_identifier, "hash");
  } else {
    add_ext(x, &ctx, NID_basic_constraints, "CA:FALSE");
    add_ext(x, &ctx, NID_key_usage, "critical,digitalSignature");
    add_ext(x, &ctx, NID_ext_key_usage, "serverAuth");
    add_ext(x, &ctx, NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost");
  }
  assert_true(X509_sign(x, issuer_key ? issuer_key : key, EVP_sha256()) > 0);
  return x;
}

static void write_cert(const char *path, X509 *x) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  PEM_write_X509(f, x);
  fclose(f);
}

/* A fresh server key and certificate (serial) in cert_path/key_path. */
static void issue_server_cert(long serial) {
  EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
  X509 *x = make_cert(k, "localhost", ca_cert, ca_key, serial);
  write_cert(cert_path, x);
  FILE *f = fopen(key_path, "w");
  assert_non_null(f);
  PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL);
  fclose(f);
  X509_free(x);
  EVP_PKEY_free(k);
}

static int setup(void **state) {
  (void)state;
  if (mr_setup("mcp-tls") != 0)
    return -1;
  snprintf(ca_path, sizeof ca_path, "%s/ca.pem", mr_tmpdir);
  snprintf(wrong_ca_path, sizeof wrong_ca_path, "%s/wrong-ca.pem", mr_tmpdir);
  snprintf(cert_path, sizeof cert_path, "%s/server.pem", mr_tmpdir);
  snprintf(key_path, sizeof key_path, "%s/server.key", mr_tmpdir);
  ca_key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
  ca_cert = make_cert(ca_key, "libmcp test CA", NULL, NULL, 1);
  write_cert(ca_path, ca_cert);
  EVP_PKEY *wk = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
  X509 *wrong = make_cert(wk, "libmcp test CA", NULL, NULL, 1);
  write_cert(wrong_ca_path, wrong);
  X509_free(wrong);
  EVP_PKEY_free(wk);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  X509_free(ca_cert);
  EVP_PKEY_free(ca_key);
  mr_stop(demo_pid);
  mr_teardown();
  return 0;
}

/* ---- a TLS client of our own (to hold a connection across a reload) ---- */

typedef struct tls_conn {
  int port;
  SSL_CTX *ctx;
  SSL *ssl;
  int fd;
} tls_conn;

static bool tls_open(tls_conn *c, int port, const char *ca, int max_version) {
  memset(c, 0, sizeof *c);
  c->port = port;
  c->ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_load_verify_locations(c->ctx, ca, NULL);
  SSL_CTX_set_verify(c->ctx, SSL_VERIFY_PEER, NULL);
  if (max_version) {
    /* let the client offer old versions: the server must be the one that
     * refuses them */
    SSL_CTX_set_security_level(c->ctx, 0);
    SSL_CTX_set_cipher_list(c->ctx, "DEFAULT:@SECLEVEL=0");
    SSL_CTX_set_min_proto_version(c->ctx, TLS1_VERSION);
    SSL_CTX_set_max_proto_version(c->ctx, max_version);
  }
  c->fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_port = htons((uint16_t)port),
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0)
    return false;
  c->ssl = SSL_new(c->ctx);
  SSL_set_fd(c->ssl, c->fd);
  X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(c->ssl), "127.0.0.1");
  return SSL_connect(c->ssl) == 1;
}

static void tls_close(tls_conn *c) {
  if (c->ssl) {
    SSL_shutdown(c->ssl);
    SSL_free(c->ssl);
  }
  if (c->fd > 0)
    close(c->fd);
  SSL_CTX_free(c->ctx);
  ERR_clear_error();
  memset(c, 0, sizeof *c);
}

static long tls_peer_serial(tls_conn *c) {
  X509 *x = SSL_get1_peer_certificate(c->ssl);
  long s = x ? ASN1_INTEGER_get(X509_get_serialNumber(x)) : -1;
  X509_free(x);
  return s;
}

#define INIT_BODY                                                              \
  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"       \
  "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"                    \
  "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"

/* One keep-alive POST of initialize on c; returns the HTTP status. */
static int tls_initialize(tls_conn *c) {
  char req[1024];
  int n = snprintf(req, sizeof req,
                   "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                   "Accept: application/json, text/event-stream\r\n"
                   "Content-Type: application/json\r\n"
                   "Content-Length: %zu\r\n\r\n%s",
                   c->port, strlen(INIT_BODY), INIT_BODY);
  if (SSL_write(c->ssl, req, n) != n)
    return 0;
  char buf[8192];
  size_t len = 0;
  for (;;) {
    int r = SSL_read(c->ssl, buf + len, (int)(sizeof buf - 1 - len));
    if (r <= 0)
      return 0;
    len += (size_t)r;
    buf[len] = '\0';
    char *end = strstr(buf, "\r\n\r\n");
    const char *cl = strcasestr(buf, "\r\nContent-Length:");
    if (end && cl && len - (size_t)(end + 4 - buf) >= strtoul(cl + 17, 0, 10))
      break;
  }
  int status = 0;
  sscanf(buf, "HTTP/1.1 %d", &status);
  return status;
}

/* ---- the demo over HTTPS ------------------------------------------------ */

static pid_t start_demo(const char *hp, const char *url, char *const *extra,
                        const char *err_path) {
  char bin[1024], db[400], store[420];
  snprintf(bin, sizeof bin, "%s/mcp-demo-server", MCP_BIN_DIR);
  snprintf(db, sizeof db, "%s/demo.db", mr_tmpdir);
  snprintf(store, sizeof store, "sqlite:%s", db);
  char *argv[24] = {bin, "--http", (char *)hp, "--db", db, "--store", store};
  int n = 7;
  for (; extra && *extra && n < 22; extra++)
    argv[n++] = *extra;
  argv[n] = NULL;
  pid_t parent_ = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    tu_child_dies_with(parent_);
    int e = open(err_path ? err_path : "/dev/null",
                 O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(e, 2);
    if (chdir(mr_tmpdir) != 0)
      _exit(126);
    execv(bin, argv);
    _exit(127);
  }
  demo_pid = pid;
  for (int i = 0; i < 600; i++) { /* up to 30 s on a loaded machine */
    struct timespec ts = {0, 50 * 1000000L};
    nanosleep(&ts, NULL);
    if (waitpid(pid, NULL, WNOHANG) == pid) { /* it exited: port taken? */
      demo_pid = -1;
      return -1;
    }
    const char *a[] = {"-u",        url,    "--cacert", ca_path,
                       "--timeout", "2000", "ping",     NULL};
    if (mr_run(a, NULL, NULL) == 0)
      return pid;
  }
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  demo_pid = -1;
  return -1;
}

/* Runs a shell line in the scratch directory; returns its exit status. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...) {
  char cmd[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_https(void **state) {
  (void)state;
  issue_server_cert(100);
  int port = mr_free_port();
  char hp[64], url[128];
  snprintf(hp, sizeof hp, "127.0.0.1:%d", port);
  snprintf(url, sizeof url, "https://%s/mcp", hp);
  char *extra[] = {"--tls-cert", cert_path, "--tls-key", key_path, NULL};
  pid_t pid = start_demo(hp, url, extra, NULL);
  assert_true(pid > 0);

  /* mcpc with the right CA */
  char *out = NULL;
  MR_RUN(0, &out, "-u", url, "--cacert", ca_path, "tools", "call", "add", "a=1",
         "b=2");
  assert_non_null(strstr(out, "3"));
  free(out);
  /* a wrong CA, and the system store, are refused by the client */
  char *err = NULL;
  const char *wrong[] = {"-u",        url,    "--cacert", wrong_ca_path,
                         "--timeout", "5000", "ping",     NULL};
  assert_int_not_equal(mr_run(wrong, NULL, &err), 0);
  free(err);
  const char *system_store[] = {"-u", url, "--timeout", "5000", "ping", NULL};
  assert_int_not_equal(mr_run(system_store, NULL, NULL), 0);
  /* plain HTTP on the HTTPS port gets no MCP answer */
  char plain[128];
  snprintf(plain, sizeof plain, "http://%s/mcp", hp);
  const char *http[] = {"-u", plain, "--timeout", "5000", "ping", NULL};
  assert_int_not_equal(mr_run(http, NULL, NULL), 0);

  /* curl: right CA 200, wrong CA exit 60 (peer certificate not trusted) */
  assert_int_equal(
      sh("cd %s && curl -s -o curl.out -w '%%{http_code}' --cacert %s "
         "-H 'Content-Type: application/json' "
         "-H 'Accept: application/json, text/event-stream' "
         "--data '" INIT_BODY "' %s > curl.code",
         mr_tmpdir, ca_path, url),
      0);
  char path[400];
  snprintf(path, sizeof path, "%s/curl.code", mr_tmpdir);
  char *code = tu_read_file(path, NULL);
  assert_string_equal(code, "200");
  free(code);
  /* curl refuses the wrong CA (60 with the OpenSSL backend, 35 with
   * GnuTLS's) */
  assert_int_not_equal(
      sh("curl -s -o /dev/null --cacert %s %s", wrong_ca_path, url), 0);

  /* TLS 1.1 is refused by the server, 1.2 and 1.3 accepted */
  tls_conn c;
  assert_false(tls_open(&c, port, ca_path, TLS1_1_VERSION));
  tls_close(&c);
  assert_true(tls_open(&c, port, ca_path, TLS1_2_VERSION));
  assert_int_equal(tls_initialize(&c), 200);
  tls_close(&c);

  /* reload on SIGHUP: a connection opened before keeps working */
  tls_conn before;
  assert_true(tls_open(&before, port, ca_path, 0));
  assert_int_equal(tls_peer_serial(&before), 100);
  assert_int_equal(tls_initialize(&before), 200);
  issue_server_cert(200);
  kill(pid, SIGHUP);
  long serial = 0;
  for (int i = 0; i < 200 && serial != 200; i++) { /* the signal is async */
    struct timespec ts = {0, 50 * 1000000L};
    nanosleep(&ts, NULL);
    tls_conn probe;
    if (tls_open(&probe, port, ca_path, 0))
      serial = tls_peer_serial(&probe);
    tls_close(&probe);
  }
  assert_int_equal(serial, 200);
  assert_int_equal(tls_initialize(&before), 200); /* not dropped */
  assert_int_equal(tls_initialize(&before), 200);
  tls_close(&before);
  /* a broken certificate file: the reload fails, the old one stays */
  FILE *f = fopen(cert_path, "w");
  fputs("not a certificate\n", f);
  fclose(f);
  kill(pid, SIGHUP);
  struct timespec ts = {0, 300 * 1000000L};
  nanosleep(&ts, NULL);
  MR_RUN(0, NULL, "-u", url, "--cacert", ca_path, "ping");
  assert_true(tls_open(&c, port, ca_path, 0));
  assert_int_equal(tls_peer_serial(&c), 200);
  tls_close(&c);
  mr_stop(pid);
  demo_pid = -1;
}

/* Bound beyond loopback without authorization: a warning at start; with
 * --auth-* none. */
static void test_exposed_warning(void **state) {
  (void)state;
  char err_path[400], jwks[400];
  snprintf(err_path, sizeof err_path, "%s/demo.err", mr_tmpdir);
  snprintf(jwks, sizeof jwks, "%s/jwks.json", mr_tmpdir);
  FILE *f = fopen(jwks, "w");
  fputs("{\"keys\":[]}", f);
  fclose(f);
  for (int with_auth = 0; with_auth < 2; with_auth++) {
    issue_server_cert(300);
    int port = mr_free_port();
    char hp[64], url[128];
    snprintf(hp, sizeof hp, "0.0.0.0:%d", port);
    snprintf(url, sizeof url, "https://127.0.0.1:%d/mcp", port);
    char *plain[] = {"--tls-cert", cert_path, "--tls-key", key_path, NULL};
    char *auth[] = {"--tls-cert",
                    cert_path,
                    "--tls-key",
                    key_path,
                    "--auth-issuer",
                    "https://issuer.example.test",
                    "--auth-jwks",
                    jwks,
                    NULL};
    pid_t pid = -1;
    if (!with_auth) {
      /* 0.0.0.0:port can collide with a port another test holds on
       * loopback (tests run in parallel): a demo that exits at start is
       * tried again on another port. */
      for (int attempt = 0; attempt < 5 && pid < 0; attempt++) {
        if (attempt > 0) {
          port = mr_free_port();
          snprintf(hp, sizeof hp, "0.0.0.0:%d", port);
          snprintf(url, sizeof url, "https://127.0.0.1:%d/mcp", port);
        }
        pid = start_demo(hp, url, plain, err_path);
      }
    } else {
      /* with auth, ping needs a token: wait for the metadata instead */
      char bin[1024], db[400], store[420];
      snprintf(bin, sizeof bin, "%s/mcp-demo-server", MCP_BIN_DIR);
      snprintf(db, sizeof db, "%s/demo.db", mr_tmpdir);
      snprintf(store, sizeof store, "sqlite:%s", db);
      pid_t parent_ = getpid();
      pid = fork();
      if (pid == 0) {
        tu_child_dies_with(parent_);
        int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(e, 2);
        char *argv[16] = {bin, "--http", hp, "--db", db, "--store", store};
        memcpy(argv + 7, auth, sizeof auth);
        execv(bin, argv);
        _exit(127);
      }
      demo_pid = pid;
      int rc = -1;
      for (int i = 0; i < 600 && rc != 0; i++) {
        struct timespec ts = {0, 50 * 1000000L};
        nanosleep(&ts, NULL);
        rc = sh("curl -sf -o /dev/null --cacert %s "
                "https://127.0.0.1:%d/.well-known/oauth-protected-resource",
                ca_path, port);
      }
      assert_int_equal(rc, 0);
      /* and an MCP request without a token gets 401 */
      assert_int_equal(sh("test \"$(curl -s -o /dev/null -w '%%{http_code}' "
                          "--cacert %s -X POST %s)\" = 401",
                          ca_path, url),
                       0);
    }
    assert_true(pid > 0);
    mr_stop(pid);
    demo_pid = -1;
    char *text = tu_read_file(err_path, NULL);
    assert_non_null(text);
    if (with_auth)
      assert_null(strstr(text, "without authorization"));
    else
      assert_non_null(strstr(text, "without authorization"));
    free(text);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_https),
      cmocka_unit_test(test_exposed_warning),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
