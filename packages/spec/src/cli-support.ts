// What every command of the packages (payments-sandbox, payments-contract-kit, payments-mock) does first:
// stop at once on a Node line the packages do not support, with a message naming the lines they need. Node 20
// ended in April 2026 and lacks what the commands use (node:sqlite, import.meta.main): without this check a
// command there crashed, or printed nothing and exited 0, and a CI step "passed". Also the port parsing the
// commands and the repository's tasks share.

/** The Node lines the packages support, as `engines.node` says in every package.json. */
export const SUPPORTED_NODE = '^22.13 || ^24 || >=26';
const SUPPORTED_LINES = 'Node 22 (22.13 or later), 24 or 26';

/** Whether a Node version (`process.versions.node`) is one the packages support. */
export function isSupportedNode(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return (major === 22 && minor >= 13) || major === 24 || major >= 26;
}

/**
 * Exits (code 1) with a message naming the supported lines when this Node is not one of them. `narrower`: a
 * package that needs less of them (the mock: Prism's Node 24.18), named in the message instead (QA: the mock on
 * Node 20 quoted 22.13, then refused 22 too).
 */
export function requireSupportedNode(command: string, narrower?: { lines: string; engines: string; supports(version: string): boolean }, version: string = process.versions.node): void {
  if (isSupportedNode(version) && (narrower?.supports(version) ?? true)) return;
  process.stderr.write(`${command}: Node ${version} is not supported; it needs ${narrower?.lines ?? SUPPORTED_LINES} (engines: "${narrower?.engines ?? SUPPORTED_NODE}").\n`);
  process.exit(1);
}

/** Reads a port from a CLI flag or env value: an integer 0–65535, or `fallback` when absent. */
export function parsePort(value: string | undefined, fallback: number, what: string): number {
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${what} must be a port number (0–65535), got "${value}"`);
  return port;
}
