/* SPDX-License-Identifier: MIT */
/* http_metrics.h - the Prometheus endpoint of the HTTP transport
 * (mcp_http_options_set_metrics, docs/observability.md): its own path and
 * client address allow-list, outside MCP authorization. */
#ifndef MCP_TRANSPORT_HTTP_METRICS_H
#define MCP_TRANSPORT_HTTP_METRICS_H

#include "transport/http_internal.h"

/* At mcp_http_server_start, before the server serves: refuses options
 * whose metrics path became the MCP endpoint's (set_endpoint after
 * set_metrics), and turns metric collection on. MCP_OK when the endpoint
 * is off. */
mcp_status mcp__hs_metrics_prepare(mcp_server_t *server,
                                   const mcp_http_options_t *o,
                                   mcp_error_t *err);
/* Called for every request once its headers are in, before MCP
 * authorization: for the metrics path and an allowed client, queues the
 * answer (the metrics, 405 for another method, 403 for a Host or Origin
 * not allowed) and returns MCP__HE_YES/MCP__HE_NO; otherwise -1 and the
 * request goes on as any other (a client not on the list thus gets what
 * an unknown path gets). */
int mcp__hs_metrics_route(mcp_http_server_t *h, hs_req *r, const char *url);

#endif
