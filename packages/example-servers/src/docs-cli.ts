#!/usr/bin/env node
import { createDocsServer } from './docs-server.js';
import { serveOnStdio } from './serve.js';

// The `docs` example server on stdio: the team handbook (see README "Quick start").
serveOnStdio('docs', () => createDocsServer());
