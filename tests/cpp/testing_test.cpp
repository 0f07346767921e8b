// SPDX-License-Identifier: MIT
// testing_test.cpp - a user's C++ tools tested with mcp::testing::client
// (mcp/testing.hpp) in both eras: a question answered (elicitation in
// 2025-11-25, an input_required round in 2026-07-28), a task to its end
// (with a question answered by tasks/update in 2026-07-28), errors as a
// real client sees them.
#include <gtest/gtest.h>

#include <mcp/testing.hpp>

namespace {

struct booking { int seats; };
mcp::fields<booking> describe(booking *) {
  return {{"seats", &booking::seats, "Seats", mcp::range(1, 9)}};
}
struct confirm { bool ok; };
mcp::fields<confirm> describe(confirm *) { return {{"ok", &confirm::ok, "Book them?"}}; }

// The user's server: "book" asks before booking, "export" is a task.
void build(mcp::server &srv) {
  srv.add(mcp::tool("book", "Books seats", [](const booking &in, mcp::call &c) {
            std::optional<confirm> yes = c.elicit<confirm>("Book these seats?");
            return yes && yes->ok ? "booked " + std::to_string(in.seats) : std::string("not booked");
          }).task(mcp::task_support::optional));
  srv.add(mcp::tool("export", "Exports", [] { return std::string("exported"); })
              .task(mcp::task_support::optional));
  srv.enable_tasks(mcp::store::memory());
}

mcp::json yes(const std::string &method, const mcp::json &params) {
  EXPECT_EQ(method, "elicitation/create");
  EXPECT_EQ(params["message"].string(), "Book these seats?");
  return mcp::json::parse(R"({"action":"accept","content":{"ok":true}})");
}

std::string text_of(const mcp::json &result) { return result["content"][std::size_t{0}]["text"].string(); }

class Eras : public ::testing::TestWithParam<const char *> {};

TEST_P(Eras, QuestionAnsweredAndArgumentsChecked) {
  mcp::server srv("booking", "1.0.0");
  build(srv);
  mcp::testing::client c(srv, GetParam(), mcp::json::parse(R"({"elicitation":{"form":{}}})"));
  c.on_question(yes);
  mcp::json r = c.call_tool("book", mcp::json::parse(R"({"seats":2})"));
  EXPECT_EQ(text_of(r["result"]), "booked 2") << r.dump();
  EXPECT_EQ(c.questions(), 1u);

  r = c.call_tool("book", mcp::json::parse(R"({"seats":10})"));
  EXPECT_TRUE(r["result"]["isError"].boolean()) << r.dump();
  r = c.call_tool("nope");
  EXPECT_EQ(r["error"]["code"].integer(), -32602) << r.dump();
  r = c.list_tools();
  EXPECT_EQ(r["result"]["tools"].size(), 2u) << r.dump();
}

INSTANTIATE_TEST_SUITE_P(TestingClient, Eras, ::testing::Values("2025-11-25", "2026-07-28"));

TEST(TestingClient, LegacyTask) {
  mcp::server srv("booking", "1.0.0");
  build(srv);
  mcp::testing::client c(srv, "2025-11-25", mcp::json::parse(R"({"tasks":{}})"));
  mcp::json r = c.request("tools/call", mcp::json::parse(R"({"name":"export","task":{}})"));
  std::string id = r["result"]["task"]["taskId"].string();
  ASSERT_FALSE(id.empty()) << r.dump();
  r = c.await_task(id);
  EXPECT_EQ(text_of(r["result"]), "exported") << r.dump();
}

TEST(TestingClient, ModernTaskAsksAQuestion) {
  mcp::server srv("booking", "1.0.0");
  build(srv);
  mcp::testing::client c(srv, "2026-07-28", mcp::json::parse(R"({"elicitation":{"form":{}},
      "extensions":{"io.modelcontextprotocol/tasks":{}}})"));
  c.on_question(yes);
  mcp::json r = c.call_tool("book", mcp::json::parse(R"({"seats":3})"));
  ASSERT_EQ(r["result"]["resultType"].string(), "task") << r.dump();
  r = c.await_task(r["result"]["taskId"].string());
  EXPECT_EQ(r["result"]["status"].string(), "completed") << r.dump();
  EXPECT_EQ(text_of(r["result"]["result"]), "booked 3") << r.dump();
  EXPECT_EQ(c.questions(), 1u);
}

TEST(TestingClient, UnknownVersionThrows) {
  mcp::server srv("booking", "1.0.0");
  EXPECT_THROW(mcp::testing::client(srv, "1999-01-01"), mcp::error);
}

} // namespace
