// Headless Chromium for the docs test: Debian's /usr/bin/chromium driven by playwright-core. Browsers are
// never downloaded (`npx playwright install` is not an option here); on a fresh machine where we run as
// root with apt-get, Chromium is installed from Debian's packages, otherwise this fails with the exact
// command to run. It never skips silently.
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type LaunchOptions } from 'playwright-core';

const DEFAULT_PATH = '/usr/bin/chromium';
const APT_GET = '/usr/bin/apt-get';
const UPDATE_TIMEOUT_MS = 5 * 60_000;
const INSTALL_TIMEOUT_MS = 10 * 60_000;
const LOCK_TIMEOUT_S = 120;

/** Start flags that work on this workplace's machines (see the toolchain notes, section "Browser"). */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const HOW_TO_INSTALL =
  'Install Debian\'s Chromium as root (`apt-get update && apt-get install -y chromium`, which provides ' +
  `${DEFAULT_PATH}), or set CHROMIUM_PATH to a Chromium/Chrome executable.`;

const say = (message: string) => process.stderr.write(`[chromium] ${message}\n`);

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Runs a command with output captured; rejects with that output when it fails or exceeds `timeoutMs`. */
function runCaptured(cmd: string, args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk;
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    }, timeoutMs);
    const command = `${cmd} ${args.join(' ')}`;
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`could not run \`${command}\`: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0 && !timedOut) return resolve();
      const why = timedOut ? `timed out after ${timeoutMs / 1000} s` : `exited with ${code ?? signal}`;
      reject(new Error(`\`${command}\` ${why}:\n${output.trim()}`));
    });
  });
}

let pending: Promise<string> | undefined;

/**
 * The path of a Chromium executable: $CHROMIUM_PATH, else /usr/bin/chromium, else (as root, with apt-get)
 * Debian's chromium package installed now. Throws an Error saying how to install it otherwise.
 */
export function ensureChromium(): Promise<string> {
  pending ??= findOrInstall().catch((err: unknown) => {
    pending = undefined;
    throw err;
  });
  return pending;
}

async function findOrInstall(): Promise<string> {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (isExecutable(fromEnv)) return fromEnv;
    throw new Error(`CHROMIUM_PATH is set to ${fromEnv}, which is not an executable file. ${HOW_TO_INSTALL}`);
  }
  if (isExecutable(DEFAULT_PATH)) return DEFAULT_PATH;

  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !existsSync(APT_GET)) {
    const why = !isRoot ? 'not running as root' : 'apt-get is not available';
    throw new Error(`Chromium is required for the docs test but ${DEFAULT_PATH} does not exist (${why}, so it cannot be installed automatically). ${HOW_TO_INSTALL}`);
  }

  say(`${DEFAULT_PATH} not found: installing Debian's chromium package (apt-get update, apt-get install chromium; may take a few minutes)`);
  const started = performance.now();
  try {
    // Wait for a dpkg lock held by another apt run instead of failing at once (bounded by the timeout).
    const lock = ['-o', `DPkg::Lock::Timeout=${LOCK_TIMEOUT_S}`];
    await runCaptured(APT_GET, [...lock, 'update'], UPDATE_TIMEOUT_MS);
    await runCaptured(APT_GET, [...lock, 'install', '-y', '--no-install-recommends', 'chromium'], INSTALL_TIMEOUT_MS);
  } catch (err) {
    throw new Error(`Installing Chromium failed: ${err instanceof Error ? err.message : String(err)}\n${HOW_TO_INSTALL}`);
  }
  if (!isExecutable(DEFAULT_PATH)) {
    throw new Error(`apt-get installed the chromium package but ${DEFAULT_PATH} is still missing. ${HOW_TO_INSTALL}`);
  }
  say(`installed ${DEFAULT_PATH} (${Math.round((performance.now() - started) / 1000)} s)`);
  return DEFAULT_PATH;
}

export interface LaunchedChromium {
  /** A browser context on a fresh, temporary profile. */
  context: BrowserContext;
  executablePath: string;
  userDataDir: string;
  /** Closes the browser and deletes its profile folder. */
  close(): Promise<void>;
}

/** Launches headless Chromium (see CHROMIUM_FLAGS) on a fresh temporary --user-data-dir. */
export async function launchChromium(options: Pick<LaunchOptions, 'timeout'> = {}): Promise<LaunchedChromium> {
  const executablePath = await ensureChromium();
  const userDataDir = mkdtempSync(join(tmpdir(), 'payments-chromium-'));
  const removeProfile = () => rmSync(userDataDir, { recursive: true, force: true, maxRetries: 3 });
  let context: BrowserContext;
  try {
    // Playwright passes `userDataDir` as --user-data-dir (it refuses that flag in `args`).
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath,
      headless: true,
      args: CHROMIUM_FLAGS,
      timeout: options.timeout ?? 30_000,
    });
  } catch (err) {
    removeProfile();
    throw err;
  }
  let closed: Promise<void> | undefined;
  return {
    context,
    executablePath,
    userDataDir,
    close: () =>
      (closed ??= context
        .close()
        .catch(() => undefined)
        .finally(removeProfile)),
  };
}
