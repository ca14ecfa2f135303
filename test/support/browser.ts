import { type Browser, chromium } from 'playwright-core';

/** Debian's chromium (scripts/ensure-chromium.sh installs it before the tests); playwright-core downloads none. */
const CHROMIUM = '/usr/bin/chromium';

/** A headless chromium with a fresh profile of its own, that reaches nothing but the pages a test opens. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
