// Debian's Chromium driven by playwright-core for the console's browser tests: a fresh profile per run,
// nothing from the network (the flags turn off every background request), errors of pages collected.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.MAILROOM_CHROMIUM ?? '/usr/bin/chromium';

export interface Browser {
  context: BrowserContext;
  /** Uncaught page errors and console errors, with the page URL they came from. */
  errors: string[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** `timezoneId`: the browser's time zone (IANA name), for pages that show times in the viewer's zone. */
export async function launchBrowser(o: { timezoneId?: string } = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'mailroom-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    ...(o.timezoneId ? { timezoneId: o.timezoneId } : {}),
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const errors: string[] = [];
  const watch = (page: Page) => {
    page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`${page.url()}: ${m.text()}`);
    });
  };
  context.on('page', watch);
  return {
    context,
    errors,
    async newPage() {
      return context.newPage();
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * `<dir>/<name>-wide.png` (1280 px) and `-narrow.png` (390 px), each the whole page: the viewport is made as
 * tall as the page first, since Chromium does not paint frames (previews) scrolled out of view. The page is
 * left at 1280 x 900.
 */
export async function screenshots(page: Page, dir: string, name: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  for (const [label, width] of [['wide', 1280], ['narrow', 390]] as const) {
    await page.setViewportSize({ width, height: 900 });
    const height = await page.evaluate<number>('document.documentElement.scrollHeight');
    await page.setViewportSize({ width, height: Math.max(900, height) });
    await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
    await page.screenshot({ path: `${dir}/${name}-${label}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** Signs `user` in through the login form and waits until the console has moved off /login. */
export async function signIn(page: Page, baseUrl: string, user: { email: string; password: string }): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => !u.pathname.startsWith('/login'));
}
