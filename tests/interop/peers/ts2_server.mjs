// SPDX-License-Identifier: MIT
// ts2_server.mjs - a small MCP server written with the TypeScript SDK 2.x
// (@modelcontextprotocol/server), a peer for libmcp-client and mcpc in
// tests/interop/run-servers.sh. Both eras: serveStdio and createMcpHandler
// serve 2026-07-28 and fall back to 2025-11-25 (stateless over HTTP).
//
//   node ts2_server.mjs stdio
//   node ts2_server.mjs http PORT     (serves http://127.0.0.1:PORT/mcp)
//
// Tools add, fail, archive (asks to confirm through inputRequired: an
// input_required result in 2026-07-28, a server-to-client elicitation/create
// through the SDK's shim in 2025-11-25), the resource interop://greeting and
// the prompt greet. The SDK 2.x server has no tasks, so no task tool.
import http from 'node:http';
import { McpServer, acceptedContent, createMcpHandler, inputRequired } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

function factory() {
  const server = new McpServer({ name: 'ts2-interop', version: '1.0.0' });
  server.registerTool(
    'add',
    {
      description: 'Add two integers',
      inputSchema: z.object({ a: z.number().int(), b: z.number().int() }),
      outputSchema: z.object({ sum: z.number().int() })
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: `sum=${a + b}` }], structuredContent: { sum: a + b } })
  );
  server.registerTool('fail', { description: 'Always fails' }, async () => ({
    content: [{ type: 'text', text: 'nope' }],
    isError: true
  }));
  const confirmSchema = z.object({ confirm: z.boolean() });
  server.registerTool(
    'archive',
    { description: 'Archive old orders after asking the user', inputSchema: z.object({ older_than_days: z.number().int() }) },
    async ({ older_than_days }, ctx) => {
      const responses = ctx.mcpReq.inputResponses;
      if (!responses || !('confirm' in responses)) {
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `Archive the orders older than ${older_than_days} days?`,
              requestedSchema: confirmSchema
            })
          }
        });
      }
      const answer = acceptedContent(responses, 'confirm', confirmSchema);
      const text = answer?.confirm === true ? `archived 42 orders older than ${older_than_days} days` : 'kept the orders';
      return { content: [{ type: 'text', text }] };
    }
  );
  // cacheScope public, ttlMs 60000 in 2026-07-28: the same for everyone
  const cacheHint = { ttlMs: 60000, cacheScope: 'public' };
  server.registerResource('greeting', 'interop://greeting', { mimeType: 'text/plain', cacheHint }, async uri => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello from ts2' }]
  }));
  server.registerPrompt(
    'greet',
    { description: 'Greets someone', argsSchema: z.object({ name: z.string() }) },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Please greet ${name} warmly.` } }] })
  );
  return server;
}

if (process.argv[2] === 'stdio') {
  serveStdio(factory, { onerror: e => console.error('ts2 peer:', e) });
} else {
  const handler = createMcpHandler(factory, { onerror: e => console.error('ts2 peer:', e) });
  // node:http <-> fetch Request/Response (what @modelcontextprotocol/node does).
  const httpServer = http.createServer(async (req, res) => {
    try {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
      const body = chunks.length && req.method !== 'GET' && req.method !== 'HEAD' ? Buffer.concat(chunks) : undefined;
      const ac = new AbortController();
      res.on('close', () => ac.abort());
      const response = await handler.fetch(
        new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body, signal: ac.signal })
      );
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) for await (const chunk of response.body) res.write(chunk);
      res.end();
    } catch (e) {
      if (!res.headersSent) res.writeHead(500);
      res.end();
      if (e?.name !== 'AbortError') console.error('ts2 peer:', e);
    }
  });
  httpServer.listen(Number(process.argv[3]), '127.0.0.1', () => console.error(`listening on ${httpServer.address().port}`));
}
