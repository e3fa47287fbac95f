// Node preload (node --import) for tests: adds "Authorization: Bearer
// $AIOS_MCP_BEARER" to every fetch, so that an MCP client without a header
// option (the Inspector CLI 0.15) can reach aios-host's OAuth-protected /mcp.
const token = process.env.AIOS_MCP_BEARER;
if (token) {
  const orig = globalThis.fetch;
  globalThis.fetch = (input, init = {}) => {
    const headers = new Headers(init.headers || (input instanceof Request ? input.headers : undefined));
    headers.set('Authorization', `Bearer ${token}`);
    return orig(input, { ...init, headers });
  };
}
