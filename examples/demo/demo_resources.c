/* SPDX-License-Identifier: MIT */
/* demo_resources.c - reports://sales/{period}: the CSV behind the
 * resource_link that build_report returns, so the link resolves through
 * resources/read. The period is completed from a fixed list of quarters. */
#include "demo_resources.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const periods[] = {"2024-Q1", "2024-Q2", "2024-Q3",
                                      "2024-Q4", "2025-Q1", "2025-Q2",
                                      "2025-Q3", "2025-Q4"};

/* A period is what build_report accepts in a URI: 1-32 letters, digits
 * and dashes. */
static bool period_is_valid(const char *p) {
  size_t n = strlen(p);
  if (n == 0 || n > 32)
    return false;
  for (; *p; p++)
    if (!isalnum((unsigned char)*p) && *p != '-')
      return false;
  return true;
}

static mcp_status read_report(mcp_call_t *call, const char *uri, json_t *vars,
                              mcp_read_result_t *out, void *ud) {
  (void)call;
  const char *period = json_string_value(json_object_get(vars, "period"));
  if (period == NULL || !period_is_valid(period))
    return MCP_ERR_RESOURCE_NOT_FOUND;
  sqlite3 *db = demo_db_handle(ud);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "SELECT o.id, o.customer_id, c.name, o.status, "
                         "o.amount FROM orders o LEFT JOIN customers c ON "
                         "c.id = o.customer_id ORDER BY o.id",
                         -1, &st, NULL) != SQLITE_OK)
    return MCP_ERR_IO;
  char *csv = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&csv, &len);
  if (f == NULL) {
    sqlite3_finalize(st);
    return MCP_ERR_NOMEM;
  }
  fputs("period,order_id,customer_id,customer,status,amount\n", f);
  double total = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 2);
    total += sqlite3_column_double(st, 4);
    fprintf(f, "%s,%s,%s,\"%s\",%s,%.2f\n", period,
            (const char *)sqlite3_column_text(st, 0),
            (const char *)sqlite3_column_text(st, 1), name ? name : "",
            (const char *)sqlite3_column_text(st, 3),
            sqlite3_column_double(st, 4));
  }
  fprintf(f, "%s,TOTAL,,,,%.2f\n", period, total);
  sqlite3_finalize(st);
  if (fclose(f) != 0) {
    free(csv);
    return MCP_ERR_NOMEM;
  }
  mcp_status s = mcp_read_result_add_text(out, uri, csv, "text/csv");
  free(csv);
  return s;
}

static mcp_status complete_period(mcp_call_t *call, const char *argument,
                                  const char *value, json_t *context,
                                  mcp_completion_t *out, void *ud) {
  (void)call, (void)argument, (void)context, (void)ud;
  for (size_t i = 0; i < sizeof periods / sizeof periods[0]; i++)
    if (strncmp(periods[i], value, strlen(value)) == 0)
      mcp_completion_add(out, periods[i]);
  return MCP_OK;
}

mcp_status demo_register_resources(mcp_server_t *server, demo_db *db,
                                   mcp_error_t *err) {
  mcp_resource_template_t *t = NULL;
  mcp_status st =
      mcp_resource_template_new("reports://sales/{period}", "sales-report", &t);
  if (st == MCP_OK)
    st = mcp_resource_template_set_title(t, "Sales report");
  if (st == MCP_OK)
    st = mcp_resource_template_set_description(
        t, "Sales figures for a period (e.g. 2025-Q1) as CSV");
  if (st == MCP_OK)
    st = mcp_resource_template_set_mime_type(t, "text/csv");
  if (st == MCP_OK)
    st = mcp_resource_template_set_handler(t, read_report, db, NULL);
  if (st == MCP_OK)
    st = mcp_resource_template_set_completion(t, "period", complete_period,
                                              NULL, NULL);
  if (st != MCP_OK) {
    mcp_resource_template_free(t);
    return mcp_error_set(err, st, "sales report template: %s",
                         mcp_strerror(st));
  }
  st = mcp_server_add_resource_template(server, t);
  return st == MCP_OK ? MCP_OK
                      : mcp_error_set(err, st, "sales report template: %s",
                                      mcp_strerror(st));
}
