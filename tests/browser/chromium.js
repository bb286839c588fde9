// Debian's headless Chromium (/usr/bin/chromium, or $CHROMIUM) for the
// browser tests, driven by puppeteer-core: a profile folder of its own in
// the temp folder, removed by close(), and the flags this machine needs (as
// root: no sandbox; a closed network: no background requests, updates or
// sync). `extraArgs` adds flags (--allow-file-access-from-files, say).
//
//   const {launchChromium} = require('./chromium');
//   const chromium = await launchChromium();
//   try { const page = await chromium.browser.newPage(); ... } finally { await chromium.close(); }
const fs = require('fs');
const os = require('os');
const path = require('path');
const puppeteer = require('puppeteer-core');

async function launchChromium(extraArgs = []) {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-chromium-'));
  let browser;
  try {
    browser = await puppeteer.launch({
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      userDataDir,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
             '--disable-component-update', '--disable-sync', '--no-first-run',
             '--disable-dev-shm-usage', ...extraArgs],
      protocolTimeout: 300000,
    });
  } catch (e) {
    fs.rmSync(userDataDir, {recursive: true, force: true});
    throw e;
  }
  const close = async () => {
    try {
      await browser.close();
    } finally {
      fs.rmSync(userDataDir, {recursive: true, force: true});
    }
  };
  return {browser, close};
}

module.exports = {launchChromium};
