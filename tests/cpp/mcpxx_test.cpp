// SPDX-License-Identifier: MIT
// mcpxx_test.cpp - the C++ layer (include/mcp/mcp.hpp) with GoogleTest:
// schemas and conversions derived from C++ types, exceptions as isError
// results and JSON-RPC errors, handlers with captures, resources, prompts,
// completion, tasks (progress, cancellation) and elicitation in both eras,
// all through the stdio transport (tests/cpp/peer.hpp).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include <mcp/client.h>

#include "peer.hpp"

namespace shop {
enum class size { small, large };
inline mcp::names<size> describe(size *) {
  return {{size::small, "S"}, {size::large, "L"}};
}
struct address {
  std::string city;
  std::optional<std::string> zip;
};
inline mcp::fields<address> describe(address *) {
  return {{"city", &address::city, "City", mcp::min_length(1)},
          {"zip", &address::zip, "Postal code", mcp::pattern("^[0-9]{5}$")}};
}
struct order {
  std::string item;
  std::int32_t quantity;
  std::uint8_t small_count;
  std::int64_t big;
  double price;
  float ratio;
  bool gift;
  std::optional<int> coupon;
  std::vector<std::string> notes;
  size fit;
  address to;
  std::vector<address> more;
  mcp::json extra;
};
inline mcp::fields<order> describe(order *) {
  return {{"item", &order::item, "Article", mcp::one_of({"mug", "shirt"})},
          {"quantity", &order::quantity, "How many", mcp::range(1, 100)},
          {"small_count", &order::small_count, ""},
          {"big", &order::big, "", mcp::default_value(7)},
          {"price", &order::price, "Unit price", mcp::min(0.5)},
          {"ratio", &order::ratio, "", mcp::title("Ratio")},
          {"gift", &order::gift, "Wrapped", mcp::default_value(false)},
          {"coupon", &order::coupon, "Coupon number"},
          {"notes", &order::notes, "", mcp::max_items(3)},
          {"fit", &order::fit, "Size", mcp::default_value(size::large)},
          {"to", &order::to, "Address"},
          {"more", &order::more, ""},
          {"extra", &order::extra, "", mcp::format("anything")}};
}
} // namespace shop

namespace {

bool same_json(const mcp::json &a, const std::string &text) {
  return json_equal(a.get(), mcp::json::parse(text).get());
}
std::string text_of(const mcp::json &response) {
  return response["result"]["content"][std::size_t{0}]["text"].string();
}

// ---- types -> schemas and values -------------------------------------------------

TEST(Schema, EveryMappedType) {
  mcp::json s = mcp::schema_of<shop::order>();
  const std::string expected = R"({"type":"object","properties":{
    "item":{"type":"string","description":"Article","enum":["mug","shirt"]},
    "quantity":{"type":"integer","description":"How many","minimum":1,"maximum":100},
    "small_count":{"type":"integer"},
    "big":{"type":"integer","default":7},
    "price":{"type":"number","description":"Unit price","minimum":0.5},
    "ratio":{"type":"number","title":"Ratio"},
    "gift":{"type":"boolean","description":"Wrapped","default":false},
    "coupon":{"type":"integer","description":"Coupon number"},
    "notes":{"type":"array","items":{"type":"string"},"maxItems":3},
    "fit":{"type":"string","enum":["S","L"],"description":"Size","default":"L"},
    "to":{"type":"object","properties":{
       "city":{"type":"string","description":"City","minLength":1},
       "zip":{"type":"string","description":"Postal code","pattern":"^[0-9]{5}$"}},
       "required":["city"],"description":"Address"},
    "more":{"type":"array","items":{"type":"object","properties":{
       "city":{"type":"string","description":"City","minLength":1},
       "zip":{"type":"string","description":"Postal code","pattern":"^[0-9]{5}$"}},
       "required":["city"]}},
    "extra":{"format":"anything"}},
    "required":["item","quantity","small_count","price","ratio","notes","to","more","extra"]})";
  EXPECT_TRUE(same_json(s, expected)) << s.dump();
  // the library accepts it as a tool's input schema (meta-schema checked)
  mcp::server srv("t", "1");
  EXPECT_NO_THROW(srv.add(mcp::tool("o", "", [](const shop::order &) {})));
}

TEST(Schema, ValuesBothWaysWithDefaults) {
  auto o = mcp::from_json<shop::order>(mcp::json::parse(R"({"item":"mug",
    "quantity":3,"small_count":255,"price":2.5,"ratio":0.5,"notes":["a","b"],
    "to":{"city":"Bern"},"more":[{"city":"Biel","zip":"25000"}],"extra":[1]})"));
  EXPECT_EQ(o.item, "mug");
  EXPECT_EQ(o.quantity, 3);
  EXPECT_EQ(o.small_count, 255);
  EXPECT_EQ(o.big, 7);      // default
  EXPECT_FALSE(o.gift);     // default
  EXPECT_EQ(o.fit, shop::size::large); // default of an enum
  EXPECT_FALSE(o.coupon.has_value());
  EXPECT_EQ(o.notes, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(o.to.city, "Bern");
  EXPECT_FALSE(o.to.zip.has_value());
  ASSERT_EQ(o.more.size(), 1u);
  EXPECT_EQ(*o.more[0].zip, "25000");
  EXPECT_EQ(o.extra.dump(), "[1]");
  o.coupon = 12;
  mcp::json back = mcp::to_json(o);
  EXPECT_TRUE(same_json(back, R"({"item":"mug","quantity":3,"small_count":255,
    "big":7,"price":2.5,"ratio":0.5,"gift":false,"coupon":12,"notes":["a","b"],
    "fit":"L","to":{"city":"Bern"},"more":[{"city":"Biel","zip":"25000"}],
    "extra":[1]})")) << back.dump();
}

TEST(Schema, ConversionErrorsNameTheValue) {
  const std::string base = R"("item":"mug","quantity":3,"price":1,"ratio":1,
    "notes":[],"to":{"city":"x"},"more":[],"extra":null)";
  try {
    mcp::from_json<shop::order>(mcp::json::parse("{" + base + R"(,"small_count":256})"));
    FAIL() << "256 fit a uint8_t";
  } catch (const std::runtime_error &e) {
    EXPECT_STREQ(e.what(), "argument 'small_count': out of the range of its C++ type");
  }
  try {
    mcp::from_json<shop::order>(mcp::json::parse(
        R"({"item":"mug","quantity":3,"small_count":1,"price":1,"ratio":1,
            "notes":[],"to":{"city":"x"},"more":[{"zip":"1"}],"extra":null})"));
    FAIL() << "a missing member was accepted";
  } catch (const std::runtime_error &e) {
    EXPECT_STREQ(e.what(), "argument 'more[0].city': is missing");
  }
  try {
    mcp::from_json<shop::order>(mcp::json::parse("{" + base + R"(,"small_count":1,"fit":"XL"})"));
    FAIL() << "XL was accepted";
  } catch (const std::runtime_error &e) {
    EXPECT_STREQ(e.what(), "argument 'fit': not one of the enum's names");
  }
}

struct twice {
  int a;
};
inline mcp::fields<twice> describe(twice *) {
  return {{"a", &twice::a, ""}, {"a", &twice::a, ""}};
}

TEST(Registration, MistakesNameTheCulprit) {
  mcp::server srv("t", "1");
  try {
    mcp::tool("bad name!", "", [] { return std::string(); });
    FAIL();
  } catch (const mcp::error &e) {
    EXPECT_EQ(e.status(), MCP_ERR_INVALID_ARG);
    EXPECT_NE(std::string(e.what()).find("tool 'bad name!'"), std::string::npos) << e.what();
  }
  srv.tool("dup", "", [] { return std::string("x"); });
  try {
    srv.tool("dup", "", [] { return std::string("y"); });
    FAIL();
  } catch (const mcp::error &e) {
    EXPECT_EQ(e.status(), MCP_ERR_EXISTS);
    EXPECT_NE(std::string(e.what()).find("tool 'dup'"), std::string::npos) << e.what();
  }
  try {
    srv.tool("twice", "", [](const twice &) {});
    FAIL();
  } catch (const mcp::error &e) {
    EXPECT_NE(std::string(e.what()).find("field 'a' is described twice"), std::string::npos);
  }
  try {
    srv.resource("no scheme", "x", "text");
    FAIL();
  } catch (const mcp::error &e) {
    EXPECT_NE(std::string(e.what()).find("resource 'no scheme'"), std::string::npos);
  }
}

// ---- tools ----------------------------------------------------------------------------

struct add_in {
  std::int64_t a, b;
};
inline mcp::fields<add_in> describe(add_in *) {
  return {{"a", &add_in::a, "First"}, {"b", &add_in::b, "Second"}};
}
struct add_out {
  std::int64_t sum;
};
inline mcp::fields<add_out> describe(add_out *) { return {{"sum", &add_out::sum, "a + b"}}; }

TEST(Tools, ExceptionsCapturesAndResults) {
  mcp::server srv("t", "1");
  std::atomic<int> calls{0};
  const std::string prefix = "Hello, ";
  srv.tool("add", "Adds", [&calls](const add_in &in) {
    calls++;
    if (in.a < 0)
      throw std::invalid_argument("a must not be negative");
    return add_out{in.a + in.b};
  });
  srv.tool("greet", "", [prefix](mcp::call &) { return prefix + "world"; });
  srv.tool("rpc", "", []() -> std::string { throw mcp::protocol_error(-32042, "sign in first"); });
  srv.tool("odd", "", []() -> std::string { throw 42; });
  srv.tool("raw", "", [](const mcp::json &args, mcp::call &c) {
    c.result().text("raw").structured(mcp::json::parse("{\"n\":" + std::to_string(args.size()) + "}"));
  });
  peer p(srv);
  p.initialize();

  mcp::json list = p.request("tools/list");
  EXPECT_TRUE(same_json(list["result"]["tools"][std::size_t{0}]["outputSchema"],
                        R"({"type":"object","properties":{"sum":{"type":"integer",
                          "description":"a + b"}},"required":["sum"]})"));

  mcp::json r = p.request("tools/call", R"({"name":"add","arguments":{"a":2,"b":3}})");
  EXPECT_TRUE(same_json(r["result"]["structuredContent"], R"({"sum":5})")) << r.dump();
  r = p.request("tools/call", R"({"name":"add","arguments":{"a":-1,"b":3}})");
  EXPECT_TRUE(json_is_true(r["result"]["isError"].get())) << r.dump();
  EXPECT_EQ(text_of(r), "a must not be negative");
  EXPECT_EQ(calls.load(), 2);
  // the schema refuses before the handler runs
  r = p.request("tools/call", R"({"name":"add","arguments":{"a":"x","b":3}})");
  EXPECT_TRUE(json_is_true(r["result"]["isError"].get()));
  EXPECT_EQ(calls.load(), 2);

  r = p.request("tools/call", R"({"name":"greet"})");
  EXPECT_EQ(text_of(r), "Hello, world");
  r = p.request("tools/call", R"({"name":"rpc"})");
  EXPECT_EQ(r["error"]["code"].integer(), -32042) << r.dump();
  EXPECT_EQ(r["error"]["message"].string(), "sign in first");
  r = p.request("tools/call", R"({"name":"odd"})");
  EXPECT_EQ(text_of(r), "unknown C++ exception");
  r = p.request("tools/call", R"({"name":"raw","arguments":{"x":1,"y":2}})");
  EXPECT_EQ(text_of(r), "raw");
  EXPECT_TRUE(same_json(r["result"]["structuredContent"], R"({"n":2})"));
}

TEST(Tools, ProgressAndLogFromTheCall) {
  mcp::server srv("t", "1");
  srv.tool("work", "", [](mcp::call &c) {
    c.progress(1, 2, "half");
    c.progress(2, 2);
    c.log(MCP_LOG_INFO, "done");
    return std::string("ok");
  });
  peer p(srv);
  p.initialize();
  mcp::json r = p.request("tools/call", R"({"name":"work","_meta":{"progressToken":"p1"}})");
  EXPECT_EQ(text_of(r), "ok");
  int progress = 0, logs = 0;
  for (const mcp::json &m : p.seen) {
    std::string method = m["method"].string();
    if (method == "notifications/progress") {
      EXPECT_EQ(m["params"]["progressToken"].string(), "p1");
      progress++;
    }
    if (method == "notifications/message")
      logs++;
  }
  EXPECT_EQ(progress, 2);
  EXPECT_EQ(logs, 1);
}

// ---- resources, prompts, completion --------------------------------------------------

TEST(ResourcesAndPrompts, StaticTemplateNotFoundPromptCompletion) {
  mcp::server srv("t", "1");
  int reads = 0;
  srv.resource("shop://terms", "terms", "30 days");
  srv.add(mcp::resource("shop://count", "count", [&reads] { return std::to_string(++reads); })
              .mime_type("application/json")
              .description("How often it was read"));
  srv.add(mcp::resource_template("shop://items/{id}", "item",
                                 [](const mcp::args &v) {
                                   if (v["id"] == "0")
                                     throw mcp::resource_not_found("shop://items/0");
                                   return "item " + v["id"];
                                 })
              .complete("id", [](const std::string &partial) {
                return std::vector<std::string>{partial + "1", partial + "2"};
              }));
  srv.prompt("order_help", "Helps", {mcp::arg("item", "What"), mcp::arg("tone").optional()},
             [](const mcp::args &a) {
               return std::vector<mcp::message>{mcp::user("Order " + a["item"]),
                                                mcp::assistant(a.has("tone") ? a["tone"] : "plain")};
             });
  srv.add(mcp::prompt("pick", "", {mcp::arg("color").complete([](const std::string &partial,
                                                                  const mcp::args &context) {
                        return std::vector<std::string>{partial + "-" + context["shade"]};
                      })},
                      [](const mcp::args &a) { return "Pick " + a["color"]; }));
  peer p(srv);
  p.initialize();

  mcp::json r = p.request("resources/read", R"({"uri":"shop://terms"})");
  EXPECT_EQ(r["result"]["contents"][std::size_t{0}]["text"].string(), "30 days");
  EXPECT_EQ(r["result"]["contents"][std::size_t{0}]["mimeType"].string(), "text/plain");
  r = p.request("resources/read", R"({"uri":"shop://count"})");
  r = p.request("resources/read", R"({"uri":"shop://count"})");
  EXPECT_EQ(r["result"]["contents"][std::size_t{0}]["text"].string(), "2");
  EXPECT_EQ(r["result"]["contents"][std::size_t{0}]["mimeType"].string(), "application/json");
  r = p.request("resources/read", R"({"uri":"shop://items/42"})");
  EXPECT_EQ(r["result"]["contents"][std::size_t{0}]["text"].string(), "item 42");
  r = p.request("resources/read", R"({"uri":"shop://items/0"})");
  EXPECT_EQ(r["error"]["code"].integer(), MCP_RPC_RESOURCE_NOT_FOUND) << r.dump();

  r = p.request("prompts/get", R"({"name":"order_help","arguments":{"item":"mug"}})");
  EXPECT_TRUE(same_json(r["result"]["messages"], R"([
    {"role":"user","content":{"type":"text","text":"Order mug"}},
    {"role":"assistant","content":{"type":"text","text":"plain"}}])")) << r.dump();
  r = p.request("prompts/get", R"({"name":"order_help","arguments":{}})");
  EXPECT_EQ(r["error"]["code"].integer(), MCP_RPC_INVALID_PARAMS);

  r = p.request("completion/complete", R"({"ref":{"type":"ref/prompt","name":"pick"},
    "argument":{"name":"color","value":"re"},"context":{"arguments":{"shade":"dark"}}})");
  EXPECT_TRUE(same_json(r["result"]["completion"]["values"], R"(["re-dark"])")) << r.dump();
  r = p.request("completion/complete", R"({"ref":{"type":"ref/resource","uri":"shop://items/{id}"},
    "argument":{"name":"id","value":"4"}})");
  EXPECT_TRUE(same_json(r["result"]["completion"]["values"], R"(["41","42"])")) << r.dump();
}

// ---- tasks ------------------------------------------------------------------------------

// Polls tasks/get until the task is terminal (at most 20 s).
std::string wait_terminal(peer &p, const std::string &id) {
  for (int i = 0; i < 2000; i++) {
    mcp::json g = p.request("tasks/get", "{\"taskId\":\"" + id + "\"}");
    std::string status = g["result"]["status"].string();
    if (status != "working" && status != "input_required")
      return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return "timeout";
}

TEST(Tasks, HandlerRunsAsTaskWithProgressAndCancellation) {
  mcp::server srv("t", "1");
  std::atomic<bool> saw_cancel{false}, started{false};
  srv.add(mcp::tool("export", "Exports", [](const add_in &in, mcp::call &c) {
            c.progress(1, 1, "exported");
            return add_out{c.is_task() ? in.a + in.b : -1};
          }).task(mcp::task_support::required));
  srv.add(mcp::tool("forever", "", [&](mcp::call &c) {
            started = true;
            while (!c.cancelled())
              std::this_thread::sleep_for(std::chrono::milliseconds(5));
            saw_cancel = true;
            return std::string("stopped");
          }).task(mcp::task_support::optional));
  srv.enable_tasks(mcp::store::memory());
  peer p(srv);
  p.initialize();

  mcp::json r = p.request("tools/call", R"({"name":"export","arguments":{"a":1,"b":2},
    "task":{},"_meta":{"progressToken":7}})");
  std::string id = r["result"]["task"]["taskId"].string();
  ASSERT_FALSE(id.empty()) << r.dump();
  EXPECT_EQ(wait_terminal(p, id), "completed");
  r = p.request("tasks/result", "{\"taskId\":\"" + id + "\"}");
  EXPECT_TRUE(same_json(r["result"]["structuredContent"], R"({"sum":3})")) << r.dump();
  EXPECT_EQ(srv.tasks().status(id), MCP_TASK_COMPLETED);

  r = p.request("tools/call", R"({"name":"forever","task":{}})");
  id = r["result"]["task"]["taskId"].string();
  ASSERT_FALSE(id.empty()) << r.dump();
  for (int i = 0; i < 2000 && !started; i++)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(started);
  r = p.request("tasks/cancel", "{\"taskId\":\"" + id + "\"}");
  EXPECT_EQ(r["result"]["status"].string(), "cancelled") << r.dump();
  for (int i = 0; i < 2000 && !saw_cancel; i++)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(saw_cancel);
}

TEST(Tasks, DeferredTaskCompletedFromAnotherThreadOnSqlite) {
  char dir[] = "/tmp/mcpxx-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string db = std::string(dir) + "/tasks.db";
  std::thread worker;
  std::mutex lock;
  std::string deferred_id;
  {
    mcp::server srv("t", "1");
    srv.add(mcp::tool("later", "", [&](mcp::call &c) {
              c.defer_task();
              std::lock_guard<std::mutex> g(lock);
              deferred_id = c.task_id();
            }).task(mcp::task_support::required));
    mcp::task_options o;
    o.threads = 1;
    o.default_ttl_ms = 60000;
    o.max_ttl_ms = 120000;
    srv.enable_tasks(mcp::store::sqlite(db), o);
    peer p(srv);
    p.initialize();
    mcp::json r = p.request("tools/call", R"({"name":"later","task":{}})");
    std::string id = r["result"]["task"]["taskId"].string();
    ASSERT_FALSE(id.empty()) << r.dump();
    EXPECT_EQ(r["result"]["task"]["ttl"].integer(), 60000);
    for (int i = 0; i < 2000; i++) {
      {
        std::lock_guard<std::mutex> g(lock);
        if (!deferred_id.empty())
          break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    {
      std::lock_guard<std::mutex> g(lock);
      ASSERT_EQ(deferred_id, id); // the handler ran as the task and deferred it
    }
    mcp::tasks tasks = srv.tasks();
    worker = std::thread([&tasks, id] {
      mcp::result done = mcp::result::make();
      done.text("finished elsewhere");
      tasks.complete(id, done);
    });
    worker.join();
    EXPECT_EQ(wait_terminal(p, id), "completed");
    r = p.request("tasks/result", "{\"taskId\":\"" + id + "\"}");
    EXPECT_EQ(text_of(r), "finished elsewhere") << r.dump();
    EXPECT_THROW(tasks.fail(id, "too late"), mcp::error); // terminal
  }
  mcp::task_options half;
  half.default_ttl_ms = 1;
  mcp::server other("t", "1");
  EXPECT_THROW(other.enable_tasks(mcp::store::memory(), half), mcp::error);
  unlink(db.c_str());
  std::string wal = db + "-wal", shm = db + "-shm";
  unlink(wal.c_str());
  unlink(shm.c_str());
  rmdir(dir);
}

TEST(Tasks, ResumedAfterARestartAndCancelHook) {
  char dir[] = "/tmp/mcpxx-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string db = std::string(dir) + "/tasks.db";
  std::string id;
  std::atomic<int> hook_cancels{0};
  auto add_later = [](mcp::server &srv) {
    srv.add(mcp::tool("later", "", [](mcp::call &c) { c.defer_task(); })
                .task(mcp::task_support::required));
  };
  { // the first run: the task is still working when the server goes away
    mcp::server srv("shop", "1");
    add_later(srv);
    mcp::task_options o;
    o.on_cancel = [&hook_cancels](mcp::tasks &, const std::string &) { hook_cancels++; };
    srv.enable_tasks(mcp::store::sqlite(db), o);
    peer p(srv);
    p.initialize();
    mcp::json r = p.request("tools/call", R"({"name":"later","task":{}})");
    id = r["result"]["task"]["taskId"].string();
    ASSERT_FALSE(id.empty()) << r.dump();
    EXPECT_EQ(srv.tasks().status(id), MCP_TASK_WORKING);
    // a second task, cancelled: the hook hears of it
    r = p.request("tools/call", R"({"name":"later","task":{}})");
    std::string other = r["result"]["task"]["taskId"].string();
    r = p.request("tasks/cancel", "{\"taskId\":\"" + other + "\"}");
    EXPECT_EQ(r["result"]["status"].string(), "cancelled") << r.dump();
    EXPECT_EQ(hook_cancels.load(), 1);
  }
  std::vector<std::string> resumed;
  { // the restart: the application takes the task over and completes it
    mcp::server srv("shop", "1");
    add_later(srv);
    mcp::task_options o;
    o.on_resume = [&resumed](mcp::tasks &, const mcp::json &task) {
      resumed.push_back(task["taskId"].string());
      return true;
    };
    srv.enable_tasks(mcp::store::sqlite(db), o);
    ASSERT_EQ(resumed, std::vector<std::string>{id});
    EXPECT_EQ(srv.tasks().status(id), MCP_TASK_WORKING);
    mcp::result done = mcp::result::make();
    done.text("resumed and done");
    srv.tasks().complete(id, done);
  }
  { // another process that only knows the store and the id
    mcp::store s = mcp::store::sqlite(db);
    mcp::tasks t = mcp::tasks::open(s, "shop");
    EXPECT_EQ(t.status(id), MCP_TASK_COMPLETED);
    EXPECT_EQ(t.get(id)["status"].string(), "completed");
  }
  for (const char *suffix : {"", "-wal", "-shm"})
    unlink((db + suffix).c_str());
  rmdir(dir);
}

// ---- HTTP in the background, a plain function as a handler ---------------------------

add_out add_numbers(const add_in &in) { return add_out{in.a + in.b}; }

TEST(Serving, StartHttpWithAFunctionHandlerAndAStoreSpec) {
  mcp::server srv("t", "1");
  srv.tool("add", "Adds", add_numbers);
  srv.add(mcp::tool("slow_add", "", &add_numbers).task(mcp::task_support::optional));
  srv.enable_tasks(mcp::store::open("memory"));
  EXPECT_THROW(mcp::store::open("nonsense:"), mcp::error);
  mcp::http_server http = srv.start_http("127.0.0.1", 0);
  ASSERT_NE(http.port(), 0);

  mcp_client_options_t *o = nullptr;
  ASSERT_EQ(mcp_client_options_new(&o), MCP_OK);
  const std::string url = "http://127.0.0.1:" + std::to_string(http.port()) + "/mcp";
  ASSERT_EQ(mcp_client_options_set_url(o, url.c_str()), MCP_OK);
  mcp_client_t *client = nullptr;
  mcp_error_t err{};
  ASSERT_EQ(mcp_client_connect(o, &client, &err), MCP_OK) << err.message;
  mcp_client_options_free(o);
  json_t *result = nullptr;
  mcp::json args = mcp::json::parse(R"({"a":40,"b":2})");
  ASSERT_EQ(mcp_client_call_tool(client, "add", args.get(), nullptr, nullptr, &result, &err),
            MCP_OK)
      << err.message;
  mcp::json r = mcp::json::steal(result);
  EXPECT_TRUE(same_json(r["structuredContent"], R"({"sum":42})")) << r.dump();
  EXPECT_TRUE(mcp_client_server_has(client, "tasks"));
  mcp_client_close(client);
  http.stop();
  EXPECT_EQ(http.native(), nullptr);
}

// ---- elicitation: input_required in both eras -----------------------------------------

struct contact {
  std::string email;
};
inline mcp::fields<contact> describe(contact *) {
  return {{"email", &contact::email, "Where to write", mcp::format("email")}};
}

void add_ask_tool(mcp::server &srv) {
  srv.tool("ask", "", [](mcp::call &c) {
    std::optional<contact> who = c.elicit<contact>("Your e-mail?");
    return who ? "mail to " + who->email : std::string("declined");
  });
}

TEST(Elicitation, LegacyEraWaitsForTheAnswer) {
  mcp::server srv("t", "1");
  add_ask_tool(srv);
  peer p(srv);
  p.initialize(R"({"elicitation":{}})");
  p.send(mcp::json::parse(R"({"jsonrpc":"2.0","id":100,"method":"tools/call","params":{"name":"ask"}})"));
  mcp::json q = p.next();
  ASSERT_EQ(q["method"].string(), "elicitation/create") << q.dump();
  EXPECT_EQ(q["params"]["message"].string(), "Your e-mail?");
  EXPECT_EQ(q["params"]["requestedSchema"]["properties"]["email"]["format"].string(), "email");
  p.send(mcp::json::parse(R"({"jsonrpc":"2.0","id":)" + q["id"].dump() +
                          R"(,"result":{"action":"accept","content":{"email":"a@b.ch"}}})"));
  mcp::json r = p.response(100);
  EXPECT_EQ(text_of(r), "mail to a@b.ch") << r.dump();
}

TEST(Elicitation, StatelessEraAsksWithInputRequired) {
  mcp::server srv("t", "1");
  add_ask_tool(srv);
  peer p(srv);
  const std::string meta = R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
    "io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}})";
  mcp::json r = p.request("tools/call", R"({"name":"ask",)" + meta + "}");
  ASSERT_EQ(r["result"]["resultType"].string(), "input_required") << r.dump();
  const char *key = nullptr;
  json_t *question = nullptr;
  json_object_foreach(r["result"]["inputRequests"].get(), key, question) break;
  ASSERT_NE(key, nullptr);
  std::string state = r["result"]["requestState"].string();
  r = p.request("tools/call", R"({"name":"ask",)" + meta + R"(,"requestState":")" + state +
                                  R"(","inputResponses":{")" + key +
                                  R"(":{"action":"decline"}}})");
  EXPECT_EQ(text_of(r), "declined") << r.dump();
}

} // namespace
