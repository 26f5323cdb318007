import type { Browser, HTTPResponse, Page } from 'puppeteer-core';

// Consent drivers: a user agent that opens an authorization URL (directly the authorization server's, or
// e.g. a gateway URL that redirects there), signs in as `user` on the test authorization server's login
// page (./interactions.ts), allows (or denies) on its consent page, and follows the redirects to the
// client's redirect_uri. Both answer the final response: what the redirect_uri (or an error page) said.

export interface ConsentOptions {
  /** The user name to sign in with: the `sub` of the tokens the authorization yields. */
  user: string;
  /** Deny on the consent page (signing in first): the redirect_uri gets `error=access_denied`. */
  deny?: boolean;
}

/** The last response of the flow: the redirect_uri's answer, or a page that was neither form nor redirect. */
export interface ConsentResult {
  status: number;
  url: string;
  body: string;
}

/** Interaction pages are marked `<body data-prompt="login|consent">`. */
const PROMPT = /<body[^>]*\bdata-prompt="(login|consent)"/;
const MAX_STEPS = 20;

/**
 * Completes the flow with plain `fetch` (manual redirects, a per-host cookie jar), submitting the
 * interaction forms as a browser would. `stopAt`: a URL prefix (e.g. the redirect_uri) whose response is
 * returned even if it redirects further.
 */
export async function consentByHttp(
  url: string,
  options: ConsentOptions & { stopAt?: string },
): Promise<ConsentResult> {
  const jar = new CookieJar();
  let next: { url: URL; form?: URLSearchParams } = { url: new URL(url) };
  for (let step = 0; step < MAX_STEPS; step++) {
    const { url: at, form } = next;
    const headers: Record<string, string> = { cookie: jar.header(at) };
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(at, { method: form ? 'POST' : 'GET', body: form, headers, redirect: 'manual' });
    jar.store(at, res.headers.getSetCookie());
    const location = res.headers.get('location');
    const stop = options.stopAt !== undefined && at.href.startsWith(options.stopAt);
    if (res.status >= 300 && res.status < 400 && location && !stop) {
      await res.body?.cancel();
      next = { url: new URL(location, at) };
      continue;
    }
    const body = await res.text();
    const prompt = stop ? undefined : PROMPT.exec(body)?.[1];
    if (!prompt) return { status: res.status, url: at.href, body };
    const chosen = prompt === 'consent' && options.deny ? 'deny' : 'approve';
    const submitted = formById(body, chosen);
    if (!submitted) throw new Error(`no form #${chosen} on the ${prompt} page at ${at.href}`);
    if (prompt === 'login' && chosen === 'approve') submitted.fields.set('login', options.user);
    next = { url: new URL(submitted.action, at), form: submitted.fields };
  }
  throw new Error(`consent flow from ${url} took more than ${MAX_STEPS} steps`);
}

/**
 * Completes the flow in a fresh incognito context of a headless Chromium (see ../browser.ts): types the
 * user name, clicks the buttons, and waits for each navigation; closes the context afterwards.
 */
export async function consentByBrowser(
  browser: Browser,
  url: string,
  options: ConsentOptions & { timeoutMs?: number },
): Promise<ConsentResult> {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(options.timeoutMs ?? 10_000);
    return await completeConsent(page, await page.goto(url), options);
  } finally {
    await context.close();
  }
}

/**
 * Completes login and consent on a page already at the authorization server (e.g. a tab the status
 * page's Connect opened), from its `response`; resolves with where the flow ended.
 */
export async function completeConsent(
  page: Page,
  response: HTTPResponse | null,
  options: ConsentOptions,
): Promise<ConsentResult> {
  let last = response;
  for (let step = 0; step < MAX_STEPS; step++) {
    const prompt = await page.$eval('body', (el) => el.getAttribute('data-prompt')).catch(() => null);
    if (prompt === 'login') {
      await page.type('#user', options.user);
      last = await clickAndWait(page, '#approve-button');
    } else if (prompt === 'consent') {
      last = await clickAndWait(page, options.deny ? '#deny-button' : '#approve-button');
    } else {
      const body = await page.$eval('body', (el) => el.textContent ?? '');
      return { status: last?.status() ?? 0, url: page.url(), body };
    }
  }
  throw new Error(`consent flow at ${page.url()} took more than ${MAX_STEPS} steps`);
}

async function clickAndWait(page: Page, selector: string): Promise<HTTPResponse | null> {
  const [response] = await Promise.all([page.waitForNavigation(), page.click(selector)]);
  return response;
}

/** The action and the hidden/prefilled fields of `<form id="…">`. */
function formById(html: string, id: string): { action: string; fields: URLSearchParams } | undefined {
  for (const [, attrs = '', inner = ''] of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    if (attr(attrs, 'id') !== id) continue;
    const fields = new URLSearchParams();
    for (const [, input = ''] of inner.matchAll(/<input\b([^>]*)>/g)) {
      const name = attr(input, 'name');
      if (name !== undefined) fields.set(name, attr(input, 'value') ?? '');
    }
    return { action: attr(attrs, 'action') ?? '', fields };
  }
  return undefined;
}

function attr(attrs: string, name: string): string | undefined {
  const value = new RegExp(`\\b${name}="([^"]*)"`).exec(attrs)?.[1];
  return value?.replace(/&#(\d+);|&amp;|&quot;|&lt;|&gt;/g, (entity, code?: string) =>
    code ? String.fromCharCode(Number(code)) : (ENTITIES[entity] ?? entity),
  );
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&quot;': '"', '&lt;': '<', '&gt;': '>' };

/** Cookies per host (paths and expiry dates ignored, except deletions): enough for one user agent's flow. */
class CookieJar {
  readonly #hosts = new Map<string, Map<string, string>>();

  header(url: URL): string {
    const cookies = this.#hosts.get(url.host) ?? new Map<string, string>();
    return [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  store(url: URL, setCookies: string[]): void {
    const cookies = this.#hosts.get(url.host) ?? new Map<string, string>();
    this.#hosts.set(url.host, cookies);
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const expired = attributes.some((a) => {
        const [key = '', value = ''] = a.trim().split('=');
        if (key.toLowerCase() === 'max-age') return Number(value) <= 0;
        return key.toLowerCase() === 'expires' && Date.parse(value) <= Date.now();
      });
      if (expired) cookies.delete(name);
      else cookies.set(name, pair.slice(eq + 1).trim());
    }
  }
}
