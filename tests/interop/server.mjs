// SPDX-License-Identifier: MIT
// server.mjs - a small MCP server written with the official TypeScript SDK,
// for the interop test: node server.mjs PORT (serves http://127.0.0.1:PORT/mcp;
// PORT 0 picks a free port, printed on stderr as "listening on N").
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const port = Number(process.argv[2]);
const httpServer = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
  const server = new McpServer({ name: 'ts-interop', version: '1.0.0' });
  server.tool('multiply', 'Multiply two numbers', { a: z.number(), b: z.number() },
    async ({ a, b }) => ({ content: [{ type: 'text', text: `product=${a * b}` }] }));
  server.tool('fail', 'Always fails', {},
    async () => ({ content: [{ type: 'text', text: 'nope' }], isError: true }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => { transport.close(); server.close(); });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
});
httpServer.listen(port, '127.0.0.1', () =>
  console.error(`listening on ${httpServer.address().port}`));
