// The jco oracle for the kitchen sample: runs the component as transpiled by
// `jco transpile` (the reference implementation) on the cases given as JSON
// in argv[3], converting between aios-host's JSON form of WIT values
// (docs/components.md) and jco's JS form. Prints "ORACLE <json>".
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';

const [dir, casesFile] = process.argv.slice(2);
const mod = await import(pathToFileURL(`${dir}/kitchen.js`).href);
const sink = mod.sink ?? mod['samples:kitchen/sink@0.1.0'];
const cases = JSON.parse(readFileSync(casesFile, 'utf8'));

const perms = ['read', 'write', 'exec'];
const itemIn = (j) => ({
  name: j.name, tags: j.tags, color: j.color,
  perms: Object.fromEntries(perms.map((p) => [p, j.perms.includes(p)])),
  shape: j.shape.tag === 'empty' ? { tag: 'empty' } : { tag: j.shape.tag, val: j.shape.val },
  note: j.note ?? undefined, count: j.count,
});
const itemOut = (v) => ({
  name: v.name, tags: v.tags, color: v.color,
  perms: perms.filter((p) => v.perms[p]),
  shape: v.shape.tag === 'empty' ? { tag: 'empty' } : { tag: v.shape.tag, val: v.shape.val },
  note: v.note ?? null, count: v.count,
});
const bytes = (j) => typeof j === 'string' ? Buffer.from(j, 'base64') : Uint8Array.from(j);

const out = [];
for (const c of cases) {
  try {
    if (c.fn === 'transform') out.push({ ok: itemOut(sink.transform(itemIn(c.params.item))) });
    else if (c.fn === 'stats') {
      const p = c.params;
      out.push({ ok: sink.stats(bytes(p.data), p.c, p.flag, p.n) });
    } else if (c.fn === 'hostile') out.push({ ok: sink.hostile(c.params.kind) });
    else throw new Error(`unknown fn ${c.fn}`);
  } catch (e) {
    out.push({ err: e.payload !== undefined ? e.payload : `trap: ${e.message}` });
  }
}
console.log('ORACLE ' + JSON.stringify(out));
