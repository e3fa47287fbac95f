// The wasm-tools oracle (through jco) for the WIT binary decoder
// (wit/decode.go) and the component text reader (component/wat). For each
// job {wit, world, features, out} it encodes the world as wit-component
// does for a component's `component-type` custom section, and writes that
// section's payload to OUT.wasm and its text form (`wasm-tools print`) to
// OUT.wat. One node process serves every job; a job that wasm-tools
// refuses is reported, not fatal. Prints "OK out" or "ERR out message"
// per job.
import { componentEmbed, print } from '@bytecodealliance/jco';
import { readFileSync, writeFileSync } from 'node:fs';

function leb(b, i) {
  let r = 0, s = 0, x;
  do { x = b[i++]; r |= (x & 0x7f) << s; s += 7; } while (x & 0x80);
  return [r >>> 0, i];
}

// componentType returns the payload of the module's component-type section.
function componentType(b) {
  let i = 8;
  while (i < b.length) {
    const id = b[i++];
    let n; [n, i] = leb(b, i);
    const end = i + n;
    if (id === 0) {
      let nl, j; [nl, j] = leb(b, i);
      const name = new TextDecoder().decode(b.subarray(j, j + nl));
      if (name.startsWith('component-type')) return b.subarray(j + nl, end);
    }
    i = end;
  }
  throw new Error('no component-type section');
}

const jobs = JSON.parse(readFileSync(process.argv[2], 'utf8'));
for (const j of jobs) {
  try {
    const mod = await componentEmbed({
      witPath: j.wit, dummy: true, world: j.world,
      features: { tag: 'list', val: j.features ?? [] },
    });
    const ct = componentType(mod);
    writeFileSync(j.out + '.wasm', ct);
    writeFileSync(j.out + '.wat', await print(ct));
    console.log('OK ' + j.out);
  } catch (e) {
    console.log('ERR ' + j.out + ' ' + String(e?.message ?? e).split('\n')[0]);
  }
}
