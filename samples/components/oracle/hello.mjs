// The jco oracle for the hello sample (see kitchen.mjs).
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';

const [dir, casesFile] = process.argv.slice(2);
const mod = await import(pathToFileURL(`${dir}/hello.js`).href);
const greet = mod.greet ?? mod['samples:hello/greet@0.1.0'];
const cases = JSON.parse(readFileSync(casesFile, 'utf8'));
const out = [];
for (const c of cases) {
  try {
    if (c.fn === 'add') out.push({ ok: mod.add(c.params.a, c.params.b) });
    else if (c.fn === 'hello') out.push({ ok: greet.hello(c.params.g) });
    else throw new Error(`unknown fn ${c.fn}`);
  } catch (e) {
    out.push({ err: e.payload !== undefined ? e.payload : `trap: ${e.message}` });
  }
}
console.log('ORACLE ' + JSON.stringify(out));
