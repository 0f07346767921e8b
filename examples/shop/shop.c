/* SPDX-License-Identifier: MIT */
/* shop.c - a typed tool, a resource and a prompt in C (tool_decl.h,
 * decl.h): at most 30 code lines, counted by scripts/count-code-lines
 * (CTest: shop_lines). Serves stdio by default, HTTP with --http HOST:PORT
 * (mcp_server_run). The C++ version is examples/cpp/shop.cpp. */
#include <mcp/mcp.h>

typedef struct { const char *item; int64_t quantity; bool express; } quote_in;
typedef struct { double total; const char *currency; } quote_out;
MCP_TOOL_HANDLER(quote, quote_in, quote_out) {
  out->total = (double)in->quantity * (in->item[0] == 'm' ? 8.5 : 19.0) + (in->express ? 5 : 0);
  out->currency = "EUR"; /* in->item is "mug" or "shirt": the schema said so */
  return MCP_OK;
}
static const mcp_field quote_args[] = {
    MCP_STRING(quote_in, item, "Article", .enum_values = MCP_ENUM("mug", "shirt")),
    MCP_INTEGER(quote_in, quantity, "How many", .minimum = MCP_LIMIT(1), .maximum = MCP_LIMIT(100)),
    MCP_BOOLEAN(quote_in, express, "Express delivery (+5)", .default_value = MCP_DEFAULT(false)), MCP_FIELDS_END};
static const mcp_field quote_result[] = {MCP_NUMBER(quote_out, total, "Price"),
                                        MCP_STRING(quote_out, currency, "ISO 4217 code"), MCP_FIELDS_END};
static mcp_status order_help(mcp_text_request_t *req) {
  return mcp_text_printf(req, "Help me order %s from the shop.", mcp_text_arg(req, "item"));
}

int main(int argc, char **argv) {
  mcp_server_t *shop = NULL;
  int rc = mcp_server_new("shop", "1.0.0", &shop) ||
      mcp_server_add_tool_decl(shop, &(mcp_tool_decl){.name = "quote", .description = "Prices an order",
                                                      .input = quote_args, .output = quote_result, .fn = quote}, NULL) ||
      mcp_server_add_resource_decl(shop, &(mcp_resource_decl){.uri = "shop://terms", .name = "terms",
                                   .text = "Delivery in 3 working days; returns within 30 days."}, NULL) ||
      mcp_server_add_prompt_decl(shop, &(mcp_prompt_decl){.name = "order_help", .description = "Helps to choose an order",
          .fn = order_help, .arguments = (mcp_prompt_arg_decl[]){{"item", "What to order", .required = true}, {0}}}, NULL)
      ? 1 : mcp_server_run(shop, argc, argv); /* a refusal is logged on stderr, naming the culprit */
  mcp_server_free(shop);
  return rc;
}
