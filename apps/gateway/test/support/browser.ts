import { existsSync } from 'node:fs';
import type { Cleanup } from '@switchyard/testkit';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/** Debian's `chromium` (CI installs it in .ci/run), or CHROMIUM_PATH; undefined when there is none. */
export const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (path): path is string => path !== undefined && existsSync(path),
);

/** A headless Chromium closed by `cleanup`. */
export async function launchBrowser(cleanup: Cleanup): Promise<Browser> {
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  cleanup.add(() => browser.close());
  return browser;
}

/**
 * Opens the status page at `admin` and signs in with `token`, once the page shows its login form (it is
 * hidden until the first poll answers 401: a click before that finds nothing to click).
 */
export async function signIn(page: Page, admin: string, token: string): Promise<void> {
  await page.goto(admin);
  await page.waitForSelector('#login:not([hidden])');
  await page.type('#token', token);
  await page.click('#login button[type="submit"]');
}

/** The text of the first element `selector` finds. */
export const textOf = (page: Page, selector: string) => page.$eval(selector, (el) => el.textContent ?? '');
