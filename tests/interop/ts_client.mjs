// SPDX-License-Identifier: MIT
// ts_client.mjs - an official TypeScript SDK client against mcp-demo-server.
// The SDK is the first argument:
//   ts1  @modelcontextprotocol/sdk 1.x: 2025-11-25 with initialize and
//        sessions; elicitation as a server-to-client request, tools
//        list_changed on the session
//   ts2  @modelcontextprotocol/client 2.x, version negotiation 'auto'
//        (server/discover picks 2026-07-28): elicitation through
//        input_required, list_changed on a subscriptions/listen stream
// Run from the directory whose node_modules holds the SDK (run-clients.sh
// copies it there).
//
//   node ts_client.mjs ts1|ts2 stdio DEMO_BIN DB_PATH PAGE_SIZE
//   node ts_client.mjs ts1|ts2 http URL
//
// Prints "ok <step>" per check; exit 1 naming the failing step.
let step = 'connect';
const check = (cond, what) => {
  if (!cond) throw new Error(`${step}: ${what}`);
};

// What differs between the two SDKs: where the classes live, how handlers
// are named, and what the negotiated version is.
async function loadSdk(sdk) {
  if (sdk === 'ts1') {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const types = await import('@modelcontextprotocol/sdk/types.js');
    return {
      Client,
      StdioClientTransport,
      StreamableHTTPClientTransport,
      clientOptions: { capabilities: { elicitation: {} } },
      elicit: types.ElicitRequestSchema,
      toolsChanged: types.ToolListChangedNotificationSchema,
      // The initialize result is not exposed; the HTTP transport keeps the
      // version it sends, stdio has no headers (undefined).
      version: (client, transport) => transport.protocolVersion,
      expected: '2025-11-25'
    };
  }
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  return {
    Client,
    StdioClientTransport,
    StreamableHTTPClientTransport,
    clientOptions: { capabilities: { elicitation: {} }, versionNegotiation: { mode: 'auto' } },
    elicit: 'elicitation/create',
    toolsChanged: 'notifications/tools/list_changed',
    version: client => client.getNegotiatedProtocolVersion(),
    expected: '2026-07-28'
  };
}

async function main([sdkName, ...argv]) {
  check(sdkName === 'ts1' || sdkName === 'ts2', `unknown SDK ${sdkName} (ts1 or ts2)`);
  const sdk = await loadSdk(sdkName);
  const modern = sdkName === 'ts2';
  const transport =
    argv[0] === 'stdio'
      ? new sdk.StdioClientTransport({
          command: argv[1],
          args: ['--stdio', '--db', argv[2], '--store', `sqlite:${argv[2]}`, '--page-size', argv[3]],
          stderr: 'inherit'
        })
      : new sdk.StreamableHTTPClientTransport(new URL(argv[1]));
  const client = new sdk.Client({ name: `libmcp-interop-${sdkName}`, version: '1.0.0' }, sdk.clientOptions);
  const asked = [];
  client.setRequestHandler(sdk.elicit, async request => {
    asked.push(request.params.message);
    return { action: 'accept', content: { confirm: true } };
  });
  // Count the tools/list requests (pages) the client sends.
  let listPages = 0;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (message.method === 'tools/list') listPages++;
    return send(message, options);
  };
  let changed;
  const toolsChanged = new Promise(resolve => (changed = resolve));
  client.setNotificationHandler(sdk.toolsChanged, () => changed());
  // Every tool name, page by page (2.x's listTools() walks the pages itself).
  const allTools = async options => {
    const tools = [];
    let cursor;
    let pages = 0;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, options);
      pages++;
      check(modern || page.resultType === undefined, 'resultType on a 2025-11-25 result');
      tools.push(...page.tools.map(t => t.name));
      cursor = page.nextCursor;
    } while (cursor && pages < 20);
    return tools;
  };
  await client.connect(transport);
  try {
    step = 'protocol';
    const version = sdk.version(client, transport);
    check(version === sdk.expected || (!modern && argv[0] === 'stdio' && version === undefined), `negotiated ${version}`);
    if (!modern) await client.ping(); // 2026-07-28 has no ping
    console.log('ok protocol', version || '(stdio) ping');

    step = 'tools/list';
    const names = await allTools();
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

    // archive_orders asks for confirmation and, once done, offers
    // restore_orders: a tools list_changed (in 2026-07-28 on the listen
    // stream, which must be open before the change).
    let sub;
    if (modern) {
      step = 'subscriptions/listen';
      sub = await client.listen({ toolsListChanged: true });
      check(sub.honoredFilter.toolsListChanged === true, JSON.stringify(sub.honoredFilter));
      console.log('ok subscriptions/listen acknowledged');
    }

    step = 'elicitation';
    r = await client.callTool({ name: 'archive_orders', arguments: { older_than_days: 30 } });
    check(!r.isError, JSON.stringify(r));
    check(asked.length === 1 && asked[0].includes('30 days'), `asked ${asked}`);
    check(r.content[0].text.startsWith('Archived 42 orders'), JSON.stringify(r));
    console.log(`ok elicitation ${modern ? 'through input_required' : 'as a server-to-client request'}`);

    step = 'tools list_changed';
    await Promise.race([
      toolsChanged,
      new Promise((_, reject) => setTimeout(() => reject(new Error('no list_changed in 30 s')), 30000))
    ]);
    console.log(`ok tools list_changed ${modern ? 'on the listen stream' : 'in the session'}`);
    if (sub) await sub.close();

    step = 'tools/list after the change';
    const after = await allTools(modern ? { cacheMode: 'refresh' } : undefined);
    check(after.includes('restore_orders'), JSON.stringify(after));
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
