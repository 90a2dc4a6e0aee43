#!/usr/bin/env node
/**
 * Makes sure a Chromium exists for the browser tests: CHROME_PATH, then
 * /usr/bin/chromium, then Playwright's own browser. On a Debian/Ubuntu machine
 * as root with none present it installs the `chromium` package with apt-get;
 * otherwise it stops with a message saying what to do.
 */
import { execSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

function found() {
  const env = process.env.CHROME_PATH;
  if (env) {
    if (existsSync(env)) return env;
    console.error(`CHROME_PATH is set to "${env}", but no file exists there.`);
    process.exit(1);
  }
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) if (existsSync(p)) return p;
  return null;
}

async function playwrightOwn() {
  try {
    const { chromium } = await import('playwright-core');
    const p = chromium.executablePath();
    return p && existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

function isDebianLike() {
  try {
    return /^(ID|ID_LIKE)=.*(debian|ubuntu)/m.test(readFileSync('/etc/os-release', 'utf8'));
  } catch {
    return false;
  }
}

let path = found() ?? (await playwrightOwn());
if (!path && isDebianLike() && process.getuid?.() === 0) {
  console.log('No Chromium found: installing Debian\'s "chromium" package with apt-get…');
  execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium', { stdio: 'inherit' });
  path = found();
}
if (!path) {
  console.error(
    [
      'No Chromium found for the browser tests.',
      'Do one of:',
      '  - install Chromium (Debian/Ubuntu: sudo apt-get install chromium), or',
      '  - set CHROME_PATH to a Chromium or Chrome binary, or',
      '  - where the internet is reachable: npx playwright install chromium',
    ].join('\n'),
  );
  process.exit(1);
}
console.log(`Chromium: ${path}`);
