/* SPDX-License-Identifier: MIT */
/* dpop_jti.h - the DPoP jti replay record shared by the replicas on a
 * PostgreSQL store (table mcp_dpop_jti). The transport installs it on the
 * resource server (mcp_auth_t) when the server's tasks run on such a
 * store; the auth module sees only a function pointer. */
#ifndef MCP_STORE_DPOP_JTI_H
#define MCP_STORE_DPOP_JTI_H

#include <stdbool.h>
#include <stdint.h>

#include "mcp/status.h"
#include "mcp/store.h"

/* Whether store can record DPoP proofs for every replica (PostgreSQL). */
bool mcp__dpop_jti_store_usable(mcp_store_t *store);

/* Records the 32-byte replay key of a proof until expires_ms (wall clock):
 * MCP_OK when it is new, MCP_ERR_EXISTS when some replica recorded it
 * already (a replay), MCP_ERR_IO (err filled) when the database could not
 * record it, MCP_ERR_TIMEOUT when it did not answer within timeout_ms (the
 * key may then be recorded or not). Now and then (1 in 256 keys) removes
 * the rows expired at now_ms, within what is left of timeout_ms. ctx is
 * the mcp_store_t (borrowed). */
mcp_status mcp__dpop_jti_record(void *ctx, const unsigned char key[32],
                                int64_t expires_ms, int64_t now_ms,
                                int64_t timeout_ms, mcp_error_t *err);

#endif
