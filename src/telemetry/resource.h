/* SPDX-License-Identifier: MIT */
/* resource.h - the OpenTelemetry resource of a libmcp server or client, as
 * OTLP/JSON KeyValue objects (comma separated, no brackets): service.name
 * from OTEL_SERVICE_NAME, else from OTEL_RESOURCE_ATTRIBUTES, else
 * default_service; the other OTEL_RESOURCE_ATTRIBUTES pairs;
 * telemetry.sdk.name/language/version. malloc'd; NULL when out of memory. */
#ifndef MCP_TELEMETRY_RESOURCE_H
#define MCP_TELEMETRY_RESOURCE_H

char *mcp__otel_resource_json(const char *default_service);

#endif
