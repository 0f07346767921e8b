-- SPDX-License-Identifier: MIT
-- wrk script: a 2026-07-28 tools/call add (no session; version and client
-- capabilities in _meta, the SEP-2243 headers repeating the body).
wrk.method = "POST"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "add"

done = function(summary, latency, requests)
  local non2xx = summary.errors.status
  io.write(string.format("RESULT %.0f %.3f %.3f %d\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, non2xx))
end
