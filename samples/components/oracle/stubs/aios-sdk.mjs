// Stand-ins for the aios:sdk@0.1.0 host interfaces when a sample runs under
// jco transpile in node (the oracle). Space storage is an in-memory map with
// the host's ObjectIds ("sha256:" + hex of the content).
import { createHash } from 'node:crypto';

const objects = new Map();
const idOf = (data) => 'sha256:' + createHash('sha256').update(data).digest('hex');

export function putObject(data) {
  const id = idOf(data);
  objects.set(id, Uint8Array.from(data));
  return id;
}
export function getObject(id) { return objects.get(id); }

export const spaces = {
  read(objectId) {
    const d = objects.get(objectId);
    if (!d) throw `no object ${objectId}`;
    return d;
  },
  write(space, data) { return putObject(data); },
};
export const log = { log(level, message) {} };
export const tools = { callTool(name, paramsJson) { throw `no tool ${name}`; } };
