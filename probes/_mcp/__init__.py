"""MCP probing over the official SDK, and the reference MCP reflector."""
