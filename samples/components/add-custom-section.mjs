// node add-custom-section.mjs MODULE.wasm NAME FILE: appends FILE's bytes to a
// core module as the custom section NAME (clang 14's wasm-ld cannot emit
// custom sections from C sources).
import { readFileSync, writeFileSync } from 'node:fs';
const [mod, name, file] = process.argv.slice(2);
const leb = (n) => { const out = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n); return out; };
const nameBytes = Buffer.from(name, 'utf8');
const payload = readFileSync(file);
const body = Buffer.concat([Buffer.from(leb(nameBytes.length)), nameBytes, payload]);
const section = Buffer.concat([Buffer.from([0]), Buffer.from(leb(body.length)), body]);
writeFileSync(mod, Buffer.concat([readFileSync(mod), section]));
