/* SPDX-License-Identifier: MIT */
/* demo_tools.c - the demo tools, one handler each.
 *
 * They show the SDK's range: no-argument tools, a schema built with the
 * schema builder (flight details, as in the seeds), annotations with explicit
 * false values, outputSchema + structuredContent, a resource_link, a tool
 * error (isError) for division by zero, and icons.
 */
#include "demo_tools.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ICON_CLOCK                                                             \
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' "              \
  "viewBox='0 0 16 16'%3E%3Ccircle cx='8' cy='8' r='7' fill='none' "           \
  "stroke='black'/%3E%3Cpath d='M8 3v5h4' stroke='black' "                     \
  "fill='none'/%3E%3C/svg%3E"
#define ICON_PLANE                                                             \
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' "              \
  "viewBox='0 0 16 16'%3E%3Cpath d='M1 9l14-6-4 12-3-4z' "                     \
  "fill='black'/%3E%3C/svg%3E"
#define ICON_CALC                                                              \
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' "              \
  "viewBox='0 0 16 16'%3E%3Crect x='2' y='1' width='12' height='14' "          \
  "fill='none' stroke='black'/%3E%3Cpath d='M5 5h6M5 9h2M9 9h2M5 12h2M9 "      \
  "12h2' stroke='black'/%3E%3C/svg%3E"

/* ---- get_server_time ---------------------------------------------------- */
static mcp_status get_server_time(mcp_call_t *call, json_t *args,
                                  mcp_result_t *result, void *ud) {
  (void)call, (void)args, (void)ud;
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  char when[64];
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  mcp_result_add_textf(result, "Current server time (UTC): %s", when);
  return MCP_OK;
}

/* ---- customers ---------------------------------------------------------- */
typedef struct customer {
  char id[32], name[128], city[128], email[128];
  double balance;
  bool has_city, has_email;
} customer;

static void copy_col(sqlite3_stmt *st, int col, char *dst, size_t cap,
                     bool *present) {
  const unsigned char *v = sqlite3_column_text(st, col);
  if (present)
    *present = v != NULL;
  snprintf(dst, cap, "%s", v ? (const char *)v : "");
}

/* Loads the customer named by the customer_id argument. Returns 1 found,
 * 0 not found (result is then the tool error saying so), -1 database
 * error. */
static int load_customer(demo_db *db, json_t *args, mcp_result_t *result,
                         customer *c) {
  const char *id = mcp_arg_string_or(args, "customer_id", "");
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(demo_db_handle(db),
                         "SELECT id,name,city,email,balance FROM customers "
                         "WHERE id=?1",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st), found = 0;
  if (rc == SQLITE_ROW) {
    memset(c, 0, sizeof *c);
    copy_col(st, 0, c->id, sizeof c->id, NULL);
    copy_col(st, 1, c->name, sizeof c->name, NULL);
    copy_col(st, 2, c->city, sizeof c->city, &c->has_city);
    copy_col(st, 3, c->email, sizeof c->email, &c->has_email);
    c->balance = sqlite3_column_double(st, 4);
    found = 1;
  } else if (rc != SQLITE_DONE) {
    found = -1;
  } else {
    mcp_result_set_error(result, "No customer with id '%s'", id);
  }
  sqlite3_finalize(st);
  return found;
}

static mcp_status get_customer_info(mcp_call_t *call, json_t *args,
                                    mcp_result_t *result, void *ud) {
  (void)call;
  customer c;
  int found = load_customer(ud, args, result, &c);
  if (found <= 0)
    return found < 0 ? MCP_ERR_IO : MCP_OK;
  mcp_result_add_textf(result,
                       "Customer %s: %s, city: %s, email: %s, balance: %.2f",
                       c.id, c.name, c.has_city ? c.city : "-",
                       c.has_email ? c.email : "-", c.balance);
  return MCP_OK;
}

static mcp_status lookup_customer(mcp_call_t *call, json_t *args,
                                  mcp_result_t *result, void *ud) {
  (void)call;
  customer c;
  int found = load_customer(ud, args, result, &c);
  if (found <= 0)
    return found < 0 ? MCP_ERR_IO : MCP_OK;
  json_t *obj = json_pack("{s:s,s:f}", "name", c.name, "balance", c.balance);
  if (obj && c.has_city)
    json_object_set_new(obj, "city", json_string(c.city));
  return mcp_result_set_structured(result, obj);
}

static mcp_status update_customer(mcp_call_t *call, json_t *args,
                                  mcp_result_t *result, void *ud) {
  (void)call;
  const char *id = mcp_arg_string_or(args, "customer_id", "");
  const char *name = mcp_arg_string_or(args, "name", NULL);
  const char *city = mcp_arg_string_or(args, "city", NULL);
  const char *email = mcp_arg_string_or(args, "email", NULL);
  if (!name && !city && !email) {
    mcp_result_set_error(result, "Nothing to update: give name, city or email");
    return MCP_OK;
  }
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(demo_db_handle(ud),
                         "UPDATE customers SET name=COALESCE(?2,name),"
                         " city=COALESCE(?3,city), email=COALESCE(?4,email)"
                         " WHERE id=?1",
                         -1, &st, NULL) != SQLITE_OK)
    return MCP_ERR_IO;
  sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 3, city, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 4, email, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st);
  int changed = sqlite3_changes(demo_db_handle(ud));
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE)
    return MCP_ERR_IO;
  if (changed == 0)
    mcp_result_set_error(result, "No customer with id '%s'", id);
  else
    mcp_result_add_textf(result, "Customer %s updated", id);
  return MCP_OK;
}

/* ---- flights ------------------------------------------------------------ */
static mcp_status get_flight_details(mcp_call_t *call, json_t *args,
                                     mcp_result_t *result, void *ud) {
  (void)call;
  const char *airline = mcp_arg_string_or(args, "airline_code", "");
  int64_t number = 0;
  mcp_arg_integer(args, "flight_number", &number);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(demo_db_handle(ud),
                         "SELECT carrid,connid,fldate,price,currency,planetype"
                         " FROM flights WHERE carrid=?1 AND connid=?2"
                         " ORDER BY fldate",
                         -1, &st, NULL) != SQLITE_OK)
    return MCP_ERR_IO;
  sqlite3_bind_text(st, 1, airline, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 2, number);
  char *md = NULL;
  size_t mdlen = 0;
  FILE *out = open_memstream(&md, &mdlen);
  if (out == NULL) {
    sqlite3_finalize(st);
    return MCP_ERR_NOMEM;
  }
  fputs(
      "## Flight Connection Details\n\n"
      "| Airline | Connection | Flight Date | Price | Currency | Plane Type |\n"
      "|---------|------------|-------------|-------|----------|------------|"
      "\n",
      out);
  int rows = 0, rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    fprintf(out, "| %s | %d | %s | %.2f | %s | %s |\n",
            sqlite3_column_text(st, 0), sqlite3_column_int(st, 1),
            sqlite3_column_text(st, 2), sqlite3_column_double(st, 3),
            sqlite3_column_text(st, 4), sqlite3_column_text(st, 5));
    rows++;
  }
  fclose(out);
  sqlite3_finalize(st);
  mcp_status status = MCP_OK;
  if (rc != SQLITE_DONE)
    status = MCP_ERR_IO;
  else if (rows == 0)
    mcp_result_add_textf(result,
                         "No flights found for airline %s and connection "
                         "%" PRId64,
                         airline, number);
  else
    mcp_result_add_text(result, md);
  free(md);
  return status;
}

/* ---- orders ----------------------------------------------------------- */
static mcp_status process_order(mcp_call_t *call, json_t *args,
                                mcp_result_t *result, void *ud) {
  (void)call;
  const char *id = mcp_arg_string_or(args, "order_id", "");
  sqlite3 *db = demo_db_handle(ud);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "UPDATE orders SET status='processed' WHERE id=?1 AND "
                         "status='open'",
                         -1, &st, NULL) != SQLITE_OK)
    return MCP_ERR_IO;
  sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st);
  int changed = sqlite3_changes(db);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE)
    return MCP_ERR_IO;
  char message[160];
  const char *status = changed ? "processed" : "rejected";
  snprintf(message, sizeof message,
           changed ? "Order %s processed" : "Order %s is unknown or not open",
           id);
  return mcp_result_set_structured(
      result, json_pack("{s:s,s:s}", "status", status, "message", message));
}

/* ---- reports ------------------------------------------------------------ */
static mcp_status build_report(mcp_call_t *call, json_t *args,
                               mcp_result_t *result, void *ud) {
  (void)call, (void)ud;
  const char *period = mcp_arg_string_or(args, "period", "");
  mcp_result_add_textf(result, "Sales report for %s is ready.", period);
  char uri[160];
  snprintf(uri, sizeof uri, "reports://sales/%s", period);
  mcp_content_t *link =
      mcp_result_add_resource_link(result, uri, "sales-report");
  mcp_content_set_title(link, "Sales report");
  mcp_content_set_description(link, "Sales figures for the requested period");
  mcp_content_set_mime_type(link, "text/csv");
  mcp_content_set_audience(link, MCP_AUDIENCE_USER | MCP_AUDIENCE_ASSISTANT);
  return MCP_OK;
}

/* ---- arithmetic ------------------------------------------------------- */
static mcp_status add(mcp_call_t *call, json_t *args, mcp_result_t *result,
                      void *ud) {
  (void)call, (void)ud;
  int64_t a = 0, b = 0, sum;
  mcp_arg_integer(args, "a", &a);
  mcp_arg_integer(args, "b", &b);
  if (__builtin_add_overflow(a, b, &sum)) {
    mcp_result_set_error(
        result, "Integer overflow adding %" PRId64 " and %" PRId64, a, b);
    return MCP_OK;
  }
  return mcp_result_set_structured(result,
                                   json_pack("{s:I}", "sum", (json_int_t)sum));
}

static mcp_status divide(mcp_call_t *call, json_t *args, mcp_result_t *result,
                         void *ud) {
  (void)call, (void)ud;
  double a = 0, b = 0;
  mcp_arg_number(args, "a", &a);
  mcp_arg_number(args, "b", &b);
  if (b == 0) {
    mcp_result_set_error(result, "Division by zero: b must not be 0");
    return MCP_OK;
  }
  return mcp_result_set_structured(result,
                                   json_pack("{s:f}", "quotient", a / b));
}

/* ---- registration -------------------------------------------------------- */
static json_t *flight_schema(void) {
  mcp_schema_builder_t *b = NULL;
  json_t *schema = NULL;
  if (mcp_schema_builder_new(&b) != MCP_OK)
    return NULL;
  static const char *const airlines[] = {"AA", "LH", "BA"};
  mcp_schema_prop_t *code =
      mcp_schema_builder_add_string(b, "airline_code", "Airline Code", true);
  mcp_schema_prop_set_enum(code, airlines, 3);
  mcp_schema_prop_t *num =
      mcp_schema_builder_add_integer(b, "flight_number", "Flight Number", true);
  mcp_schema_prop_set_minimum(num, 0);
  mcp_schema_prop_set_maximum(num, 9999);
  mcp_schema_builder_build(b, &schema);
  mcp_schema_builder_free(b);
  return schema;
}

typedef struct tool_spec {
  const char *name, *title, *description, *input, *output;
  mcp_tool_fn fn;
  const char *icon;
} tool_spec;

static const tool_spec specs[] = {
    {"get_server_time", "Server Time", "Get the current server date and time",
     "{\"type\":\"object\",\"additionalProperties\":false}", NULL,
     get_server_time, ICON_CLOCK},
    {"get_customer_info", "Customer Information Lookup",
     "Retrieve customer information by ID",
     "{\"type\":\"object\",\"properties\":{\"customer_id\":{\"type\":"
     "\"string\","
     "\"description\":\"Customer ID to look up\"}},\"required\":[\"customer_"
     "id\"]}",
     NULL, get_customer_info, NULL},
    {"get_flight_details", "Flight Details",
     "Look up the scheduled flights of a connection", NULL, NULL,
     get_flight_details, ICON_PLANE},
    {"update_customer", "Customer Update", "Update customer information",
     "{\"type\":\"object\",\"properties\":{\"customer_id\":{\"type\":"
     "\"string\"}"
     ",\"name\":{\"type\":\"string\",\"minLength\":1},\"city\":{\"type\":"
     "\"string\"},\"email\":{\"type\":\"string\",\"format\":\"email\"}},"
     "\"required\":[\"customer_id\"],\"additionalProperties\":false}",
     NULL, update_customer, NULL},
    {"process_order", "Process Order", "Process a sales order",
     "{\"type\":\"object\",\"properties\":{\"order_id\":{\"type\":\"string\","
     "\"description\":\"Order to process\"}},\"required\":[\"order_id\"]}",
     "{\"type\":\"object\",\"properties\":{\"status\":{\"type\":\"string\","
     "\"description\":\"Result status\"},\"message\":{\"type\":\"string\","
     "\"description\":\"Details\"}},\"required\":[\"status\"]}",
     process_order, NULL},
    {"lookup_customer", "Customer Record",
     "Return a customer's record as structured data",
     "{\"type\":\"object\",\"properties\":{\"customer_id\":{\"type\":\"string\""
     "}},\"required\":[\"customer_id\"]}",
     "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
     "\"city\":{\"type\":\"string\"},\"balance\":{\"type\":\"number\"}},"
     "\"required\":[\"name\"]}",
     lookup_customer, NULL},
    {"build_report", "Build Report",
     "Build a sales report for a period and link to it",
     "{\"type\":\"object\",\"properties\":{\"period\":{\"type\":\"string\","
     "\"description\":\"Period such as 2026-Q3\",\"pattern\":\"^[0-9]{4}(-"
     "(Q[1-4]|[01][0-9]))?$\"}},\"required\":[\"period\"]}",
     NULL, build_report, NULL},
    {"add", "Add", "Add two integers",
     "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":"
     "{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}",
     "{\"type\":\"object\",\"properties\":{\"sum\":{\"type\":\"integer\"}},"
     "\"required\":[\"sum\"]}",
     add, ICON_CALC},
    {"divide", "Divide", "Divide a by b; b must not be zero",
     "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},\"b\":"
     "{\"type\":\"number\"}},\"required\":[\"a\",\"b\"]}",
     "{\"type\":\"object\",\"properties\":{\"quotient\":{\"type\":\"number\"}},"
     "\"required\":[\"quotient\"]}",
     divide, ICON_CALC},
};

mcp_status demo_register_tools(mcp_server_t *server, demo_db *db,
                               mcp_error_t *err) {
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
    const tool_spec *sp = &specs[i];
    mcp_tool_t *t = NULL;
    mcp_status st = mcp_tool_new(sp->name, &t);
    if (st == MCP_OK)
      st = mcp_tool_set_title(t, sp->title);
    if (st == MCP_OK)
      st = mcp_tool_set_description(t, sp->description);
    if (st == MCP_OK)
      st = sp->input ? mcp_tool_set_input_schema_text(t, sp->input)
                     : mcp_tool_set_input_schema(t, flight_schema());
    if (st == MCP_OK && sp->output)
      st = mcp_tool_set_output_schema_text(t, sp->output);
    if (st == MCP_OK && sp->icon)
      st = mcp_tool_add_icon(t, sp->icon, "image/svg+xml", "any", NULL);
    if (st == MCP_OK)
      st = mcp_tool_set_handler(t, sp->fn, db, NULL);
    /* annotations, per tool */
    if (st == MCP_OK && (strcmp(sp->name, "get_customer_info") == 0 ||
                         strcmp(sp->name, "lookup_customer") == 0 ||
                         strcmp(sp->name, "get_flight_details") == 0))
      st = mcp_tool_set_hint(t, MCP_HINT_READ_ONLY, true);
    if (st == MCP_OK && strcmp(sp->name, "update_customer") == 0) {
      mcp_tool_set_annotation_title(t, "Customer Update");
      st = mcp_tool_set_hint(t, MCP_HINT_DESTRUCTIVE, true);
    }
    if (st == MCP_OK &&
        (strcmp(sp->name, "add") == 0 || strcmp(sp->name, "divide") == 0)) {
      /* pure functions: explicitly not destructive, not open-world */
      mcp_tool_set_hint(t, MCP_HINT_READ_ONLY, true);
      mcp_tool_set_hint(t, MCP_HINT_DESTRUCTIVE, false);
      mcp_tool_set_hint(t, MCP_HINT_IDEMPOTENT, true);
      st = mcp_tool_set_hint(t, MCP_HINT_OPEN_WORLD, false);
    }
    if (st != MCP_OK) {
      mcp_tool_free(t);
      return mcp_error_set(err, st, "cannot define tool %s: %s", sp->name,
                           mcp_strerror(st));
    }
    st = mcp_server_add_tool(server, t, err);
    if (st != MCP_OK)
      return st;
  }
  return MCP_OK;
}
