/* SPDX-License-Identifier: MIT */
/* status.c - mcp_strerror, mcp_status_name and mcp_error_set, generated from
 * the single MCP_STATUS_MAP list in status.h. */
#include "mcp/status.h"
#include "mcp/version.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *mcp_strerror(mcp_status status) {
  switch (status) {
#define MCP__STATUS_MSG(name, number, message)                                 \
  case name:                                                                   \
    return message;
    MCP_STATUS_MAP(MCP__STATUS_MSG)
#undef MCP__STATUS_MSG
  }
  return "unknown status";
}

const char *mcp_status_name(mcp_status status) {
  switch (status) {
#define MCP__STATUS_NAME(name, number, message)                                \
  case name:                                                                   \
    return #name;
    MCP_STATUS_MAP(MCP__STATUS_NAME)
#undef MCP__STATUS_NAME
  }
  return "unknown status";
}

mcp_status mcp_error_set(mcp_error_t *err, mcp_status status, const char *fmt,
                         ...) {
  if (err == NULL)
    return status;
  err->status = status;
  err->rpc_code = 0;
  err->pointer[0] = '\0';
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  if (n >= (int)sizeof err->message) {
    /* Never cut silently: end on a whole character and say so with an
     * ellipsis (U+2026, 3 bytes). Callers whose text may be long (lists)
     * say where the whole of it is. */
    size_t at = sizeof err->message - 4;
    while (at > 0 && ((unsigned char)err->message[at] & 0xC0) == 0x80)
      at--;
    memcpy(err->message + at, "\xE2\x80\xA6", 4);
  }
  return status;
}

int mcp_version_number(void) {
  return MCP_VERSION_NUMBER;
}
const char *mcp_version_string(void) {
  return MCP_VERSION_STRING;
}
