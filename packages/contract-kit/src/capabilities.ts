// What the target can be asked, as capabilities a check declares it needs, instead of `target === 'prism'`
// branches scattered through the checks. Prism's stateless mock has none of them; a server has all but
// `admin`, which needs --admin-token and an admin API that answers it, and `otherOrganization`, which needs
// that or --other-api-key.
import type { Target } from './context.ts';

export interface Capabilities {
  /** Keeps state: idempotency records, created resources that can be read back (Prism does not). */
  stateful: boolean;
  /** Tells API keys apart by value (Prism only checks that the header is present). */
  keyLookup: boolean;
  /** The sandbox admin API answers the given token: organizations, keys, faults. */
  admin: boolean;
  /** A key of a second organization: --other-api-key, or one the admin API makes. */
  otherOrganization: boolean;
  /** Answers a malformed JSON body (Prism logs it and never answers). */
  answersMalformedJson: boolean;
  /** Checks `multipleOf: 0.01` on JSON numbers with a tolerance (Prism divides in binary floating point). */
  exactDecimals: boolean;
  /** May answer request validation with its own problem+json (Prism), not the API's error body. */
  ownProblemJson: boolean;
  /** Its CORS headers are the API's own (Prism adds its own, its `--cors` option being on by default). */
  ownCors: boolean;
}

export type CapabilityName = keyof Capabilities;

export const CAPABILITY_NAMES: CapabilityName[] = ['stateful', 'keyLookup', 'admin', 'otherOrganization', 'answersMalformedJson', 'exactDecimals', 'ownProblemJson', 'ownCors'];

/** Why a capability is missing, for the note of a check that is not applicable. */
export const MISSING_BECAUSE: Record<CapabilityName, string> = {
  stateful: "the target keeps no state (Prism's stateless mock)",
  keyLookup: "the target does not look keys up (Prism's mock accepts any key value)",
  admin: 'no admin API (needs --admin-token, and the target must answer GET /admin/health with it)',
  otherOrganization: 'no second organization (needs --other-api-key, a key of another organization with the same products, or --admin-token)',
  answersMalformedJson: 'the target never answers a malformed JSON body (Prism)',
  exactDecimals: 'the target divides multipleOf in binary floating point (Prism)',
  ownProblemJson: 'the target answers with the API error body only',
  ownCors: "the target adds CORS headers of its own (plain Prism's --cors, on by default; payments-mock turns it off)",
};

/** `addsCors`: a Prism target adds CORS headers of its own (plain `prism mock`; `payments-mock` does not). */
export function capabilitiesOf(target: Target, admin: boolean, otherKey = false, addsCors = true): Capabilities {
  const server = target === 'server';
  return { stateful: server, keyLookup: server, admin: server && admin, otherOrganization: server && (admin || otherKey), answersMalformedJson: server, exactDecimals: server, ownProblemJson: !server, ownCors: server || !addsCors };
}
