/* SPDX-License-Identifier: MIT */
/* version.h - libmcp version and the MCP protocol revisions it speaks. */
#ifndef MCP_VERSION_H
#define MCP_VERSION_H

#include "mcp/export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MCP_VERSION_MAJOR  0
#define MCP_VERSION_MINOR  1
#define MCP_VERSION_PATCH  0
#define MCP_VERSION_STRING "0.1.0"
#define MCP_VERSION_NUMBER                                                     \
  (MCP_VERSION_MAJOR * 10000 + MCP_VERSION_MINOR * 100 + MCP_VERSION_PATCH)

/* The newest protocol revision of the legacy (initialize-based) era. */
#define MCP_PROTOCOL_LATEST "2025-11-25"

/* Version of the library actually linked (compare with MCP_VERSION_NUMBER). */
MCP_API int mcp_version_number(void);
MCP_API const char *mcp_version_string(void);

#ifdef __cplusplus
}
#endif
#endif
