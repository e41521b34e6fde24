"""The training MCP server: five tools over fictional data that fail in every way the lessons teach."""
