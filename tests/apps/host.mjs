// SPDX-License-Identifier: MIT
// host.mjs DEMO_BIN SHOT_DIR CACHE - the demo's MCP App in a real host.
//
// Starts the demo (HTTP, CORS for the host page's origin) and a small
// static server for the host page (host.html, host-page.mjs) and the npm
// packages' ESM builds under /node_modules, with an import map computed
// here from the packages' "exports" (browser conditions): no bundler. Then
// headless Chromium (Debian's, driven by playwright-core) opens the page,
// which connects to the demo with the official SDK client, reads the view
// of show_orders (ui://demo/orders), renders it in a sandboxed iframe and
// runs it with the official AppBridge (@modelcontextprotocol/ext-apps).
// Checked: the view shows the order book that show_orders returned; its
// button's tools/call reached libmcp through the host (export_orders'
// result, recorded by the host) and its result reached the view (the
// iframe's text). The screenshot is SHOT_DIR/apps-orders.png.
import { spawn } from "node:child_process";
import { readFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync,
         existsSync, statSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import net from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const [demoBin, shotDir, cache] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
const modules = join(cache, "node_modules");
const require = createRequire(join(cache, "package.json"));
const { chromium } = require("playwright-core");
const tmp = mkdtempSync(join(tmpdir(), "mcp-apps-host-"));
const children = [];

function freePort() {
  return new Promise((resolvePort, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolvePort(port));
    });
  });
}

async function waitPort(port, what) {
  for (let i = 0; i < 300; i++) {
    const ok = await new Promise((res) => {
      const c = net.connect(port, "127.0.0.1");
      c.on("connect", () => (c.destroy(), res(true)));
      c.on("error", () => res(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not listen on ${port}`);
}

// ---- the import map: bare specifiers as a browser bundler would resolve
// them (conditions browser, import, default), found by walking the modules
const CONDITIONS = ["browser", "import", "module", "default"];
function pickTarget(t) {
  if (typeof t === "string") return t;
  if (t && typeof t === "object")
    for (const c of CONDITIONS)
      if (c in t) {
        const r = pickTarget(t[c]);
        if (r) return r;
      }
  return null;
}
function resolveBare(spec) {
  const parts = spec.split("/");
  const n = spec.startsWith("@") ? 2 : 1;
  const pkg = parts.slice(0, n).join("/");
  const sub = parts.length > n ? "./" + parts.slice(n).join("/") : ".";
  const pj = JSON.parse(readFileSync(join(modules, pkg, "package.json"), "utf8"));
  let exp = pj.exports;
  let target;
  if (exp) {
    if (typeof exp === "string" || !Object.keys(exp).some((k) => k.startsWith(".")))
      exp = { ".": exp };
    target = exp[sub] === undefined ? null : pickTarget(exp[sub]);
  } else {
    target = sub === "." ? (pj.module || pj.main || "index.js") : sub;
  }
  if (!target) throw new Error(`cannot resolve ${spec} for the browser`);
  return join(pkg, target);
}
const IMPORT_RE =
  /(?:\bimport|\bexport)\s*(?:[^"';]*?\bfrom\s*)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;
function importMap(entries) {
  const imports = {};
  const seen = new Set();
  const walk = (file) => {
    file = normalize(file);
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(modules, file), "utf8");
    for (const m of text.matchAll(IMPORT_RE)) {
      const spec = m[1] || m[2];
      if (spec.startsWith(".")) walk(join(dirname(file), spec));
      else if (!spec.startsWith("node:") && !(spec in imports)) {
        const target = resolveBare(spec);
        imports[spec] = "/node_modules/" + target.split(sep).join("/");
        walk(target);
      }
    }
  };
  for (const e of entries) {
    const target = resolveBare(e);
    imports[e] = "/node_modules/" + target.split(sep).join("/");
    walk(target);
  }
  return { imports };
}

// ---- the host page's server ------------------------------------------------
const TYPES = { ".html": "text/html; charset=utf-8", ".mjs": "text/javascript",
                ".js": "text/javascript", ".json": "application/json" };
function serveHost(port, demoUrl) {
  const map = importMap(["@modelcontextprotocol/client",
                         "@modelcontextprotocol/ext-apps/app-bridge"]);
  const page = readFileSync(join(here, "host.html"), "utf8")
    .replace("@IMPORT_MAP@", JSON.stringify(map))
    .replace("@DEMO_URL@", demoUrl);
  const server = http.createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    let file = null;
    if (path === "/") {
      res.writeHead(200, { "content-type": TYPES[".html"] });
      return res.end(page);
    }
    if (path === "/favicon.ico") {
      res.writeHead(204);
      return res.end();
    }
    if (path === "/host-page.mjs") file = join(here, "host-page.mjs");
    else if (path.startsWith("/node_modules/")) {
      file = resolve(modules, "." + path.slice("/node_modules".length));
      if (!file.startsWith(modules + sep)) file = null; // no way out
    }
    if (!file || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404);
      return res.end();
    }
    const ext = file.slice(file.lastIndexOf("."));
    res.writeHead(200, { "content-type": TYPES[ext] || "application/octet-stream" });
    res.end(readFileSync(file));
  });
  return new Promise((r) => server.listen(port, "127.0.0.1", () => r(server)));
}

let context, page, hostServer;
function cleanup() {
  for (const p of children) if (p.exitCode === null) p.kill("SIGTERM");
  if (hostServer) hostServer.close();
  rmSync(tmp, { recursive: true, force: true });
}
// CTest's timeout kills the shell's exec'd node: take the demo along
for (const sig of ["SIGTERM", "SIGINT"])
  process.on(sig, () => { cleanup(); process.exit(1); });

try {
  const demoPort = await freePort();
  const hostPort = await freePort();
  const hostOrigin = `http://127.0.0.1:${hostPort}`;
  const demoUrl = `http://127.0.0.1:${demoPort}/mcp`;
  const demo = spawn(demoBin, ["--http", `127.0.0.1:${demoPort}`,
                               "--db", join(tmp, "demo.db"),
                               "--cors-origin", hostOrigin],
                     { stdio: ["ignore", "ignore", "inherit"] });
  children.push(demo);
  hostServer = await serveHost(hostPort, demoUrl);
  await waitPort(demoPort, "the demo server");

  const profile = join(tmp, "profile");
  mkdirSync(profile);
  context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    viewport: { width: 900, height: 640 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking",
           "--disable-component-update", "--disable-sync"],
    timeout: 60000,
  });
  page = context.pages()[0] || (await context.newPage());
  page.setDefaultTimeout(30000);
  page.on("console", (m) => {
    if (m.type() === "error") console.error(`browser: ${m.text()}`);
  });
  page.on("pageerror", (e) => console.error(`browser: ${e.message}`));
  await page.goto(hostOrigin + "/");

  // the host connected, found the view through the tool and rendered it
  await page.waitForFunction(() => window.hostState === "rendered" ||
                                   String(window.hostState).startsWith("error"));
  const state = await page.evaluate(() => window.hostState);
  if (state !== "rendered") throw new Error(`host page: ${state}`);
  const view = page.frameLocator("iframe#view");
  // show_orders' result reached the view: the order book as a table
  await view.locator("#orders tbody tr").nth(2).waitFor();
  const rows = await view.locator("#orders tbody tr").allInnerTexts();
  if (!rows.some((r) => r.includes("O1001") && r.includes("Ada Lovelace")))
    throw new Error(`the view's table: ${JSON.stringify(rows)}`);

  // the view's button: tools/call through the host to libmcp and back
  await view.getByRole("button", { name: "Export orders (CSV)" }).click();
  await view.locator("#export-result").filter({ hasText: "Exported" }).waitFor();
  const shown = await view.locator("#export-result").innerText();
  const calls = await page.evaluate(() => window.proxiedCalls);
  const call = calls.find((c) => c.name === "export_orders");
  if (!call) throw new Error(`no export_orders call went through the host: ${JSON.stringify(calls)}`);
  // export_orders' own text (the demo's handler): 20 steps of 500 rows
  const serverText = call.result.content.find((c) => c.type === "text").text;
  if (serverText !== "Exported 10000 rows as csv.")
    throw new Error(`export_orders answered ${JSON.stringify(call.result)}`);
  if (shown !== serverText)
    throw new Error(`the view shows '${shown}', libmcp answered '${serverText}'`);
  if (call.result.structuredContent?.rows !== 10000)
    throw new Error(`structuredContent ${JSON.stringify(call.result.structuredContent)}`);

  mkdirSync(shotDir, { recursive: true });
  await page.screenshot({ path: join(shotDir, "apps-orders.png") });
  const negotiated = await page.evaluate(() => window.serverUi);
  console.log(`apps host: extension ${JSON.stringify(negotiated)}; view rendered ` +
              `${rows.length} orders; its export_orders call answered ` +
              `'${serverText}' through the host; screenshot ${shotDir}/apps-orders.png`);
  await context.close();
  cleanup();
  process.exit(0);
} catch (e) {
  console.error(`apps host: FAILED: ${e.message}`);
  if (page) {
    try {
      mkdirSync(shotDir, { recursive: true });
      await page.screenshot({ path: join(shotDir, "apps-failure.png"), fullPage: true });
      writeFileSync(join(shotDir, "apps-failure.txt"),
                    `${await page.evaluate(() => window.hostState)}\n` +
                    await page.innerText("body"));
      console.error(`apps host: screenshot in ${shotDir}/apps-failure.png`);
    } catch (e2) {
      console.error(`apps host: no screenshot: ${e2.message}`);
    }
  }
  if (context) await context.close().catch(() => {});
  cleanup();
  process.exit(1);
}
