// The jco oracle for the imagetools sample (see kitchen.mjs). A case's
// params may carry "$put": base64 bytes stored first; "$PUT" in params is
// replaced by their ObjectId. Results are in aios-host's JSON form (kebab-case fields,
// u64 as numbers).
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { putObject } from './stubs/aios-sdk.mjs';

const [dir, casesFile] = process.argv.slice(2);
const mod = await import(pathToFileURL(`${dir}/imagetools.js`).href);
const handler = mod.toolHandler ?? mod['my-tools:image-tools/tool-handler@1.0.0'];
const cases = JSON.parse(readFileSync(casesFile, 'utf8'));
const out = [];
for (const c of cases) {
  const id = c.params.$put ? putObject(Buffer.from(c.params.$put, 'base64')) : '';
  const p = JSON.parse(JSON.stringify(c.params.params).replaceAll('$PUT', id));
  try {
    const r = handler.resize({ objectId: p['object-id'], width: p.width, height: p.height, format: p.format });
    out.push({ ok: { 'output-id': r.outputId, 'original-size': Number(r.originalSize), 'resized-size': Number(r.resizedSize) } });
  } catch (e) {
    out.push({ err: e.payload !== undefined ? e.payload : `trap: ${e.message}` });
  }
}
console.log('ORACLE ' + JSON.stringify(out));
