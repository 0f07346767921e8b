/* SPDX-License-Identifier: MIT */
/* ui_resource.c - MCP Apps views (apps.h): ui:// resources of MIME type
 * text/html;profile=mcp-app with their _meta.ui (csp, permissions, domain,
 * prefersBorder), served from memory or from a file read once.
 *
 * _meta.ui goes in the resources/list entry and in each contents entry of
 * resources/read, where the spec has hosts read it. Values a host would
 * paste into a Content-Security-Policy header are checked here, since one
 * with a ';' or a space would add directives of its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/feature.h"
#include "mcp/apps.h"
#include "resources/resource_internal.h"

#define MAX_HTML_FILE (16u << 20)

static const char *const csp_names[] = {"connectDomains", "resourceDomains",
                                        "frameDomains", "baseUriDomains"};
static const char *const permission_names[] = {"camera", "microphone",
                                               "geolocation", "clipboardWrite"};

void mcp__ui_res_free(mcp__ui_res *ui) {
  if (ui == NULL)
    return;
  free(ui->html);
  json_decref(ui->meta);
  free(ui);
}

static mcp_status built_in_read(mcp_call_t *call, const char *uri,
                                json_t *vars, mcp_read_result_t *out,
                                void *user_data) {
  (void)call;
  (void)vars;
  const mcp__ui_res *ui = user_data;
  return ui->blob ? mcp_read_result_add_blob(out, uri, ui->html, ui->len,
                                             MCP_APP_MIME_TYPE)
                  : mcp_read_result_add_text(out, uri, ui->html,
                                             MCP_APP_MIME_TYPE);
}

mcp_status mcp_ui_resource_new(const char *uri, const char *name,
                               mcp_resource_t **out, mcp_error_t *err) {
  if (out == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "out required");
  *out = NULL;
  if (uri == NULL || strncmp(uri, "ui://", 5) != 0 || uri[5] == '\0')
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "UI resource URI '%.200s' must start with ui:// "
                         "and name something (MCP Apps reserve ui:// for "
                         "views)",
                         uri ? uri : "(null)");
  mcp_resource_t *r = NULL;
  mcp_status st = mcp_resource_new(uri, name, &r);
  if (st != MCP_OK)
    return mcp_error_set(err, st, "UI resource '%.200s': %s", uri,
                         st == MCP_ERR_INVALID_ARG
                             ? "not a URI without spaces, or no name"
                             : mcp_strerror(st));
  r->ui = calloc(1, sizeof *r->ui);
  if (r->ui == NULL || (r->ui->meta = json_object()) == NULL ||
      mcp_resource_set_mime_type(r, MCP_APP_MIME_TYPE) != MCP_OK) {
    mcp_resource_free(r);
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  }
  *out = r;
  return MCP_OK;
}

static mcp__ui_res *ui_of(mcp_resource_t *r) { return r ? r->ui : NULL; }

mcp_status mcp_ui_resource_set_html(mcp_resource_t *r, const char *html,
                                    size_t len) {
  mcp__ui_res *ui = ui_of(r);
  if (ui == NULL || (html == NULL && len))
    return MCP_ERR_INVALID_ARG;
  char *copy = malloc(len + 1);
  if (copy == NULL)
    return MCP_ERR_NOMEM;
  if (len)
    memcpy(copy, html, len);
  copy[len] = '\0';
  free(ui->html);
  ui->html = copy;
  ui->len = len;
  /* the built-in handler, unless one of the caller's is there */
  if (r->h.fn == NULL || r->h.fn == built_in_read)
    r->h = (mcp__handler){built_in_read, ui, NULL};
  return MCP_OK;
}

mcp_status mcp_ui_resource_set_html_file(mcp_resource_t *r, const char *path,
                                         mcp_error_t *err) {
  if (ui_of(r) == NULL || path == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "a UI resource (mcp_ui_resource_new) and a path "
                         "required");
  FILE *f = fopen(path, "rb");
  struct stat st;
  if (f == NULL || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) ||
      (uint64_t)st.st_size > MAX_HTML_FILE) {
    int e = errno;
    bool big = f && (uint64_t)st.st_size > MAX_HTML_FILE;
    bool special = f && !big && !S_ISREG(st.st_mode);
    if (f)
      fclose(f);
    return mcp_error_set(err, MCP_ERR_IO, "UI resource '%.100s': HTML file "
                                          "'%.100s': %s",
                         r->entry.key, path,
                         big       ? "larger than 16 MiB"
                         : special ? "not a regular file"
                                   : strerror(e));
  }
  size_t len = (size_t)st.st_size;
  char *buf = malloc(len + 1);
  size_t got = buf ? fread(buf, 1, len, f) : 0;
  fclose(f);
  if (buf == NULL || got != len) {
    free(buf);
    return mcp_error_set(err, buf ? MCP_ERR_IO : MCP_ERR_NOMEM,
                         "UI resource '%.100s': HTML file '%.100s': %s",
                         r->entry.key, path,
                         buf ? "short read" : "out of memory");
  }
  mcp_status s = mcp_ui_resource_set_html(r, buf, len);
  free(buf);
  return s == MCP_OK ? MCP_OK : mcp_error_set(err, s, "%s", mcp_strerror(s));
}

mcp_status mcp_ui_resource_set_blob(mcp_resource_t *r, bool on) {
  if (ui_of(r) == NULL)
    return MCP_ERR_INVALID_ARG;
  r->ui->blob = on;
  return MCP_OK;
}

/* scheme://host[:port], host a DNS name or IPv4 (or [IPv6]) whose first
 * label may be "*"; nothing after the authority. */
static bool origin_ok(const char *o) {
  const char *p = o;
  if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
    return false;
  while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
         (*p >= '0' && *p <= '9') || *p == '+' || *p == '-' || *p == '.')
    p++;
  if (strncmp(p, "://", 3) != 0)
    return false;
  p += 3;
  if (strncmp(p, "*.", 2) == 0)
    p += 2;
  if (*p == '[') { /* IPv6 literal */
    const char *end = strchr(p, ']');
    if (end == NULL || end == p + 1)
      return false;
    for (const char *c = p + 1; c < end; c++)
      if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f') ||
            (*c >= 'A' && *c <= 'F') || *c == ':' || *c == '.'))
        return false;
    p = end + 1;
  } else {
    const char *host = p;
    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
           (*p >= '0' && *p <= '9') || *p == '-' || *p == '.')
      p++;
    if (p == host || p[-1] == '.' || *host == '.' || *host == '-')
      return false;
  }
  if (*p == ':') {
    const char *port = ++p;
    while (*p >= '0' && *p <= '9')
      p++;
    if (p == port || p - port > 5)
      return false;
  }
  return *p == '\0' || (*p == '/' && p[1] == '\0');
}

static mcp_status keep_fault(mcp_resource_t *r, const char *fmt,
                             const char *value) {
  snprintf(r->ui->fault, sizeof r->ui->fault, fmt, value);
  return MCP_ERR_INVALID_ARG;
}

mcp_status mcp_ui_resource_add_csp(mcp_resource_t *r, mcp_ui_csp_list list,
                                   const char *origin) {
  if (ui_of(r) == NULL)
    return MCP_ERR_INVALID_ARG;
  if ((unsigned)list >= sizeof csp_names / sizeof *csp_names)
    return keep_fault(r, "_meta.ui.csp: list %s is not an mcp_ui_csp_list",
                      "(unknown)");
  if (origin == NULL || !origin_ok(origin)) {
    char fmt[120];
    snprintf(fmt, sizeof fmt,
             "_meta.ui.csp.%s entry '%%.200s' is not an origin "
             "(scheme://host[:port])",
             csp_names[list]);
    return keep_fault(r, fmt, origin ? origin : "(null)");
  }
  json_t *csp = json_object_get(r->ui->meta, "csp");
  if (csp == NULL) {
    csp = json_object();
    if (csp == NULL || json_object_set_new(r->ui->meta, "csp", csp) != 0)
      return MCP_ERR_NOMEM;
  }
  json_t *a = json_object_get(csp, csp_names[list]);
  if (a == NULL) {
    a = json_array();
    if (a == NULL || json_object_set_new(csp, csp_names[list], a) != 0)
      return MCP_ERR_NOMEM;
  }
  size_t i;
  json_t *v;
  json_array_foreach(a, i, v) if (strcmp(json_string_value(v), origin) == 0)
      return MCP_OK;
  return json_array_append_new(a, json_string(origin)) == 0 ? MCP_OK
                                                            : MCP_ERR_NOMEM;
}

mcp_status mcp_ui_resource_set_permissions(mcp_resource_t *r,
                                           unsigned permissions) {
  if (ui_of(r) == NULL)
    return MCP_ERR_INVALID_ARG;
  unsigned known = (1u << (sizeof permission_names / sizeof *permission_names)) - 1;
  if (permissions & ~known) {
    char bits[32];
    snprintf(bits, sizeof bits, "0x%x", permissions & ~known);
    return keep_fault(r, "_meta.ui.permissions: unknown bits %s", bits);
  }
  json_object_del(r->ui->meta, "permissions");
  if (permissions == 0)
    return MCP_OK;
  json_t *p = json_object();
  if (p == NULL || json_object_set_new(r->ui->meta, "permissions", p) != 0)
    return MCP_ERR_NOMEM;
  for (unsigned i = 0; i < sizeof permission_names / sizeof *permission_names;
       i++)
    if (permissions & (1u << i))
      json_object_set_new(p, permission_names[i], json_object());
  return MCP_OK;
}

mcp_status mcp_ui_resource_set_domain(mcp_resource_t *r, const char *domain) {
  if (ui_of(r) == NULL)
    return MCP_ERR_INVALID_ARG;
  if (domain == NULL) {
    json_object_del(r->ui->meta, "domain");
    return MCP_OK;
  }
  bool ok = *domain != '\0';
  for (const unsigned char *c = (const unsigned char *)domain; ok && *c; c++)
    ok = *c > ' ' && *c != 0x7f && *c != '"' && *c != '\'' && *c != ';' &&
         *c != ',';
  if (!ok)
    return keep_fault(r,
                      "_meta.ui.domain '%.200s' holds a space, quote, ';', "
                      "',' or control character, or is empty",
                      domain);
  return json_object_set_new(r->ui->meta, "domain", json_string(domain)) == 0
             ? MCP_OK
             : MCP_ERR_INVALID_ARG; /* not UTF-8 */
}

mcp_status mcp_ui_resource_set_prefers_border(mcp_resource_t *r,
                                              bool prefers) {
  if (ui_of(r) == NULL)
    return MCP_ERR_INVALID_ARG;
  return json_object_set_new(r->ui->meta, "prefersBorder",
                             json_boolean(prefers)) == 0
             ? MCP_OK
             : MCP_ERR_NOMEM;
}

json_t *mcp__ui_res_listing_meta(const mcp_resource_t *r) {
  json_t *meta = r->m.meta ? json_copy(r->m.meta) : json_object();
  if (meta == NULL)
    return NULL;
  if (json_object_size(r->ui->meta) > 0 &&
      json_object_set(meta, "ui", r->ui->meta) != 0) {
    json_decref(meta);
    return NULL;
  }
  return meta; /* {} when there is nothing to say: not listed */
}

mcp_status mcp__ui_res_check(const mcp_resource_t *r, mcp_error_t *err) {
  const char *uri = r->entry.key;
  bool ui_scheme = strncmp(uri, "ui://", 5) == 0;
  const char *mime = r->m.mime_type;
  if (r->ui == NULL) {
    /* a plain resource under the reserved scheme must be a view too */
    if (ui_scheme && mime && strcmp(mime, MCP_APP_MIME_TYPE) != 0)
      return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                           "resource '%.200s': ui:// is reserved for MCP Apps "
                           "views, whose MIME type is " MCP_APP_MIME_TYPE
                           ", not '%.60s'",
                           uri, mime);
    return MCP_OK;
  }
  if (r->ui->fault[0] != '\0')
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "UI resource '%.150s': %s",
                         uri, r->ui->fault);
  if (mime == NULL || strcmp(mime, MCP_APP_MIME_TYPE) != 0)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "UI resource '%.200s': MIME type must be "
                         "" MCP_APP_MIME_TYPE ", not '%.60s'",
                         uri, mime ? mime : "(none)");
  if (r->h.fn == NULL)
    return mcp_error_set(err, MCP_ERR_STATE,
                         "UI resource '%.200s' has no HTML "
                         "(mcp_ui_resource_set_html or _set_html_file) and "
                         "no read handler",
                         uri);
  if (r->h.fn == built_in_read && !r->ui->blob) {
    json_t *probe = json_stringn(r->ui->html, r->ui->len);
    json_decref(probe);
    if (probe == NULL)
      return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                           "UI resource '%.200s': its HTML is not UTF-8 "
                           "text (or holds a NUL): serve it as a blob "
                           "(mcp_ui_resource_set_blob)",
                           uri);
  }
  return MCP_OK;
}

mcp_status mcp__ui_res_complete(const mcp_resource_t *r, json_t *contents) {
  size_t i;
  json_t *entry;
  json_array_foreach(contents, i, entry) {
    const char *uri = json_string_value(json_object_get(entry, "uri"));
    if (uri == NULL || strcmp(uri, r->entry.key) != 0)
      continue;
    if (json_object_get(entry, "mimeType") == NULL &&
        json_object_set_new(entry, "mimeType",
                            json_string(MCP_APP_MIME_TYPE)) != 0)
      return MCP_ERR_NOMEM;
    if (json_object_size(r->ui->meta) == 0)
      continue;
    json_t *meta = json_object_get(entry, "_meta");
    if (meta == NULL) {
      meta = json_object();
      if (meta == NULL || json_object_set_new(entry, "_meta", meta) != 0)
        return MCP_ERR_NOMEM;
    }
    if (json_is_object(meta) && json_object_get(meta, "ui") == NULL &&
        json_object_set(meta, "ui", r->ui->meta) != 0)
      return MCP_ERR_NOMEM;
  }
  return MCP_OK;
}
