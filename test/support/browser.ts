/**
 * Headless Chromium for the browser tests: Debian's package (never a test tool's own download),
 * started with the flags that keep it off the network, and a watcher of what a page requests.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

/** Screenshots go here (git-ignored); created on first use. */
export function artifactPath(name: string): string {
  const dir = path.resolve(__dirname, '..', '..', 'test-artifacts');
  mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}. Install it with \`apt-get install chromium\` ` +
        '(or set CHROMIUM_PATH to a Chromium binary). Never let playwright download a browser.',
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/** data: and blob: URLs never leave the page; everything else must go to the test server. */
export function leavesLoopback(url: string): boolean {
  const parsed = new URL(url);
  if (parsed.protocol === 'data:' || parsed.protocol === 'blob:') return false;
  return parsed.hostname !== '127.0.0.1';
}

/**
 * Records every request of the page, and page errors and CSP refusals (a wrong script hash or a
 * missing CSP source shows up in the console, not as an exception).
 */
export function watchPage(page: Page): { requests: string[]; problems: string[] } {
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  return { requests, problems };
}
