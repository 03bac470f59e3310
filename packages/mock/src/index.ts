// @payments/mock: the Payments API contract mock, and the validating proxy, as consumers run them. Prism serves
// (or proxies to a server, validating both ways) the document derived from the bundled spec (dist/openapi.json:
// the bundle plus a generic first example for Prism's own validation failures, derived by the repository's build) and its validator gets our exact multipleOf (validator-hook.ts),
// so every valid amount is accepted, as a JSON number or a string.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The document Prism serves. */
export const mockDocumentPath = fileURLToPath(new URL('../dist/openapi.json', import.meta.url));
/** Loaded into Prism's process with `--import`. */
export const validatorHookUrl = new URL('./validator-hook.js', import.meta.url).href;
/**
 * Flags of `prism mock` and `prism proxy` beyond the document, port and host. `--cors=false`: Prism's CORS
 * headers (on by default: `Access-Control-Allow-Origin: *`, preflights granted) would let a browser app work
 * against the mock or the proxy and fail against the API, whose browser CORS is off (sections 1 and 5).
 */
export const PRISM_MOCK_FLAGS: readonly string[] = ['--cors=false'];

/** Prism 5.16's own `engines.node`. */
export const PRISM_NODE = { major: 24, minor: 18, text: '>= 24.18' };

export function prismSupports(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > PRISM_NODE.major || (major === PRISM_NODE.major && minor >= PRISM_NODE.minor);
}

export interface MockOptions {
  port: number;
  host: string;
  /** Prism's `--errors`: a request or response that breaks the contract gets an error answer. */
  errors?: boolean;
  /** The server `prism proxy` forwards to (an absolute http(s) URL); `prism mock` when absent. */
  upstream?: string | undefined;
}

/** The Node arguments and environment that run `prism mock` (or `prism proxy`) on the derived document with the hook. */
export function prismInvocation(options: MockOptions, hookUrl: string = validatorHookUrl): { args: string[]; env: Record<string, string> } {
  const prismCli = createRequire(import.meta.url).resolve('@stoplight/prism-cli');
  const mode = options.upstream === undefined ? ['mock', mockDocumentPath] : ['proxy', mockDocumentPath, options.upstream];
  const args = ['--import', hookUrl, prismCli, ...mode, '-h', options.host, '-p', String(options.port), ...PRISM_MOCK_FLAGS];
  if (options.errors) args.push('--errors');
  return { args, env: { NO_COLOR: '1', FORCE_COLOR: '0' } };
}
