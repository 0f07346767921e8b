// SPDX-License-Identifier: MIT
// ts1_server.mjs - a small MCP server written with the TypeScript SDK 1.x
// (@modelcontextprotocol/sdk, protocol 2025-11-25), a peer for
// libmcp-client and mcpc in tests/interop/run-servers.sh.
//
//   node ts1_server.mjs stdio
//   node ts1_server.mjs http PORT     (serves http://127.0.0.1:PORT/mcp,
//                                      one session per initialize)
//
// Tools add, fail, archive (asks to confirm with elicitation/create), and
// square as a task (2025-11-25 tasks, the SDK's experimental task support
// with its in-memory store: created working, completed about 300 ms later),
// the resource interop://greeting and the prompt greet.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { z } from 'zod';

const taskStore = new InMemoryTaskStore();

function makeServer() {
  const server = new McpServer(
    { name: 'ts1-interop', version: '1.0.0' },
    {
      capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore
    }
  );
  server.registerTool(
    'add',
    {
      description: 'Add two integers',
      inputSchema: { a: z.number().int(), b: z.number().int() },
      outputSchema: { sum: z.number().int() }
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: `sum=${a + b}` }], structuredContent: { sum: a + b } })
  );
  server.registerTool('fail', { description: 'Always fails' }, async () => ({
    content: [{ type: 'text', text: 'nope' }],
    isError: true
  }));
  server.registerTool(
    'archive',
    { description: 'Archive old orders after asking the user', inputSchema: { older_than_days: z.number().int() } },
    async ({ older_than_days }) => {
      const answer = await server.server.elicitInput({
        message: `Archive the orders older than ${older_than_days} days?`,
        requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] }
      });
      const text =
        answer.action === 'accept' && answer.content?.confirm === true
          ? `archived 42 orders older than ${older_than_days} days`
          : 'kept the orders';
      return { content: [{ type: 'text', text }] };
    }
  );
  server.experimental.tasks.registerToolTask(
    'square',
    {
      description: 'Squares n as a task (done after about 300 ms)',
      inputSchema: { n: z.number().int() },
      execution: { taskSupport: 'optional' }
    },
    {
      createTask: async ({ n }, extra) => {
        const task = await extra.taskStore.createTask({ ttl: 60000, pollInterval: 100 });
        setTimeout(() => {
          extra.taskStore
            .storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: `square=${n * n}` }] })
            .catch(e => console.error('ts1 peer:', e));
        }, 300);
        return { task };
      },
      getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
      getTaskResult: async (_args, extra) => extra.taskStore.getTaskResult(extra.taskId)
    }
  );
  server.registerResource('greeting', 'interop://greeting', { mimeType: 'text/plain' }, async uri => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello from ts1' }]
  }));
  server.registerPrompt('greet', { description: 'Greets someone', argsSchema: { name: z.string() } }, ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Please greet ${name} warmly.` } }]
  }));
  return server;
}

if (process.argv[2] === 'stdio') {
  await makeServer().connect(new StdioServerTransport());
} else {
  const sessions = new Map();
  const httpServer = http.createServer(async (req, res) => {
    try {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
      const sid = req.headers['mcp-session-id'];
      let transport = sid && sessions.get(sid);
      if (!transport) {
        if (sid || body?.method !== 'initialize') {
          res.writeHead(sid ? 404 : 400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'no such session' } }));
          return;
        }
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: id => sessions.set(id, transport)
        });
        transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
        await makeServer().connect(transport);
      }
      await transport.handleRequest(req, res, body);
    } catch (e) {
      console.error('ts1 peer:', e);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  httpServer.listen(Number(process.argv[3]), '127.0.0.1', () => console.error(`listening on ${httpServer.address().port}`));
}
