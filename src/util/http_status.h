/* SPDX-License-Identifier: MIT */
/* http_status.h - HTTP status codes as words (RFC 9110 reason phrases),
 * for the server's status lines and the client's error messages. */
#ifndef MCP_UTIL_HTTP_STATUS_H
#define MCP_UTIL_HTTP_STATUS_H

/* The reason phrase of status ("Not Found" for 404), a static string; NULL
 * for a status this table does not name (the caller picks a fallback). */
const char *mcp__http_reason(long status);

#endif
