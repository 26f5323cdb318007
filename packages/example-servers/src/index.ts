/**
 * The example MCP servers behind `pnpm start` (examples/switchyard.json): `docs`, the team handbook, and
 * `tickets`, a ticket desk with a live queue status. Each runs on stdio (`dist/docs-cli.js`,
 * `dist/tickets-cli.js`); these factories let tests serve them on any transport.
 */
export { createDocsServer, EXAMPLE_VERSION } from './docs-server.js';
export { HANDBOOK, type HandbookPage, pageUri, searchHandbook } from './handbook.js';
export { SessionRoster } from './roster.js';
export { serveOnStdio } from './serve.js';
export { type DeskChange, STATUS_URI, type Ticket, TicketDesk, ticketUri } from './ticket-desk.js';
export { createTicketsServer, TRIAGE_STEP_MS } from './tickets-server.js';
