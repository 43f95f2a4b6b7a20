export { buildMcpServer, type McpOptions, serveMcp } from "./mcp-server.js";
