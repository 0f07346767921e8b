/* SPDX-License-Identifier: MIT */
/* fuzz_uri_template.c - libFuzzer: RFC 6570 URI templates as resource
 * templates use them. Input: a template, a newline, a URI; the template is
 * parsed and the URI matched against it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "resources/uri_template.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (text == NULL)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  char *uri = strchr(text, '\n');
  if (uri)
    *uri++ = '\0';
  mcp__uritpl *t = NULL;
  char why[128];
  if (mcp__uritpl_parse(text, &t, why, sizeof why) == MCP_OK) {
    json_t *vars = NULL;
    if (mcp__uritpl_match(t, uri ? uri : "", &vars))
      json_decref(vars);
    mcp__uritpl_has_var(t, uri ? uri : "x");
    mcp__uritpl_free(t);
  }
  free(text);
  return 0;
}
