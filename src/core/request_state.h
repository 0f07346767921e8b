/* SPDX-License-Identifier: MIT */
/* request_state.h - the sealed requestState of 2026-07-28 multi-round
 * requests (SEP-2322).
 *
 * The client carries the state between rounds and must not be able to
 * forge, alter, replay it for other arguments or another caller, or use it
 * after it expired. The state is JSON signed with HMAC-SHA256 under the
 * server's key; any replica holding the same key can resume it. It is
 * signed, not encrypted: the client may read it (it holds its own answers
 * and what the handler chose to keep).
 */
#ifndef MCP_SERVER_REQUEST_STATE_H
#define MCP_SERVER_REQUEST_STATE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp/status.h"

#define MCP__STATE_KEY_MIN 32
#define MCP__STATE_KEY_MAX 64

typedef struct mcp__state_key {
  unsigned char bytes[MCP__STATE_KEY_MAX];
  size_t len;
} mcp__state_key;

/* What binds a state to one request: method, the name or URI it targets,
 * its arguments (a digest) and the caller. */
typedef struct mcp__state_binding {
  const char *method;
  const char *target;  /* tool/prompt name, resource URI, or "" */
  const json_t *args;  /* may be NULL */
  const char *subject; /* authenticated caller or NULL */
  int64_t now_ms;      /* wall clock, ms since the epoch */
} mcp__state_binding;

/* Seals {answers, handler state, the keys of the open questions} (all
 * borrowed, may be NULL; asked is the inputRequests object, whose keys
 * alone are kept) for b, valid until b->now_ms + ttl_ms. Returns a
 * malloc'd token or NULL (no memory). */
char *mcp__state_seal(const mcp__state_key *key, const mcp__state_binding *b,
                      int64_t ttl_ms, const json_t *answers,
                      const json_t *state, const json_t *asked);

/* Checks token against key and b. On MCP_OK *answers, *state and *open
 * (an array of the keys of the questions the token's round asked: the
 * only keys the retry may answer) are new references (NULL when absent).
 * MCP_ERR_INVALID with why set (a static sentence) when the token is
 * malformed (its MAC not in canonical base64 included), forged or
 * altered, expired, or bound to another request or caller. */
mcp_status mcp__state_open(const mcp__state_key *key,
                           const mcp__state_binding *b, const char *token,
                           json_t **answers, json_t **state, json_t **open,
                           const char **why);

#endif
