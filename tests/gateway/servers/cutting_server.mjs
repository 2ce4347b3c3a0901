// An upstream MCP server written with the TypeScript SDK (stdio): `cut` replies with a text
// cut in the middle of an emoji, as JavaScript's String.slice cuts it, so its JSON carries
// a lone surrogate escape ("\ud83d"); `fine` replies plainly. MCP_SDK_DIR: the SDK package.
const sdk = process.env.MCP_SDK_DIR;
const { McpServer } = await import(`${sdk}/dist/esm/server/mcp.js`);
const { StdioServerTransport } = await import(`${sdk}/dist/esm/server/stdio.js`);

const server = new McpServer({ name: "cutter", version: "1.0.0" });
server.tool("cut", "Reply with a text cut in the middle of an emoji.", async () => ({
  content: [{ type: "text", text: "smile: " + "\u{1F600}".slice(0, 1) + " end" }],
}));
server.tool("fine", "Reply plainly.", async () => ({
  content: [{ type: "text", text: "fine \u{1F600}" }],
}));
await server.connect(new StdioServerTransport());
