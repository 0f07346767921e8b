/* SPDX-License-Identifier: MIT */
/* cmd_apps.c - apps show TOOL [--out FILE]: the MCP Apps view a tool links
 * to (SEP-1865, _meta.ui.resourceUri): the link, the resource's MIME type,
 * size and _meta.ui (CSP domains, permissions, domain, prefersBorder), read
 * with resources/read; --out writes the HTML. mcpc renders nothing and so
 * does not declare the io.modelcontextprotocol/ui extension: tools a
 * server keeps for views alone (visibility ["app"]) are hidden from it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "util/base64.h"

#define APP_MIME "text/html;profile=mcp-app"

/* Prints one _meta.ui.csp list as "  name: a b c". */
static void print_list(const char *label, const json_t *a) {
  if (!json_is_array(a))
    return;
  printf("  %s:", label);
  size_t i;
  json_t *v;
  json_array_foreach(a, i, v) printf(" %s", json_string_value(v));
  printf("\n");
}

int mcpc_cmd_apps_show(mcpc_ctx *ctx, int argc, char **argv) {
  const char *syn = "apps show TOOL [--out FILE]";
  const char *name = NULL, *out = NULL;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
      out = argv[++i];
    else if (argv[i][0] != '-' && name == NULL)
      name = argv[i];
    else
      return mcpc_usage(syn);
  }
  if (name == NULL)
    return mcpc_usage(syn);
  int rc;
  mcp_client_t *c = mcpc_connect(ctx, &rc);
  if (c == NULL)
    return rc;
  json_t *tools = NULL, *read = NULL;
  unsigned char *html = NULL;
  mcp_error_t err;
  mcp_status st = mcp_client_list_all(c, "tools/list", "tools", 0, &tools, &err);
  if (st != MCP_OK) {
    rc = mcpc_fail("tools/list", st, &err);
    goto done;
  }
  const json_t *tool = NULL;
  size_t i;
  json_t *t;
  json_array_foreach(tools, i, t) {
    const char *n = json_string_value(json_object_get(t, "name"));
    if (n && strcmp(n, name) == 0)
      tool = t;
  }
  json_t *ui = json_object_get(json_object_get(tool, "_meta"), "ui");
  const char *uri = json_string_value(json_object_get(ui, "resourceUri"));
  if (tool == NULL || uri == NULL) {
    rc = mcpc_error(MCPC_FAIL, NULL,
                    tool ? "tool \"%s\" links to no MCP Apps view "
                           "(no _meta.ui.resourceUri)"
                         : "no tool named \"%s\"",
                    name);
    goto done;
  }
  st = mcp_client_request(c, "resources/read", json_pack("{s:s}", "uri", uri),
                          NULL, NULL, &read, &err);
  if (st != MCP_OK) {
    rc = mcpc_fail("resources/read", st, &err);
    goto done;
  }
  json_t *content = json_array_get(json_object_get(read, "contents"), 0);
  json_t *text = json_object_get(content, "text");
  json_t *blob = json_object_get(content, "blob");
  size_t len = 0;
  if (json_is_string(text)) {
    len = json_string_length(text);
    html = malloc(len + 1);
    if (html)
      memcpy(html, json_string_value(text), len + 1);
  } else if (json_is_string(blob))
    html = mcp__base64_decode(json_string_value(blob),
                              json_string_length(blob), &len);
  const char *mime = json_string_value(json_object_get(content, "mimeType"));
  json_t *rui = json_object_get(json_object_get(content, "_meta"), "ui");
  if (ctx->json) {
    json_t *o = json_pack("{s:s,s:s,s:O,s:s?,s:s,s:I,s:O}", "tool", name,
                          "resourceUri", uri, "visibility",
                          json_object_get(ui, "visibility")
                              ? json_object_get(ui, "visibility")
                              : json_null(),
                          "mimeType", mime, "encoding",
                          json_is_string(text) ? "text" : "blob", "bytes",
                          (json_int_t)len, "ui", rui ? rui : json_null());
    mcpc_print_json(o);
    json_decref(o);
  } else {
    printf("tool: %s\nresourceUri: %s\n", name, uri);
    json_t *vis = json_object_get(ui, "visibility");
    if (json_is_array(vis)) {
      printf("visibility:");
      json_t *v;
      json_array_foreach(vis, i, v) printf(" %s", json_string_value(v));
      printf("\n");
    } else
      printf("visibility: model app (default)\n");
    printf("mimeType: %s\n%s: %zu bytes\n", mime ? mime : "(none)",
           json_is_string(text) ? "text" : "blob", len);
    json_t *csp = json_object_get(rui, "csp");
    if (csp) {
      printf("csp:\n");
      print_list("connectDomains", json_object_get(csp, "connectDomains"));
      print_list("resourceDomains", json_object_get(csp, "resourceDomains"));
      print_list("frameDomains", json_object_get(csp, "frameDomains"));
      print_list("baseUriDomains", json_object_get(csp, "baseUriDomains"));
    } else
      printf("csp: none (the host's restrictive default)\n");
    json_t *perms = json_object_get(rui, "permissions");
    if (json_object_size(perms)) {
      const char *k;
      json_t *v;
      printf("permissions:");
      json_object_foreach(perms, k, v) printf(" %s", k);
      printf("\n");
    }
    const char *domain = json_string_value(json_object_get(rui, "domain"));
    if (domain)
      printf("domain: %s\n", domain);
    json_t *border = json_object_get(rui, "prefersBorder");
    if (json_is_boolean(border))
      printf("prefersBorder: %s\n", json_is_true(border) ? "true" : "false");
  }
  rc = MCPC_OK;
  if (mime == NULL || strcmp(mime, APP_MIME) != 0) {
    rc = mcpc_error(MCPC_FAIL, NULL, "%s is %s, not " APP_MIME, uri,
                    mime ? mime : "of no MIME type");
  } else if (html == NULL) {
    rc = mcpc_error(MCPC_FAIL, NULL, "%s has neither text nor blob", uri);
  } else if (out != NULL) {
    FILE *f = fopen(out, "wb");
    bool ok = f && fwrite(html, 1, len, f) == len;
    if (f && fclose(f) != 0)
      ok = false;
    if (!ok)
      rc = mcpc_error(MCPC_FAIL, NULL, "cannot write %s", out);
    else if (!ctx->json)
      printf("written: %s\n", out);
  }
done:
  free(html);
  json_decref(read);
  json_decref(tools);
  mcp_client_close(c);
  return rc;
}
