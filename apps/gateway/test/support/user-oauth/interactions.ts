import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { interactionPolicy } from 'oidc-provider';

// The test authorization server's login and consent pages: plain HTML without scripts or external assets,
// the same for a browser and for a scripted HTTP client. The login form takes any user name and that name
// becomes the account id (`sub`) of every token the authorization yields. Every page carries
// `<body data-prompt="login|consent">`, an `approve` form (button `#approve-button`, user name field
// `#user` on the login page) and a `deny` form (button `#deny-button`) that ends the authorization with
// `error=access_denied`.

/** Where oidc-provider sends the user agent for an interaction. */
export const interactionUrl = (_ctx: unknown, interaction: { uid: string }) =>
  `/interaction/${interaction.uid}`;

/** oidc-provider's default policy, plus consent asked on every authorization (never remembered). */
export function alwaysConsentPolicy(): interactionPolicy.DefaultPolicy {
  const policy = interactionPolicy.base();
  policy
    .get('consent')!
    .checks.add(
      new interactionPolicy.Check(
        'always_consent',
        'consent is asked on every authorization',
        (ctx) => !ctx.oidc.result?.consent,
      ),
    );
  return policy;
}

const ROUTE = /^\/interaction\/([\w-]+)(?:\/(login|confirm|abort))?$/;

/** Serves an interaction route (true) or leaves the request alone (false, not an interaction path). */
export async function serveInteraction(
  provider: Provider,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<boolean> {
  const match = ROUTE.exec(new URL(req.url ?? '/', 'http://localhost').pathname);
  if (!match) return false;
  const [, uid, action] = match as unknown as [string, string, string | undefined];
  try {
    if (action === undefined && req.method === 'GET') await render(provider, req, res, uid);
    else if (action !== undefined && req.method === 'POST') await submit(provider, req, res, action);
    else page(res, 405, 'error', '<p>method not allowed</p>');
  } catch (error) {
    if (!res.headersSent) page(res, 400, 'error', `<p id="error">${html(String(error))}</p>`);
  }
  return true;
}

async function render(provider: Provider, req: IncomingMessage, res: ServerResponse, uid: string) {
  const { prompt, params, session } = await provider.interactionDetails(req, res);
  const clientId = String(params.client_id);
  const client = await provider.Client.find(clientId);
  const name = html(client?.clientName ?? clientId);
  const deny = `<form id="deny" method="post" action="/interaction/${uid}/abort">
  <button id="deny-button" type="submit">${prompt.name === 'login' ? 'Cancel' : 'Deny'}</button>
</form>`;
  if (prompt.name === 'login') {
    page(
      res,
      200,
      'login',
      `<h1>Sign in</h1>
<p>to continue to <b id="client">${name}</b></p>
<form id="approve" method="post" action="/interaction/${uid}/login">
  <label>User name <input id="user" name="login" required autofocus></label>
  <button id="approve-button" type="submit">Sign in</button>
</form>
${deny}`,
    );
    return;
  }
  const details = prompt.details as { missingResourceScopes?: Record<string, string[]> };
  const resources = Object.entries(details.missingResourceScopes ?? {})
    .map(([resource, scopes]) => `<li>${html(resource)}: ${html(scopes.join(' '))}</li>`)
    .join('');
  page(
    res,
    200,
    'consent',
    `<h1>Authorize</h1>
<p><b id="client">${name}</b> asks to act as <b id="account">${html(session?.accountId ?? '')}</b></p>
<ul id="resources">${resources}</ul>
<form id="approve" method="post" action="/interaction/${uid}/confirm">
  <button id="approve-button" type="submit" autofocus>Allow</button>
</form>
${deny}`,
  );
}

async function submit(provider: Provider, req: IncomingMessage, res: ServerResponse, action: string) {
  const form = new URLSearchParams(await readBody(req));
  const details = await provider.interactionDetails(req, res);
  if (action === 'abort') {
    const result = { error: 'access_denied', error_description: 'End-User denied the authorization' };
    await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  } else if (action === 'login') {
    const accountId = form.get('login')?.trim();
    if (details.prompt.name !== 'login' || !accountId) throw new Error('expected a login with a user name');
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId } },
      { mergeWithLastSubmission: false },
    );
  } else {
    if (details.prompt.name !== 'consent' || !details.session) throw new Error('expected a consent');
    await provider.interactionFinished(
      req,
      res,
      { consent: { grantId: await grantAll(provider, details) } },
      { mergeWithLastSubmission: true },
    );
  }
}

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

/** Grants everything the authorization request asked for (what oidc-provider's devInteractions do). */
async function grantAll(provider: Provider, { grantId, session, params, prompt }: Details): Promise<string> {
  const grant =
    (grantId ? await provider.Grant.find(grantId) : undefined) ??
    new provider.Grant({ accountId: session!.accountId, clientId: String(params.client_id) });
  const details = prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
  if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(details.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  return grant.save();
}

function page(res: ServerResponse, status: number, prompt: string, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(
    `<!doctype html>\n<html><head><meta charset="utf-8"><title>Test authorization server</title></head>` +
      `<body data-prompt="${prompt}">\n${body}\n</body></html>`,
  );
}

function html(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}
