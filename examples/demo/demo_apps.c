/* SPDX-License-Identifier: MIT */
/* demo_apps.c - ui://demo/orders: the order book in an MCP Apps view.
 *
 * show_orders returns the orders twice: as text (what a client without MCP
 * Apps shows, and what the model reads) and as structuredContent, which
 * the host hands to the view in ui/notifications/tool-result. The view's
 * button calls export_orders through the host (tools/call over
 * postMessage), so the export runs here like any other call.
 */
#include "demo_apps.h"

#include <stdio.h>

#define ORDERS_VIEW "ui://demo/orders"

static mcp_status show_orders(mcp_call_t *call, json_t *args, mcp_result_t *r,
                              void *ud) {
  (void)call, (void)args;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(demo_db_handle(ud),
                         "SELECT o.id, o.customer_id, c.name, o.status, "
                         "o.amount FROM orders o LEFT JOIN customers c ON "
                         "c.id = o.customer_id ORDER BY o.id",
                         -1, &st, NULL) != SQLITE_OK)
    return MCP_ERR_IO;
  json_t *orders = json_array();
  char text[2048];
  size_t n = (size_t)snprintf(text, sizeof text, "Order book:");
  while (orders && sqlite3_step(st) == SQLITE_ROW) {
    const char *id = (const char *)sqlite3_column_text(st, 0);
    const char *customer = (const char *)sqlite3_column_text(st, 1);
    const char *name = (const char *)sqlite3_column_text(st, 2);
    const char *status = (const char *)sqlite3_column_text(st, 3);
    double amount = sqlite3_column_double(st, 4);
    json_array_append_new(
        orders, json_pack("{s:s,s:s,s:s,s:s,s:f}", "id", id, "customer_id",
                          customer, "customer", name ? name : "", "status",
                          status, "amount", amount));
    if (n < sizeof text)
      n += (size_t)snprintf(text + n, sizeof text - n, "\n%s %s (%s) %s %.2f",
                            id, customer, name ? name : "?", status, amount);
  }
  sqlite3_finalize(st);
  if (orders == NULL)
    return MCP_ERR_NOMEM;
  mcp_result_add_text(r, text); /* the text fallback */
  return mcp_result_set_structured(r, json_pack("{s:o}", "orders", orders));
}

mcp_status demo_register_apps(mcp_server_t *server, demo_db *db,
                              const char *apps_dir, mcp_error_t *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/orders.html", apps_dir);
  mcp_resource_t *view = NULL;
  mcp_status st = mcp_ui_resource_new(ORDERS_VIEW, "order_book", &view, err);
  if (st != MCP_OK)
    return st;
  mcp_resource_set_title(view, "Order book");
  mcp_resource_set_description(
      view, "The open and shipped orders as a table, with a button that "
            "exports them (export_orders)");
  mcp_ui_resource_set_prefers_border(view, true);
  st = mcp_ui_resource_set_html_file(view, path, err);
  if (st != MCP_OK) {
    mcp_resource_free(view);
    return st;
  }
  if ((st = mcp_server_add_ui_resource(server, view, err)) != MCP_OK)
    return st;

  mcp_tool_t *t = NULL;
  if ((st = mcp_tool_new("show_orders", &t)) != MCP_OK)
    return mcp_error_set(err, st, "show_orders");
  mcp_tool_set_title(t, "Show the order book");
  mcp_tool_set_description(
      t, "Lists every order with its customer, status and amount; hosts "
         "with MCP Apps show it as an interactive table (ui://demo/orders).");
  mcp_tool_set_hint(t, MCP_HINT_READ_ONLY, true);
  mcp_tool_set_output_schema_text(
      t, "{\"type\":\"object\",\"properties\":{\"orders\":{\"type\":\"array\","
         "\"items\":{\"type\":\"object\",\"properties\":{"
         "\"id\":{\"type\":\"string\"},\"customer_id\":{\"type\":\"string\"},"
         "\"customer\":{\"type\":\"string\"},\"status\":{\"type\":\"string\"},"
         "\"amount\":{\"type\":\"number\"}}}}},\"required\":[\"orders\"]}");
  mcp_tool_set_ui(t, ORDERS_VIEW, MCP_APP_VISIBLE_MODEL | MCP_APP_VISIBLE_APP);
  mcp_tool_set_handler(t, show_orders, db, NULL);
  return mcp_server_add_tool(server, t, err);
}
