/* SPDX-License-Identifier: MIT */
/* demo_tools.c - the demo tools, declared with tool_decl.h.
 *
 * Every tool is a pair of C structs and their field tables: the library
 * builds the input and output schemas from the tables, fills the input
 * struct (defaults applied) before the handler runs and turns the output
 * struct into structuredContent after it. They show the SDK's range:
 * no-argument tools, enums and bounds (flight details, as in the seeds),
 * annotations with explicit false values, outputSchema + structuredContent,
 * a resource_link, a tool error (isError) for division by zero, and icons.
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
MCP_TOOL_HANDLER(get_server_time, void, void) {
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  char when[64];
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  mcp_result_add_textf(result, "Current server time (UTC): %s", when);
  return MCP_OK;
}

/* ---- customers ---------------------------------------------------------- */
typedef struct customer_in {
  const char *customer_id;
} customer_in;

static const mcp_field customer_args[] = {
    MCP_STRING(customer_in, customer_id, "Customer ID to look up (C001-C004)"),
    MCP_FIELDS_END};

/* The record; the string members of the output point into it. */
typedef struct customer {
  const char *name, *city;
  double balance;
  char id_buf[32], name_buf[128], city_buf[128], email_buf[128];
  bool has_email;
} customer;

static const mcp_field customer_result[] = {
    MCP_STRING(customer, name, "Full name"),
    MCP_STRING(customer, city, "City, when known", .optional = true),
    MCP_NUMBER(customer, balance, "Account balance", .optional = true),
    MCP_FIELDS_END};

static const char *copy_col(sqlite3_stmt *st, int col, char *dst, size_t cap) {
  const unsigned char *v = sqlite3_column_text(st, col);
  snprintf(dst, cap, "%s", v ? (const char *)v : "");
  return v ? dst : NULL;
}

/* Loads customer id into c. Returns 1 found, 0 not found (result is then
 * the tool error saying so), -1 database error. */
static int load_customer(demo_db *db, const char *id, mcp_result_t *result,
                         customer *c) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(demo_db_handle(db),
                         "SELECT id,name,city,email,balance FROM customers "
                         "WHERE id=?1",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st), found = 0;
  if (rc == SQLITE_ROW) {
    copy_col(st, 0, c->id_buf, sizeof c->id_buf);
    c->name = copy_col(st, 1, c->name_buf, sizeof c->name_buf);
    c->city = copy_col(st, 2, c->city_buf, sizeof c->city_buf);
    c->has_email = copy_col(st, 3, c->email_buf, sizeof c->email_buf);
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

MCP_TOOL_CALL_HANDLER(get_customer_info, customer_in, void) {
  customer c = {0};
  int found = load_customer(user_data, in->customer_id, result, &c);
  if (found <= 0)
    return found < 0 ? MCP_ERR_IO : MCP_OK;
  mcp_result_add_textf(result,
                       "Customer %s: %s, city: %s, email: %s, balance: %.2f",
                       c.id_buf, c.name_buf, c.city ? c.city : "-",
                       c.has_email ? c.email_buf : "-", c.balance);
  return MCP_OK;
}

MCP_TOOL_CALL_HANDLER(lookup_customer, customer_in, customer) {
  int found = load_customer(user_data, in->customer_id, result, out);
  return found < 0 ? MCP_ERR_IO : MCP_OK;
}

typedef struct update_in {
  const char *customer_id, *name, *city, *email;
} update_in;

static const mcp_field update_args[] = {
    MCP_STRING(update_in, customer_id, "Customer to update"),
    MCP_STRING(update_in, name, "New name", .optional = true, .min_length = 1),
    MCP_STRING(update_in, city, "New city", .optional = true),
    MCP_STRING(update_in, email, "New email address", .optional = true,
               .format = "email"),
    MCP_FIELDS_END};

MCP_TOOL_CALL_HANDLER(update_customer, update_in, void) {
  if (!in->name && !in->city && !in->email)
    return mcp_result_set_error(result,
                                "Nothing to update: give name, city or email");
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(demo_db_handle(user_data),
                         "UPDATE customers SET name=COALESCE(?2,name),"
                         " city=COALESCE(?3,city), email=COALESCE(?4,email)"
                         " WHERE id=?1",
                         -1, &st, NULL) != SQLITE_OK)
    return MCP_ERR_IO;
  sqlite3_bind_text(st, 1, in->customer_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, in->name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 3, in->city, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 4, in->email, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st);
  int changed = sqlite3_changes(demo_db_handle(user_data));
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE)
    return MCP_ERR_IO;
  if (changed == 0)
    return mcp_result_set_error(result, "No customer with id '%s'",
                                in->customer_id);
  mcp_result_add_textf(result, "Customer %s updated", in->customer_id);
  return MCP_OK;
}

/* ---- flights ------------------------------------------------------------ */
typedef struct flight_in {
  const char *airline_code;
  int32_t flight_number;
} flight_in;

static const mcp_field flight_args[] = {
    MCP_STRING(flight_in, airline_code, "Airline Code",
               .enum_values = MCP_ENUM("AA", "LH", "BA")),
    MCP_INTEGER(flight_in, flight_number, "Flight Number",
                .minimum = MCP_LIMIT(0), .maximum = MCP_LIMIT(9999)),
    MCP_FIELDS_END};

MCP_TOOL_CALL_HANDLER(get_flight_details, flight_in, void) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(demo_db_handle(user_data),
                         "SELECT carrid,connid,fldate,price,currency,planetype"
                         " FROM flights WHERE carrid=?1 AND connid=?2"
                         " ORDER BY fldate",
                         -1, &st, NULL) != SQLITE_OK)
    return MCP_ERR_IO;
  sqlite3_bind_text(st, 1, in->airline_code, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(st, 2, in->flight_number);
  char *md = NULL;
  size_t mdlen = 0;
  FILE *out_md = open_memstream(&md, &mdlen);
  if (out_md == NULL) {
    sqlite3_finalize(st);
    return MCP_ERR_NOMEM;
  }
  fputs(
      "## Flight Connection Details\n\n"
      "| Airline | Connection | Flight Date | Price | Currency | Plane Type |\n"
      "|---------|------------|-------------|-------|----------|------------|"
      "\n",
      out_md);
  int rows = 0, rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    fprintf(out_md, "| %s | %d | %s | %.2f | %s | %s |\n",
            sqlite3_column_text(st, 0), sqlite3_column_int(st, 1),
            sqlite3_column_text(st, 2), sqlite3_column_double(st, 3),
            sqlite3_column_text(st, 4), sqlite3_column_text(st, 5));
    rows++;
  }
  fclose(out_md);
  sqlite3_finalize(st);
  mcp_status status = MCP_OK;
  if (rc != SQLITE_DONE)
    status = MCP_ERR_IO;
  else if (rows == 0)
    mcp_result_add_textf(result,
                         "No flights found for airline %s and connection %d",
                         in->airline_code, (int)in->flight_number);
  else
    mcp_result_add_text(result, md);
  free(md);
  return status;
}

/* ---- orders ----------------------------------------------------------- */
typedef struct order_in {
  const char *order_id;
} order_in;
typedef struct order_out {
  const char *status, *message;
  char message_buf[160];
} order_out;

static const mcp_field order_args[] = {
    MCP_STRING(order_in, order_id, "Order to process"), MCP_FIELDS_END};
static const mcp_field order_result[] = {
    MCP_STRING(order_out, status, "Result status"),
    MCP_STRING(order_out, message, "Details", .optional = true),
    MCP_FIELDS_END};

MCP_TOOL_CALL_HANDLER(process_order, order_in, order_out) {
  sqlite3 *db = demo_db_handle(user_data);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "UPDATE orders SET status='processed' WHERE id=?1 AND "
                         "status='open'",
                         -1, &st, NULL) != SQLITE_OK)
    return MCP_ERR_IO;
  sqlite3_bind_text(st, 1, in->order_id, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st);
  int changed = sqlite3_changes(db);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE)
    return MCP_ERR_IO;
  out->status = changed ? "processed" : "rejected";
  snprintf(out->message_buf, sizeof out->message_buf,
           changed ? "Order %s processed" : "Order %s is unknown or not open",
           in->order_id);
  out->message = out->message_buf;
  return MCP_OK;
}

/* ---- reports ------------------------------------------------------------ */
typedef struct report_in {
  const char *period;
} report_in;

static const mcp_field report_args[] = {
    MCP_STRING(report_in, period, "Period such as 2026-Q3",
               .pattern = "^[0-9]{4}(-(Q[1-4]|[01][0-9]))?$"),
    MCP_FIELDS_END};

MCP_TOOL_HANDLER(build_report, report_in, void) {
  mcp_result_add_textf(result, "Sales report for %s is ready.", in->period);
  char uri[160];
  snprintf(uri, sizeof uri, "reports://sales/%s", in->period);
  mcp_content_t *link =
      mcp_result_add_resource_link(result, uri, "sales-report");
  mcp_content_set_title(link, "Sales report");
  mcp_content_set_description(link, "Sales figures for the requested period");
  mcp_content_set_mime_type(link, "text/csv");
  mcp_content_set_audience(link, MCP_AUDIENCE_USER | MCP_AUDIENCE_ASSISTANT);
  return MCP_OK;
}

/* ---- arithmetic ------------------------------------------------------- */
typedef struct add_in {
  int64_t a, b;
} add_in;
typedef struct add_out {
  int64_t sum;
} add_out;

static const mcp_field add_args[] = {MCP_INTEGER(add_in, a, "First addend"),
                                     MCP_INTEGER(add_in, b, "Second addend"),
                                     MCP_FIELDS_END};
static const mcp_field add_result[] = {MCP_INTEGER(add_out, sum, "a + b"),
                                       MCP_FIELDS_END};

MCP_TOOL_HANDLER(add, add_in, add_out) {
  if (__builtin_add_overflow(in->a, in->b, &out->sum))
    return mcp_result_set_error(
        result, "Integer overflow adding %" PRId64 " and %" PRId64, in->a,
        in->b);
  return MCP_OK;
}

typedef struct divide_in {
  double a, b;
} divide_in;
typedef struct divide_out {
  double quotient;
} divide_out;

static const mcp_field divide_args[] = {MCP_NUMBER(divide_in, a, "Dividend"),
                                        MCP_NUMBER(divide_in, b, "Divisor"),
                                        MCP_FIELDS_END};
static const mcp_field divide_result[] = {
    MCP_NUMBER(divide_out, quotient, "a / b"), MCP_FIELDS_END};

MCP_TOOL_HANDLER(divide, divide_in, divide_out) {
  if (in->b == 0)
    return mcp_result_set_error(result, "Division by zero: b must not be 0");
  out->quotient = in->a / in->b;
  return MCP_OK;
}

/* ---- registration -------------------------------------------------------- */
mcp_status demo_register_tools(mcp_server_t *server, demo_db *db,
                               mcp_error_t *err) {
  const mcp_tool_decl tools[] = {
      {.name = "get_server_time",
       .title = "Server Time",
       .description = "Get the current server date and time",
       .strict = true,
       .fn = get_server_time,
       .icon = ICON_CLOCK},
      {.name = "get_customer_info",
       .title = "Customer Information Lookup",
       .description = "Retrieve customer information by ID",
       .input = customer_args,
       .call_fn = get_customer_info,
       .read_only = MCP_HINT_YES},
      {.name = "get_flight_details",
       .title = "Flight Details",
       .description = "Look up the scheduled flights of a connection",
       .input = flight_args,
       .call_fn = get_flight_details,
       .read_only = MCP_HINT_YES,
       .icon = ICON_PLANE},
      {.name = "update_customer",
       .title = "Customer Update",
       .description = "Update customer information",
       .input = update_args,
       .strict = true,
       .call_fn = update_customer,
       .destructive = MCP_HINT_YES},
      {.name = "process_order",
       .title = "Process Order",
       .description = "Process a sales order",
       .input = order_args,
       .output = order_result,
       .output_size = sizeof(order_out),
       .call_fn = process_order},
      {.name = "lookup_customer",
       .title = "Customer Record",
       .description = "Return a customer's record as structured data",
       .input = customer_args,
       .output = customer_result,
       .output_size = sizeof(customer),
       .call_fn = lookup_customer,
       .read_only = MCP_HINT_YES},
      {.name = "build_report",
       .title = "Build Report",
       .description = "Build a sales report for a period and link to it",
       .input = report_args,
       .fn = build_report},
      /* pure functions: explicitly not destructive, not open-world */
      {.name = "add",
       .title = "Add",
       .description = "Add two integers",
       .input = add_args,
       .output = add_result,
       .fn = add,
       .read_only = MCP_HINT_YES,
       .destructive = MCP_HINT_NO,
       .idempotent = MCP_HINT_YES,
       .open_world = MCP_HINT_NO,
       .icon = ICON_CALC},
      {.name = "divide",
       .title = "Divide",
       .description = "Divide a by b; b must not be zero",
       .input = divide_args,
       .output = divide_result,
       .fn = divide,
       .read_only = MCP_HINT_YES,
       .destructive = MCP_HINT_NO,
       .idempotent = MCP_HINT_YES,
       .open_world = MCP_HINT_NO,
       .icon = ICON_CALC},
  };
  for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
    mcp_tool_decl decl = tools[i];
    decl.user_data = db;
    mcp_status st = mcp_server_add_tool_decl(server, &decl, err);
    if (st != MCP_OK)
      return st;
  }
  return MCP_OK;
}
