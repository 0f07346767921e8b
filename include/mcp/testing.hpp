// SPDX-License-Identifier: MIT
// testing.hpp - mcp::testing::client, the C++ face of testing.h: an
// in-process client for unit tests (GoogleTest, Catch2, ...) of a server's
// tools, resources and prompts, in either protocol era, with the same
// dispatch, validation and errors as a real transport.
//
//   mcp::testing::client c(shop, "2026-07-28");
//   mcp::json r = c.call_tool("quote", mcp::json::parse(R"({"item":"mug","quantity":2})"));
//   EXPECT_EQ(r["result"]["structuredContent"]["total"].number(), 17.0);
//
// Answers to the server's questions come from on_question (elicitation in
// 2025-11-25, input_required rounds in 2026-07-28); await_task drives a
// task to its end. Responses are the JSON-RPC messages ("result" or
// "error"). Errors of the client itself throw mcp::error.
#ifndef MCP_TESTING_HPP
#define MCP_TESTING_HPP

#include <functional>
#include <memory>
#include <string>

#include "mcp/mcp.hpp"
#include "mcp/testing.h"

namespace mcp {
namespace testing {

class client {
public:
  // Answers a question: method ("elicitation/create", ...) and params;
  // returns the result object, or an empty json for no answer. An exception
  // thrown here counts as no answer.
  using answer_fn = std::function<json(const std::string &method, const json &params)>;

  // protocol_version: "2025-11-25", "2026-07-28", ... (empty: the newest);
  // capabilities: the client's (empty: {}).
  explicit client(server &s, const std::string &protocol_version = "2026-07-28",
                  const json &capabilities = json())
      : answer_(new answer_fn()) {
    mcp_test_client_t *c = nullptr;
    mcp_error_t err{};
    detail::check(mcp_test_client_new(s.native(), detail::c_str_or_null(protocol_version),
                                      capabilities.get(), &c, &err),
                  "test client", err);
    c_.reset(c);
  }

  // The answers to the server's questions.
  client &on_question(answer_fn fn) {
    *answer_ = std::move(fn);
    mcp_test_client_set_answer(c_.get(), *answer_ ? &trampoline : nullptr, answer_.get());
    return *this;
  }

  json request(const std::string &method, const json &params = json()) {
    return response(mcp_test_client_request(c_.get(), method.c_str(), params.get()), method);
  }
  json list_tools() { return response(mcp_test_client_list_tools(c_.get()), "tools/list"); }
  json call_tool(const std::string &name, const json &arguments = json()) {
    return response(mcp_test_client_call_tool(c_.get(), name.c_str(), arguments.get()),
                    "tools/call " + name);
  }
  json read_resource(const std::string &uri) {
    return response(mcp_test_client_read_resource(c_.get(), uri.c_str()),
                    "resources/read " + uri);
  }
  json get_prompt(const std::string &name, const json &arguments = json()) {
    return response(mcp_test_client_get_prompt(c_.get(), name.c_str(), arguments.get()),
                    "prompts/get " + name);
  }
  // 2025-11-25: the tasks/result response; 2026-07-28: the last tasks/get
  // response (status, result or error). timeout_ms 0: 30 s.
  json await_task(const std::string &task_id, int timeout_ms = 0) {
    return response(mcp_test_client_await_task(c_.get(), task_id.c_str(), timeout_ms),
                    "task " + task_id);
  }

  std::size_t questions() const { return mcp_test_client_questions(c_.get()); }
  json notifications() const {
    return json::borrow(const_cast<json_t *>(mcp_test_client_notifications(c_.get())));
  }
  mcp_test_client_t *native() const noexcept { return c_.get(); }

private:
  static json_t *trampoline(const char *method, const json_t *params, void *ud) {
    try {
      json answer = (*static_cast<answer_fn *>(ud))(method,
                                                   json::borrow(const_cast<json_t *>(params)));
      return answer.release();
    } catch (...) { // never through the C frames: no answer
      return nullptr;
    }
  }
  static json response(json_t *r, const std::string &what) {
    if (r == nullptr)
      throw error(MCP_ERR_NOMEM, what + ": no response");
    return json::steal(r);
  }
  struct deleter {
    void operator()(mcp_test_client_t *c) const noexcept { mcp_test_client_free(c); }
  };
  std::unique_ptr<answer_fn> answer_; // a stable address for the C callback
  std::unique_ptr<mcp_test_client_t, deleter> c_;
};

} // namespace testing
} // namespace mcp
#endif
