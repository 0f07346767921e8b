/* SPDX-License-Identifier: MIT */
/* demo_skills.c - the demo's skill, written for its own tools: an agent
 * that loads it learns the order in which to call them to find a flight and
 * book an order. Built in memory; a directory on disk would be published
 * the same way with mcp_skill_load_dir. */
#include "demo_skills.h"

#include <string.h>

static const char skill_md[] =
    "---\n"
    "name: flight-booking\n"
    "description: Find a flight and book an order for a customer with the "
    "demo server's tools\n"
    "license: MIT\n"
    "metadata:\n"
    "  server: libmcp-demo\n"
    "---\n"
    "# Find a flight and book an order\n"
    "\n"
    "1. Identify the customer with `lookup_customer` (ids C001 to C004). It\n"
    "   returns the name, city and balance as structured content.\n"
    "2. Find the flight with `get_flight_details`: `airline_code` is AA, LH\n"
    "   or BA, `flight_number` the connection (e.g. LH 400). Every scheduled\n"
    "   date is listed with its price; pick one with the customer.\n"
    "3. Book with `process_order` and the customer's open order id (e.g.\n"
    "   O1001). Its structured result has a `status`: `rejected` means the\n"
    "   order is unknown or not open; tell the customer the `message`.\n"
    "\n"
    "Never book before the customer confirmed the date and the price. See\n"
    "[the examples](references/EXAMPLES.md) for whole conversations.\n";

static const char examples_md[] =
    "# Examples\n"
    "\n"
    "## A one-way booking\n"
    "\n"
    "- `lookup_customer {\"customer_id\":\"C001\"}` -> Ada Lovelace, London\n"
    "- `get_flight_details {\"airline_code\":\"LH\",\"flight_number\":400}`\n"
    "  -> the scheduled dates with prices; Ada picks one\n"
    "- `process_order {\"order_id\":\"O1001\"}` -> status processed\n"
    "\n"
    "## An order that cannot be booked\n"
    "\n"
    "- `process_order {\"order_id\":\"O1003\"}` -> status rejected (it\n"
    "  is already shipped): nothing to book; tell the customer.\n";

mcp_status demo_register_skills(mcp_server_t *server, mcp_error_t *err) {
  mcp_skill_t *skill = NULL;
  mcp_status st = mcp_skill_new(skill_md, strlen(skill_md), NULL, &skill, err);
  if (st == MCP_OK)
    st = mcp_skill_add_file(skill, "references/EXAMPLES.md", examples_md,
                            strlen(examples_md), NULL, err);
  if (st != MCP_OK) {
    mcp_skill_free(skill);
    return st;
  }
  st = mcp_server_add_skill(server, skill, err); /* takes the skill */
  if (st == MCP_OK)
    st = mcp_server_set_skills_directory_read(server, true);
  return st;
}
