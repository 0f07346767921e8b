// SPDX-License-Identifier: MIT
// inspector.mjs DEMO_BIN SHOT_DIR - the MCP Inspector's web UI (npm
// @modelcontextprotocol/inspector, its client served by its own
// bin/client.js) in Debian's headless Chromium, driven with playwright-core,
// connecting straight to the demo server over Streamable HTTP (connection
// type "Direct": the browser itself talks to the demo, which needs CORS):
// list the tools, call add with a=10 and b=5, see 15. Keeps a screenshot and
// the page's text in SHOT_DIR on failure. Run from the npm cache directory
// (run.sh), where playwright-core and the inspector are installed.
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const require = createRequire(join(process.cwd(), "package.json"));
const { chromium } = require("playwright-core");
const [demoBin, shotDir] = process.argv.slice(2);
const children = [];
const tmp = mkdtempSync(join(tmpdir(), "mcp-inspector-"));

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitPort(port, what) {
  for (let i = 0; i < 300; i++) {
    const ok = await new Promise((resolve) => {
      const c = net.connect(port, "127.0.0.1");
      c.on("connect", () => (c.destroy(), resolve(true)));
      c.on("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not listen on ${port}`);
}

function start(cmd, args, env) {
  const p = spawn(cmd, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  children.push(p);
  return p;
}

function cleanup() {
  for (const p of children) if (p.exitCode === null) p.kill("SIGTERM");
  rmSync(tmp, { recursive: true, force: true });
}

let page;
let context;
try {
  const demoPort = await freePort();
  const uiPort = await freePort();
  const uiOrigin = `http://127.0.0.1:${uiPort}`;
  const demoUrl = `http://127.0.0.1:${demoPort}/mcp`;
  start(demoBin, [
    "--http", `127.0.0.1:${demoPort}`,
    "--db", join(tmp, "demo.db"),
    "--cors-origin", uiOrigin,
  ]);
  const clientJs = join(
    dirname(require.resolve("@modelcontextprotocol/inspector-client/package.json")),
    "bin", "client.js");
  start(process.execPath, [clientJs], {
    CLIENT_PORT: String(uiPort),
    HOST: "127.0.0.1",
    MCP_AUTO_OPEN_ENABLED: "false",
  });
  await waitPort(demoPort, "the demo server");
  await waitPort(uiPort, "the Inspector UI");

  const profile = join(tmp, "profile"); // empty --user-data-dir
  mkdirSync(profile);
  context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
      "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync",
    ],
    timeout: 60000,
  });
  page = context.pages()[0] || (await context.newPage());
  page.setDefaultTimeout(30000);
  page.on("console", (m) => {
    if (m.type() === "error") console.error(`browser: ${m.text()}`);
  });
  // connection type "Direct": the browser connects to the demo itself
  await page.addInitScript(() => {
    localStorage.setItem("lastConnectionType", "direct");
  });
  await page.goto(`${uiOrigin}/?transport=streamable-http&serverUrl=` +
                  encodeURIComponent(demoUrl));
  await page.getByRole("button", { name: "Connect", exact: true }).click();
  await page.getByText("Connected", { exact: true }).waitFor();
  await page.getByRole("tab", { name: "Tools" }).click();
  await page.getByRole("button", { name: "List Tools" }).click();
  // the list shows each tool's title
  await page.getByText("Flight Details", { exact: true }).waitFor();
  await page.getByText("Add two integers", { exact: true }).click();
  await page.locator("#a").fill("10");
  await page.locator("#b").fill("5");
  await page.getByRole("button", { name: "Run Tool" }).click();
  // the result panel: "Tool Result: Success", structured {sum: 15}
  await page.waitForFunction(() =>
    /Tool Result: Success[\s\S]*Structured Content:\s*\{\s*sum:\s*15\s*\}/
      .test(document.body.innerText));
  console.log("inspector: connected directly, listed tools, add(10, 5) = 15");
  await context.close();
  cleanup();
  process.exit(0);
} catch (e) {
  console.error(`inspector: FAILED: ${e.message}`);
  if (page) {
    try {
      mkdirSync(shotDir, { recursive: true });
      await page.screenshot({ path: join(shotDir, "inspector-failure.png"), fullPage: true });
      writeFileSync(join(shotDir, "inspector-failure.txt"), await page.innerText("body"));
      console.error(`inspector: screenshot in ${shotDir}/inspector-failure.png`);
    } catch (e2) {
      console.error(`inspector: no screenshot: ${e2.message}`);
    }
  }
  if (context) await context.close().catch(() => {});
  cleanup();
  process.exit(1);
}
