// SPDX-License-Identifier: MIT
// peer.hpp - a client end for the C++ tests: serves an mcp::server on a
// pair of pipes (mcp_server_serve_fds on a thread of its own, the same
// stdio transport a real client talks to) and exchanges JSON-RPC lines
// with it. Every read waits at most 20 s, so a hang fails the test.
#ifndef MCP_TESTS_CPP_PEER_HPP
#define MCP_TESTS_CPP_PEER_HPP

#include <poll.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <mcp/mcp.hpp>

class peer {
public:
  explicit peer(mcp::server &s) {
    if (pipe(to_server_) != 0 || pipe(from_server_) != 0)
      throw std::runtime_error("pipe");
    server_ = std::thread([this, &s] {
      status_ = mcp_server_serve_fds(s.native(), to_server_[0], from_server_[1]);
      close(from_server_[1]);
    });
  }
  peer(const peer &) = delete;
  peer &operator=(const peer &) = delete;
  // End of input: the transport finishes what runs and returns.
  ~peer() {
    close(to_server_[1]);
    server_.join();
    close(to_server_[0]);
    close(from_server_[0]);
  }

  void send(const mcp::json &message) {
    std::string line = message.dump() + "\n";
    for (std::size_t off = 0; off < line.size();) {
      ssize_t n = write(to_server_[1], line.data() + off, line.size() - off);
      if (n <= 0)
        throw std::runtime_error("write to the server failed");
      off += static_cast<std::size_t>(n);
    }
  }
  // The next message from the server.
  mcp::json next() {
    for (;;) {
      std::size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return mcp::json::parse(line);
      }
      pollfd p{from_server_[0], POLLIN, 0};
      if (poll(&p, 1, 20000) != 1)
        throw std::runtime_error("no message from the server in 20 s");
      char chunk[4096];
      ssize_t n = read(from_server_[0], chunk, sizeof chunk);
      if (n <= 0)
        throw std::runtime_error("the server closed its output");
      buf_.append(chunk, static_cast<std::size_t>(n));
    }
  }
  // Sends a request and returns its response; the messages that came
  // before it (notifications, requests) go to seen.
  mcp::json request(const std::string &method, const std::string &params = "{}") {
    int id = ++last_id_;
    send(mcp::json::parse("{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) +
                          ",\"method\":\"" + method + "\",\"params\":" + params + "}"));
    return response(id);
  }
  mcp::json response(int id) {
    for (;;) {
      mcp::json m = next();
      if (!json_object_get(m.get(), "method") && json_integer_value(m["id"].get()) == id)
        return m;
      seen.push_back(m);
    }
  }
  // initialize (2025-11-25) + notifications/initialized.
  void initialize(const std::string &capabilities = "{}") {
    request("initialize", "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":" +
                              capabilities + ",\"clientInfo\":{\"name\":\"gtest\",\"version\":\"1\"}}");
    send(mcp::json::parse("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"));
  }
  int last_id() const { return last_id_; }

  std::vector<mcp::json> seen;

private:
  int to_server_[2] = {-1, -1}, from_server_[2] = {-1, -1};
  std::thread server_;
  mcp_status status_ = MCP_OK;
  std::string buf_;
  int last_id_ = 0;
};

#endif
