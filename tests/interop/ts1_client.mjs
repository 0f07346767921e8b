// SPDX-License-Identifier: MIT
// ts1_client.mjs - the TypeScript SDK 1.x client (@modelcontextprotocol/sdk,
// 2025-11-25 with initialize and sessions) against mcp-demo-server: the
// old era keeps working, elicitation as a server-to-client request.
//
//   node ts1_client.mjs stdio DEMO_BIN DB_PATH PAGE_SIZE
//   node ts1_client.mjs http URL
//
// Prints "ok <step>" per check; exit 1 naming the failing step.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

let step = 'connect';
const check = (cond, what) => {
  if (!cond) throw new Error(`${step}: ${what}`);
};

async function main(argv) {
  const transport =
    argv[0] === 'stdio'
      ? new StdioClientTransport({
          command: argv[1],
          args: ['--stdio', '--db', argv[2], '--store', `sqlite:${argv[2]}`, '--page-size', argv[3]],
          stderr: 'inherit'
        })
      : new StreamableHTTPClientTransport(new URL(argv[1]));
  const client = new Client({ name: 'libmcp-interop-ts1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const asked = [];
  client.setRequestHandler(ElicitRequestSchema, async request => {
    asked.push(request.params.message);
    return { action: 'accept', content: { confirm: true } };
  });
  let version;
  let changed;
  const toolsChanged = new Promise(resolve => (changed = resolve));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed());
  await client.connect(transport);
  try {
    step = 'protocol';
    // The initialize result is not exposed; the HTTP transport keeps the
    // version it sends, stdio has no headers: ask the server with ping.
    version = transport.protocolVersion;
    check(argv[0] === 'stdio' || version === '2025-11-25', `negotiated ${version}`);
    await client.ping();
    console.log('ok protocol', version || '(stdio) ping');

    step = 'tools/list';
    const names = [];
    let cursor, pages = 0;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined);
      pages++;
      check(page.resultType === undefined, 'resultType on a 2025-11-25 result');
      names.push(...page.tools.map(t => t.name));
      cursor = page.nextCursor;
    } while (cursor && pages < 20);
    check(pages >= 2, `one page only (${names.length} tools)`);
    check(new Set(names).size === names.length, `duplicates in ${names}`);
    check(names.includes('add') && names.includes('archive_orders'), `tools: ${names}`);
    console.log('ok tools/list', pages, 'pages', names.length, 'tools');

    step = 'tools/call';
    let r = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
    check(!r.isError && r.structuredContent && r.structuredContent.sum === 42, JSON.stringify(r));
    console.log('ok tools/call add');

    step = 'tools/call invalid';
    r = await client.callTool({ name: 'add', arguments: { a: 'twenty', b: 22 } });
    check(r.isError === true, JSON.stringify(r));
    console.log('ok tools/call invalid arguments: isError');

    step = 'resources/read';
    const res = await client.readResource({ uri: 'reports://sales/2026-Q3' });
    check(res.contents[0].text.includes('TOTAL'), JSON.stringify(res));
    console.log('ok resources/read');

    step = 'prompts/get';
    const p = await client.getPrompt({ name: 'customer_brief', arguments: { customer_id: 'C001' } });
    check(p.messages[0].content.text.includes('Ada Lovelace'), JSON.stringify(p));
    console.log('ok prompts/get');

    // archive_orders asks (elicitation/create) and, once done, offers
    // restore_orders: notifications/tools/list_changed in the session.
    step = 'elicitation';
    r = await client.callTool({ name: 'archive_orders', arguments: { older_than_days: 30 } });
    check(!r.isError, JSON.stringify(r));
    check(asked.length === 1 && asked[0].includes('30 days'), `asked ${asked}`);
    check(r.content[0].text.startsWith('Archived 42 orders'), JSON.stringify(r));
    console.log('ok elicitation as a server-to-client request');

    step = 'tools list_changed';
    await Promise.race([
      toolsChanged,
      new Promise((_, reject) => setTimeout(() => reject(new Error('no list_changed in 30 s')), 30000))
    ]);
    const after = await client.listTools();
    const all = [...after.tools];
    for (let c = after.nextCursor, n = 0; c && n < 20; n++) {
      const page = await client.listTools({ cursor: c });
      all.push(...page.tools);
      c = page.nextCursor;
    }
    check(all.some(t => t.name === 'restore_orders'), JSON.stringify(all.map(t => t.name)));
    console.log('ok notifications/tools/list_changed, restore_orders listed');
  } finally {
    await client.close();
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  e => {
    console.error(`FAIL ${step}: ${e && e.stack ? e.stack : e}`);
    process.exit(1);
  }
);
