// SPDX-License-Identifier: MIT
// ts_client.mjs - the official TypeScript SDK client (@modelcontextprotocol/
// client 2.x, version negotiation 'auto': server/discover picks 2026-07-28)
// against mcp-demo-server. Run from the directory whose node_modules holds
// the SDK (run-clients.sh copies it there).
//
//   node ts_client.mjs stdio DEMO_BIN DB_PATH PAGE_SIZE
//   node ts_client.mjs http URL
//
// Prints "ok <step>" per check; exit 1 naming the failing step.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

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
  const client = new Client(
    { name: 'libmcp-interop-ts2', version: '1.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: 'auto' } }
  );
  const asked = [];
  client.setRequestHandler('elicitation/create', async request => {
    asked.push(request.params.message);
    return { action: 'accept', content: { confirm: true } };
  });
  let listPages = 0;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (message.method === 'tools/list') listPages++;
    return send(message, options);
  };
  let changed;
  const toolsChanged = new Promise(resolve => (changed = resolve));
  client.setNotificationHandler('notifications/tools/list_changed', () => changed());
  await client.connect(transport);
  try {
    step = 'protocol';
    const version = client.getNegotiatedProtocolVersion();
    check(version === '2026-07-28', `negotiated ${version}`);
    console.log('ok protocol', version);

    step = 'tools/list';
    // listTools() walks every page itself; count the pages it asked for.
    const tools = await client.listTools();
    const names = tools.tools.map(t => t.name);
    check(listPages >= 2, `${listPages} tools/list request(s) for ${names.length} tools`);
    check(new Set(names).size === names.length, `duplicates in ${names}`);
    check(names.includes('add') && names.includes('archive_orders'), `tools: ${names}`);
    console.log('ok tools/list', listPages, 'pages', names.length, 'tools');

    step = 'tools/call';
    let r = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
    check(!r.isError, JSON.stringify(r));
    check(r.structuredContent && r.structuredContent.sum === 42, JSON.stringify(r));
    console.log('ok tools/call add');

    step = 'tools/call invalid';
    r = await client.callTool({ name: 'add', arguments: { a: 'twenty', b: 22 } });
    check(r.isError === true, JSON.stringify(r));
    console.log('ok tools/call invalid arguments: isError');

    step = 'resources/read';
    const res = await client.readResource({ uri: 'reports://sales/2026-Q3' });
    const text = res.contents[0].text;
    check(text.includes('O1001') && text.includes('TOTAL'), text);
    console.log('ok resources/read');

    step = 'prompts/get';
    const p = await client.getPrompt({ name: 'customer_brief', arguments: { customer_id: 'C001' } });
    check(p.messages[0].content.text.includes('Ada Lovelace'), JSON.stringify(p));
    console.log('ok prompts/get');

    // archive_orders asks for confirmation (input_required, answered by
    // the elicitation handler) and, once done, offers restore_orders: a
    // tools list_changed, which the listen stream must deliver.
    step = 'subscriptions/listen';
    const sub = await client.listen({ toolsListChanged: true });
    check(sub.honoredFilter.toolsListChanged === true, JSON.stringify(sub.honoredFilter));
    console.log('ok subscriptions/listen acknowledged');

    step = 'elicitation';
    r = await client.callTool({ name: 'archive_orders', arguments: { older_than_days: 30 } });
    check(!r.isError, JSON.stringify(r));
    check(asked.length === 1 && asked[0].includes('30 days'), `asked ${asked}`);
    check(r.content[0].text.startsWith('Archived 42 orders'), JSON.stringify(r));
    console.log('ok elicitation through input_required');

    step = 'tools list_changed';
    await Promise.race([
      toolsChanged,
      new Promise((_, reject) => setTimeout(() => reject(new Error('no list_changed in 30 s')), 30000))
    ]);
    console.log('ok listen stream: tools list_changed');
    await sub.close();

    step = 'tools/list after the change';
    const after = await client.listTools(undefined, { cacheMode: 'refresh' });
    check(after.tools.some(t => t.name === 'restore_orders'), JSON.stringify(after.tools.map(t => t.name)));
    console.log('ok tools/list shows restore_orders');
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
