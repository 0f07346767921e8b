/* SPDX-License-Identifier: MIT */
/* url.c - what -u accepts: http:// and https:// URLs, and host:port/path,
 * which means http:// when the host is a loopback one (localhost, 127.x,
 * [::1]). Anything else is refused with the reason, naming the value. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commands.h"

static bool is_loopback(const char *host, size_t n) {
  if ((n == 9 && strncasecmp(host, "localhost", 9) == 0) ||
      (n == 5 && strncmp(host, "[::1]", 5) == 0))
    return true;
  /* 127.a.b.c: four decimal parts, the first 127 */
  if (n < 9 || strncmp(host, "127.", 4) != 0)
    return false;
  int dots = 0;
  for (size_t i = 3; i < n; i++) {
    if (host[i] == '.')
      dots++;
    else if (!isdigit((unsigned char)host[i]))
      return false;
  }
  return dots == 3;
}

bool mcpc_url_normalize(const char *in, char *out, size_t outn, char *why,
                        size_t whyn) {
  const char *sep = strstr(in, "://");
  bool has_scheme = sep != NULL;
  if (in[0] == '\0') {
    snprintf(why, whyn, "-u '': the URL is empty");
    return false;
  }
  for (const char *p = in; *p; p++)
    if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p)) {
      snprintf(why, whyn, "-u '%s': a URL has no spaces or control characters",
               in);
      return false;
    }
  if (has_scheme) {
    size_t n = (size_t)(sep - in);
    if (!((n == 4 && strncasecmp(in, "http", 4) == 0) ||
          (n == 5 && strncasecmp(in, "https", 5) == 0))) {
      snprintf(why, whyn, "-u '%s': only http:// and https:// URLs", in);
      return false;
    }
  }
  const char *auth = has_scheme ? sep + 3 : in;
  size_t alen = strcspn(auth, "/?#");
  const char *at = memchr(auth, '@', alen);
  const char *host = at ? at + 1 : auth;
  size_t hlen = alen - (size_t)(host - auth);
  const char *port = NULL;
  if (hlen > 0 && host[0] == '[') {
    const char *close = memchr(host, ']', hlen);
    if (close == NULL) {
      snprintf(why, whyn, "-u '%s': an IPv6 address needs its closing ]", in);
      return false;
    }
    if ((size_t)(close + 1 - host) < hlen) {
      if (close[1] != ':') {
        snprintf(why, whyn, "-u '%s': expected :PORT after ]", in);
        return false;
      }
      port = close + 2;
    }
    hlen = (size_t)(close + 1 - host);
  } else {
    const char *colon = memchr(host, ':', hlen);
    if (colon != NULL) {
      port = colon + 1;
      hlen = (size_t)(colon - host);
    }
  }
  if (hlen == 0) {
    snprintf(why, whyn, "-u '%s': no host", in);
    return false;
  }
  if (port != NULL) {
    size_t plen = (size_t)(auth + alen - port);
    long v = 0;
    bool ok = plen > 0 && plen <= 5;
    for (size_t i = 0; ok && i < plen; i++) {
      ok = isdigit((unsigned char)port[i]) != 0;
      v = v * 10 + (port[i] - '0');
    }
    if (!ok || v < 1 || v > 65535) {
      snprintf(why, whyn,
               "-u '%s': the port '%.*s' is not a number from 1 to "
               "65535",
               in, (int)plen, port);
      return false;
    }
  }
  if (!has_scheme && !is_loopback(host, hlen)) {
    snprintf(why, whyn,
             "-u '%s': say https://%s (or http://): http:// is "
             "assumed only for localhost, 127.x and [::1]",
             in, in);
    return false;
  }
  int w = snprintf(out, outn, "%s%s", has_scheme ? "" : "http://", in);
  if (w < 0 || (size_t)w >= outn) {
    snprintf(why, whyn, "-u: the URL is too long");
    return false;
  }
  for (char *p = out; *p != ':'; p++) /* the library wants it lower case */
    *p = (char)tolower((unsigned char)*p);
  return true;
}
