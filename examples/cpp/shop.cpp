// SPDX-License-Identifier: MIT
// shop.cpp - a typed tool, a resource and a prompt in C++ (mcp/mcp.hpp):
// at most 20 code lines, counted by scripts/count-code-lines (CTest:
// cpp_shop_lines). Serves stdio by default, HTTP with --http HOST:PORT.
#include <mcp/mcp.hpp>

enum class item { mug, shirt };
mcp::names<item> describe(item *) { return {{item::mug, "mug"}, {item::shirt, "shirt"}}; }
struct quote_in { item article; int quantity; bool express; };
mcp::fields<quote_in> describe(quote_in *) {
  return {{"item", &quote_in::article, "Article"}, {"quantity", &quote_in::quantity, "How many", mcp::range(1, 100)},
          {"express", &quote_in::express, "Express delivery (+5)", mcp::default_value(false)}};
}
struct quote_out { double total; std::string currency; };
mcp::fields<quote_out> describe(quote_out *) { return {{"total", &quote_out::total, "Price"}, {"currency", &quote_out::currency, "ISO 4217 code"}}; }

int main(int argc, char **argv) {
  mcp::server shop("shop", "1.0.0");
  shop.tool("quote", "Prices an order", [](const quote_in &in) {
    return quote_out{in.quantity * (in.article == item::mug ? 8.5 : 19.0) + (in.express ? 5 : 0), "EUR"};
  });
  shop.resource("shop://terms", "terms", "Delivery in 3 working days; returns within 30 days.");
  shop.prompt("order_help", "Helps to choose an order", {mcp::arg("item", "What to order")},
              [](const mcp::args &a) { return "Help me order " + a["item"] + " from the shop."; });
  return mcp::run(shop, argc, argv);
}
