"""The TypeScript MCP client: a Node program (driver.mjs, with its package.json and lock)
that the official TypeScript SDK runs in, its session, and its setup (node, the SDK
installed into a cache)."""
