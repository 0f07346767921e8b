// SPDX-License-Identifier: MIT
// host-page.mjs - a minimal MCP Apps host on the official libraries: the
// SDK client (@modelcontextprotocol/client) talks to the demo over
// Streamable HTTP, declaring the io.modelcontextprotocol/ui extension; the
// AppBridge (@modelcontextprotocol/ext-apps/app-bridge) runs the view in a
// sandboxed iframe and proxies its tools/call to the server. window.hostState
// and window.proxiedCalls are what host.mjs checks.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AppBridge, PostMessageTransport, getToolUiResourceUri, RESOURCE_MIME_TYPE }
  from "@modelcontextprotocol/ext-apps/app-bridge";

window.hostState = "starting";
window.proxiedCalls = [];
const demoUrl = document.body.dataset.demoUrl;
document.getElementById("server").textContent = demoUrl;

async function main() {
  const client = new Client(
    { name: "libmcp-apps-test-host", version: "1.0.0" },
    { capabilities: { extensions: {
        "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(demoUrl)));
  window.serverUi = client.getServerCapabilities()?.extensions?.["io.modelcontextprotocol/ui"];
  if (!window.serverUi) throw new Error("the server declares no io.modelcontextprotocol/ui");

  // every tools/call the host sends, the ones it proxies for the view
  // included (the AppBridge forwards them with client.request)
  const request = client.request.bind(client);
  client.request = async (req, ...rest) => {
    const result = await request(req, ...rest);
    if (req.method === "tools/call")
      window.proxiedCalls.push({ name: req.params.name, result });
    return result;
  };

  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === "show_orders");
  const uri = tool && getToolUiResourceUri(tool);
  if (!uri) throw new Error("show_orders links to no view");
  const read = await client.readResource({ uri });
  const content = read.contents[0];
  if (content.mimeType !== RESOURCE_MIME_TYPE)
    throw new Error(`view of MIME type ${content.mimeType}`);
  const html = content.text ?? atob(content.blob);

  // the view: a sandboxed iframe (scripts only: an opaque origin, no access
  // to this page), wired to the bridge before its document loads
  const iframe = document.createElement("iframe");
  iframe.id = "view";
  iframe.setAttribute("sandbox", "allow-scripts");
  document.querySelector("#chat .turn:last-child").append(iframe);
  const bridge = new AppBridge(client,
    { name: "libmcp-apps-test-host", version: "1.0.0" },
    { serverTools: {}, serverResources: {}, logging: {} });
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = `${Math.min(height, 600)}px`;
  };
  bridge.oninitialized = async () => {
    try {
      document.getElementById("tool-line").textContent = "Called show_orders";
      await bridge.sendToolInput({ arguments: {} });
      const result = await client.callTool({ name: "show_orders", arguments: {} });
      await bridge.sendToolResult(result);
      window.hostState = "rendered";
    } catch (e) {
      window.hostState = `error: ${e.message}`;
    }
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = html;
  window.hostState = "view loading";
}

main().catch((e) => { window.hostState = `error: ${e.message}`; console.error(e); });
