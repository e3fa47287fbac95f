// The jco oracle for the jstext sample (see kitchen.mjs): converts between
// aios-host's JSON form and jco's JS values for the text interface.
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';

// node 20 has no JSPI. jco's output wraps the async built-ins (never called
// by this synchronous component) in WebAssembly.Suspending/promising: a
// pass-through stand-in is enough for synchronous calls.
if (typeof WebAssembly.Suspending !== 'function') {
  WebAssembly.Suspending = function Suspending(fn) { return fn; };
  WebAssembly.promising = (fn) => fn;
}

const [dir, casesFile] = process.argv.slice(2);
const mod = await import(pathToFileURL(`${dir}/jstext.js`).href);
const text = mod.text ?? mod['samples:jstext/text@0.1.0'];
const cases = JSON.parse(readFileSync(casesFile, 'utf8'));
const out = [];
for (const c of cases) {
  try {
    if (c.fn === 'count') out.push({ ok: text.count(c.params.text) });
    else if (c.fn === 'slugify') out.push({ ok: text.slugify(c.params.title, c.params['max-len'] ?? undefined) });
    else throw new Error(`unknown fn ${c.fn}`);
  } catch (e) {
    out.push({ err: e.payload !== undefined ? e.payload : `trap: ${e.message}` });
  }
}
console.log('ORACLE ' + JSON.stringify(out));
