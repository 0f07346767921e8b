// SPDX-License-Identifier: MIT
// ajv_bench.js - the same cases and measurement as bench.c, for Ajv 8 with
// ajv-formats (format assertion on, first-error mode). Run by bench/schema/run.
// Rows from text, next to bench.c's: "<case>/<kind>:text" is
// validate(JSON.parse(text)) on the instance file's bytes, ":parse" is
// JSON.parse(text) alone.
// Usage: node ajv_bench.js CASES_DIR [runs] [seconds]
'use strict';
const fs = require('fs');
const path = require('path');
const Ajv2020 = require('ajv/dist/2020').default;
const addFormats = require('ajv-formats').default;

const dir = process.argv[2];
const runs = Number(process.argv[3] || 5);
const seconds = Number(process.argv[4] || 0.5);
const readText = (name, kind) =>
  fs.readFileSync(path.join(dir, `${name}.${kind}.json`), 'utf8');
const load = (name, kind) => JSON.parse(readText(name, kind));
const now = () => Number(process.hrtime.bigint()) / 1e9;

function runOnce(validate, inst, secs, expect) {
  let iters = 0, bad = 0;
  const t0 = now();
  let t;
  do {
    for (let i = 0; i < 1000; i++) if (validate(inst) !== expect) bad++;
    iters += 1000;
    t = now();
  } while (t - t0 < secs);
  if (bad) throw new Error('unexpected result');
  return iters / (t - t0);
}

for (const name of ['flight', 'medium', 'uneval']) {
  const ajv = new Ajv2020({strict: false});
  addFormats(ajv);
  const validate = ajv.compile(load(name, 'schema'));
  for (const kind of ['valid', 'invalid']) {
    const inst = load(name, kind);
    const text = readText(name, kind);
    const expect = kind === 'valid';
    const rows = [
      ['', (x) => validate(x), inst, expect],
      [':text', (t) => validate(JSON.parse(t)), text, expect],
      [':parse', (t) => typeof JSON.parse(t) === 'object', text, true],
    ];
    for (const [suffix, fn, arg, want] of rows) {
      runOnce(fn, arg, seconds / 5, want);
      const r = [];
      for (let i = 0; i < runs; i++) r.push(runOnce(fn, arg, seconds, want));
      const sorted = [...r].sort((a, b) => a - b);
      console.log(`${name}/${kind}${suffix} ` +
                  `${sorted[Math.floor(runs / 2)].toFixed(0)} ` +
                  r.map((x) => x.toFixed(0)).join(' '));
    }
  }
}
