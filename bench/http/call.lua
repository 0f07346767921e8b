-- SPDX-License-Identifier: MIT
-- wrk script: POST tools/call add (session id from MCP_SESSION when set).
wrk.method = "POST"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
local sid = os.getenv("MCP_SESSION")
if sid and sid ~= "" then wrk.headers["Mcp-Session-Id"] = sid end

done = function(summary, latency, requests)
  local non2xx = summary.errors.status
  io.write(string.format("RESULT %.0f %.3f %.3f %d\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, non2xx))
end
