/* SPDX-License-Identifier: MIT */
/* prescan.h - one cheap pass over a JSON-RPC message before it is parsed.
 *
 * Transports must decide a few things before (or instead of) parsing: is
 * this a batch, is it too deep, which era does it speak, and, through the
 * core (mcp__server_triage in core/channel.h, which reads the method and
 * the tool name found here), where it is to be accepted and run. One pass
 * answers all of them without allocating; the dispatcher then parses once
 * and does not scan the depth again. This layer knows JSON-RPC, not MCP:
 * it names no method.
 *
 * The scan does not validate: on malformed text its answers are best
 * effort and the parser reports the error.
 */
#ifndef MCP_JSONRPC_PRESCAN_H
#define MCP_JSONRPC_PRESCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "json/tape.h"

typedef enum mcp__scan_kind {
  MCP__SCAN_OTHER = 0,    /* not an object, or unreadable */
  MCP__SCAN_BATCH,        /* a top-level array */
  MCP__SCAN_REQUEST,      /* "method" and "id" */
  MCP__SCAN_NOTIFICATION, /* "method" without "id" */
  MCP__SCAN_RESPONSE      /* "result" or "error", no "method" */
} mcp__scan_kind;

typedef struct mcp__prescan {
  mcp__scan_kind kind;
  size_t depth; /* deepest nesting of arrays and objects */
  /* The top-level "method" and params.name strings, pointing into the
   * text; NULL when absent or written with escapes. */
  const char *method, *name;
  size_t method_len, name_len;
  /* params._meta names io.modelcontextprotocol/protocolVersion: the
   * request speaks 2026-07-28 (or claims to). */
  bool modern;
  /* The text parsed (mcp__jsonrpc_scan), or NULL: the dispatcher decodes
   * from it instead of parsing again. Lent: valid while its owner keeps
   * it; clear it before the scan outlives the tape. */
  const mcp__tape *tape;
} mcp__prescan;

/* Messages up to this size are parsed by the transport's receiving thread
 * (mcp__jsonrpc_scan: the parse the dispatcher then decodes from, there or
 * on a worker); bigger ones are only prescanned there and parsed by the
 * thread that runs them, so that one big message does not hold up the
 * receiving thread. */
#define MCP__SCAN_PARSE_MAX 16384

/* The envelope members of a parsed message that matter, found in one walk
 * over the root object's members (the last of duplicates counts): shared
 * by the scan and the decoder. */
typedef struct mcp__envelope {
  const mcp__tnode *id, *method, *version, *params;
  bool response; /* has "result" or "error" */
} mcp__envelope;
void mcp__jsonrpc_read_envelope(const mcp__tnode *root, mcp__envelope *e);

/* Scans len bytes of text into *out. */
void mcp__jsonrpc_prescan(const char *text, size_t len, mcp__prescan *out);

/* The same answers from a parse: len bytes of text into the tape t
 * (caller's storage; mcp__tape_release it whatever the result), *out filled
 * from it with out->tape = t, so that the dispatcher parses nothing again.
 * Text that is not one JSON value gets mcp__jsonrpc_prescan's best effort
 * (out->tape NULL; the dispatcher reports the error). */
void mcp__jsonrpc_scan(const char *text, size_t len, mcp__tape *t,
                       mcp__prescan *out);

#endif
