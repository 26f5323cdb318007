/**
 * The config `switchyard init` writes: YAML, so it can carry comments. It serves Streamable HTTP on
 * loopback and the admin listener, fronts one server that needs no network once npx has it (the MCP
 * project's reference `server-everything`), and runs the audit and cache plugins; the other first-party
 * plugins are there commented out, in the recommended order.
 */
export const STARTER_CONFIG = `# Switchyard: one MCP endpoint in front of the servers under mcpServers.
# Reference: docs/configuration.md. Check it:  switchyard check --config switchyard.yaml
# Run it:    switchyard --config switchyard.yaml   (a change to this file is applied live)

listen:
  # Clients connect to http://127.0.0.1:7480/mcp (Streamable HTTP; see docs/clients.md).
  http: { host: 127.0.0.1, port: 7480, path: /mcp }
  # stdio: true          # also serve one client over stdin/stdout (the client starts the gateway)
  # ws: { host: 127.0.0.1, port: 7481, path: /mcp }
  # /healthz, /readyz, the status page at http://127.0.0.1:7482/ and /admin/status.
  # Open on loopback while no clients are named; then only the "groups" below may use it.
  admin: { host: 127.0.0.1, port: 7482, groups: [admins] }

mcpServers:
  # The MCP project's reference server: resources, tools and prompts, no network once npx has fetched it.
  # Its resources appear as everything+<uri>, its tools as everything__<tool>.
  everything:
    command: npx
    args: [-y, "@modelcontextprotocol/server-everything"]
  # A remote server (Streamable HTTP); \${VAR} reads the environment:
  # docs:
  #   url: https://mcp.example.com/mcp
  #   headers: { Authorization: "Bearer \${DOCS_TOKEN}" }
  # A legacy SSE server:
  # old: { url: "http://127.0.0.1:3002/sse", transport: sse }

# Named clients and their bearer tokens (HTTP); without them the loopback listener is open.
# clients:
#   alice: { token: "\${ALICE_TOKEN}", groups: [admins] }

# Middleware, first listed is outermost (docs/plugins.md has the options and the recommended order).
plugins:
  - ["@switchyard/plugin-audit", { file: ./audit.jsonl }]
  # - ["@switchyard/plugin-rate-limit", { perClient: { requestsPerSecond: 20, burst: 40 } }]
  # - ["@switchyard/plugin-access", { default: allow, rules: [] }]
  # - ["@switchyard/plugin-secrets", { action: redact }]
  # - ["@switchyard/plugin-pin", { lockFile: ./switchyard.lock.json, mode: enforce }]
  - ["@switchyard/plugin-cache", { maxBytes: 67108864, ttlMs: 300000 }]
`;
