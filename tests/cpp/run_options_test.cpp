// SPDX-License-Identifier: MIT
// run_options_test.cpp - mcp::run with the application's options: values
// from the command line and the environment delivered in table order, a
// thrown exception a usage error (exit 2, before serving), a table mistake
// exit 1. No run here reaches serving.
#include <gtest/gtest.h>

#include <cstdlib>

#include <mcp/mcp.hpp>

namespace {

int run_with(mcp::server &s, std::vector<std::string> args, const std::vector<mcp::option> &o) {
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(&a[0]);
  argv.push_back(nullptr);
  return mcp::run(s, static_cast<int>(args.size()), argv.data(), o);
}

TEST(RunOptions, DeliveredThenRefused) {
  mcp::server srv("shop", "1.0.0");
  std::string db = "shop.db";
  bool verbose = false;
  std::vector<mcp::option> options = {
      {"db", "PATH", "the database", "SHOP_TEST_DB", [&](const std::string &v) { db = v; }},
      {"verbose", "", "say more", "", [&](const std::string &v) { verbose = v == "true"; }},
      {"workers", "N", "worker threads", "", [](const std::string &v) {
         if (std::stoi(v) < 1)
           throw std::invalid_argument("at least one worker");
       }}};
  // --workers 0 is refused after --db and --verbose were delivered
  EXPECT_EQ(run_with(srv, {"shop", "--db", "x.db", "--verbose", "--workers", "0"}, options), 2);
  EXPECT_EQ(db, "x.db");
  EXPECT_TRUE(verbose);

  setenv("SHOP_TEST_DB", "env.db", 1);
  EXPECT_EQ(run_with(srv, {"shop", "--workers=0"}, options), 2);
  EXPECT_EQ(db, "env.db");
  EXPECT_EQ(run_with(srv, {"shop", "--db=cli.db", "--workers=0"}, options), 2);
  EXPECT_EQ(db, "cli.db"); // the command line wins
  unsetenv("SHOP_TEST_DB");

  EXPECT_EQ(run_with(srv, {"shop", "--help"}, options), 0);
  EXPECT_EQ(run_with(srv, {"shop", "--nope"}, options), 2);
}

TEST(RunOptions, TableMistakeIsExit1) {
  mcp::server srv("shop", "1.0.0");
  EXPECT_EQ(run_with(srv, {"shop", "--help"}, {{"http", "X", "", "", [](const std::string &) {}}}), 1);
  EXPECT_EQ(run_with(srv, {"shop", "--help"},
                     {{"a", "", "", "", [](const std::string &) {}},
                      {"a", "", "", "", [](const std::string &) {}}}),
            1);
}

} // namespace
