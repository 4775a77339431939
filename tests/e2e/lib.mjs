// Shared by qpath's browser checks (e2e.mjs, perf.mjs): start the dist server as a child process on a free port and
// stop it by its PID; launch Debian's Chromium through playwright-core (never a downloaded browser).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, '../..');

/** Starts `node serve-dist.mjs dir ...flags`; resolves to { url, pid, log, stop() } once it printed its port. */
export function startServer(dir = path.join(repo, 'dist'), flags = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(here, 'serve-dist.mjs'), dir, ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
    const log = [];
    child.stderr.on('data', (d) => log.push(...d.toString().split('\n').filter(Boolean)));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`dist server exited early (${code}): ${log.join('\n')}`)));
    child.stdout.once('data', (d) => {
      const port = /port (\d+)/.exec(d.toString())?.[1];
      if (!port) return reject(new Error(`dist server said ${d}`));
      child.removeAllListeners('exit');
      resolve({
        url: `http://127.0.0.1:${port}`,
        pid: child.pid,
        log,
        stop: () => new Promise((done) => {
          if (child.exitCode !== null) return done();
          child.once('exit', done);
          process.kill(child.pid, 'SIGTERM');
        }),
      });
    });
  });
}

export const CHROMIUM = process.env.QPATH_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

export function launchChromium(extra = {}) {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, ...extra });
}
