/* SPDX-License-Identifier: MIT */
/* export.h - symbol visibility for libmcp.
 *
 * The library is built with -fvisibility=hidden; only declarations marked
 * MCP_API are exported. Internal cross-file symbols use the mcp__ prefix and
 * stay hidden.
 */
#ifndef MCP_EXPORT_H
#define MCP_EXPORT_H

#if defined(__GNUC__) && defined(MCP_BUILDING_LIBRARY)
#define MCP_API __attribute__((visibility("default")))
#else
#define MCP_API
#endif

#endif
