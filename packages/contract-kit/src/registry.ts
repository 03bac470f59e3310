// Every check of the kit, listed in one place: an id (what --checks and the config select), what it applies
// to (an operation predicate and the target capabilities it needs), the provider rule or Schemathesis check
// it corresponds to, and its run function. A check whose capability the target lacks is not run and the
// report says why (notApplicable); a check that was run but could not establish its outcome is `skipped`,
// which fails the run unless --allow-skips.
import type { CapabilityName } from './capabilities.ts';
import type { KitContext } from './context.ts';
import { mutationKinds } from './mutate.ts';
import { AUTH_PROBES, authProbe } from './probes/auth.ts';
import { revokedKeyProbe } from './probes/revoked.ts';
import { CONFLICT_CODE, conflictProbe, identityOf, replayProbe, uniquenessCodes, uniqueFieldsProbe } from './probes/stateful.ts';
import { invalidRequestsCheck, propertySeed, validRequestsCheck } from './properties.ts';
import type { OperationModel } from './spec-model.ts';
import type { CheckResult, RunOptions } from './types.ts';
import { coverageCheck } from './phases/coverage.ts';
import { chainCheck, chainApplies } from './probes/chain.ts';
import { isolationCheck } from './probes/isolation.ts';
import { corsProbe } from './probes/cors.ts';
import { concurrentKeyProbe } from './probes/concurrent.ts';
import { faultsCheck, faultsApply } from './probes/faults.ts';
import { orgStatesApply, orgStatesCheck } from './probes/org-states.ts';
import { bodyLimitProbe } from './probes/limits.ts';
import { rateLimitApplies, rateLimitProbe } from './probes/rate-limit.ts';

export interface CheckEnv {
  options: RunOptions;
  /** The operations of this run (--operations). */
  selected: OperationModel[];
  /** The seed of one check of one operation: the run's seed mixed with `op/check`. */
  seed(op: OperationModel, checkId: string): number;
  /** Per-property time budget. */
  timeLimitMs: number;
}

export interface CheckDefinition {
  id: string;
  /** What it asserts, one line (the JUnit testcase name). */
  title: string;
  /** The provider's rule (section of the prose document) or the Schemathesis check it corresponds to. */
  corresponds: string;
  /** Capabilities of the target the check cannot run without. */
  needs: CapabilityName[];
  appliesTo(op: OperationModel, ctx: KitContext, env: CheckEnv): boolean;
  run(ctx: KitContext, op: OperationModel, env: CheckEnv): Promise<CheckResult | undefined>;
}

/** The checks that generate `--runs` requests per operation (fast-check properties). */
export const PROPERTY_CHECKS: readonly string[] = ['valid', 'invalid'];

const property = (env: CheckEnv, op: OperationModel, id: (typeof PROPERTY_CHECKS)[number]) => ({ seed: env.seed(op, id), runs: env.options.runs, timeLimitMs: env.timeLimitMs });

/** The first read without path parameters: where once-per-run probes go. */
const firstRead = (env: CheckEnv) => env.selected.find((o) => o.method === 'GET' && o.pathParams.length === 0) ?? env.selected[0];

export const CHECKS: CheckDefinition[] = [
  {
    id: 'coverage',
    title: 'every constraint violated once, every documented boundary hit (deterministic)',
    corresponds: "Schemathesis' coverage phase (`--phases coverage`) with `negative_data_rejection` and `positive_data_acceptance`; x-error-code per constraint (provider section 7)",
    needs: [],
    appliesTo: (op) => op.body !== undefined || op.idempotencyKey !== undefined,
    run: (ctx, op) => coverageCheck(ctx, op),
  },
  {
    id: 'valid',
    title: 'valid generated requests are accepted and conform',
    corresponds: 'Schemathesis `not_a_server_error`, `status_code_conformance`, `content_type_conformance`, `response_schema_conformance`, `response_headers_conformance`, `positive_data_acceptance`',
    needs: [],
    appliesTo: () => true,
    run: (ctx, op, env) => validRequestsCheck(ctx, op, property(env, op, 'valid')),
  },
  {
    id: 'invalid',
    title: 'mutated requests get a 4xx with the error body',
    corresponds: 'Schemathesis `negative_data_rejection`; provider section 7 (the shared error body)',
    needs: [],
    appliesTo: (op, ctx) => mutationKinds(ctx, op).length > 0,
    run: (ctx, op, env) => invalidRequestsCheck(ctx, op, property(env, op, 'invalid'), []),
  },
  ...AUTH_PROBES.map(
    (probe): CheckDefinition => ({
      id: probe.slug,
      title: probe.name,
      corresponds: 'Schemathesis `ignored_auth`; provider section 5 (the `x-api-key` header only)',
      needs: probe.needsKeyLookup ? ['keyLookup'] : [],
      appliesTo: (op) => op.secured,
      run: (ctx, op, env) => authProbe(ctx, op, probe, env.seed(op, probe.slug)),
    }),
  ),
  {
    id: 'auth-revoked-key',
    title: 'refuses a revoked key on the very next request',
    corresponds: 'Schemathesis `ignored_auth`; provider section 5 (a revoked key stops working)',
    needs: ['keyLookup', 'admin'],
    appliesTo: (op, _ctx, env) => op === firstRead(env) && op.secured,
    run: (ctx, op, env) => revokedKeyProbe(ctx, op, env.seed(op, 'revoked')),
  },
  {
    id: 'idempotent-replay',
    title: 'an idempotent replay returns the original status and body, and repeats nothing (each parameterless read, the balance, unchanged)',
    corresponds: 'provider section 7, Idempotency rules 3–4 (no Schemathesis check)',
    needs: ['stateful'],
    appliesTo: (op) => op.method === 'POST' && op.idempotencyKey !== undefined,
    run: (ctx, op) => replayProbe(ctx, op),
  },
  {
    id: 'unique-fields',
    title: "a new key repeating a unique field of an existing resource gets that field's 409 code",
    corresponds: 'provider sections 2 and 7 (recipient_nickname_already_exists among active external recipients, recipient_already_exists for a PIX key)',
    needs: ['stateful'],
    appliesTo: (op) => uniquenessCodes(op).length > 0,
    run: (ctx, op) => uniqueFieldsProbe(ctx, op),
  },
  {
    id: 'idempotency-conflict',
    title: `the same key with another part of the payment's identity: ${CONFLICT_CODE} (transfers) or the original response (checkout sessions)`,
    corresponds: 'provider section 7, Idempotency rule 4 (transfers: recipient, amount); section 4, further rule 3 (sessions: amount, discountPercent, payment method)',
    needs: ['stateful'],
    appliesTo: (op, ctx) => identityOf(ctx, op) !== undefined,
    run: (ctx, op) => conflictProbe(ctx, op),
  },
  {
    id: 'concurrent-key',
    title: 'parallel requests with one Idempotency-Key make one resource with identical bodies',
    corresponds: 'provider section 7, Idempotency rule 3 (the action is not repeated); no Schemathesis check',
    needs: ['stateful'],
    appliesTo: (op) => op.method === 'POST' && op.idempotencyKey !== undefined,
    run: (ctx, op) => concurrentKeyProbe(ctx, op),
  },
  {
    id: 'resource-chain',
    title: 'created resources are read back through the spec’s links and match',
    corresponds: 'Schemathesis `ensure_resource_availability` over OpenAPI links (the API deletes nothing, so `use_after_free` has no counterpart); provider sections 2 and 4',
    needs: ['stateful'],
    appliesTo: (op, ctx) => chainApplies(ctx, op),
    run: (ctx, op) => chainCheck(ctx, op),
  },
  {
    id: 'isolation',
    title: 'a second organization sees nothing of the first',
    corresponds: 'provider sections 1 and 5 (the organization comes from the key), 7 (`banking_transfer_not_found` for a foreign transfer)',
    needs: ['stateful', 'otherOrganization'],
    appliesTo: (op, ctx) => chainApplies(ctx, op),
    run: (ctx, op) => isolationCheck(ctx, op),
  },
  {
    id: 'cors',
    title: 'no Access-Control-Allow-Origin on any answer, a preflight is not granted',
    corresponds: 'provider sections 1 and 5 rule 7 (browser CORS is off); no Schemathesis check',
    needs: ['ownCors'],
    appliesTo: () => true,
    run: (ctx, op, env) => corsProbe(ctx, op, env.seed(op, 'cors')),
  },
  {
    id: 'faults',
    title: 'every documented provider state is answered as documented (503 + Retry-After, pending review, edge 502/504)',
    corresponds: 'provider sections 3 and 7 (temporary 503, pending review, `provider_rate_limited` with `Retry-After`); Schemathesis `status_code_conformance` on states it cannot reach',
    needs: ['stateful', 'admin'],
    appliesTo: (op, ctx) => faultsApply(ctx, op),
    run: (ctx, op, env) => faultsCheck(ctx, op, env.seed(op, 'faults')),
  },
  {
    id: 'organization-states',
    title: 'each documented organization state gets its documented answer (403 per product, card terms, checkout PIX, wallet recipients, an inactive recipient)',
    corresponds: 'provider section 5 rule 6 (403 with the product code), section 7 (authorized_user_terms_required, checkout_pix_not_available, wallet_transfers_not_enabled, wallet_recipient_required), section 4 further rule 2 (recipient_not_found)',
    needs: ['stateful', 'admin'],
    appliesTo: (op, ctx) => orgStatesApply(ctx, op),
    run: (ctx, op, env) => orgStatesCheck(ctx, op, env.seed(op, 'organization-states')),
  },
  {
    id: 'body-limit',
    title: 'a 1 MiB body is refused with a 4xx and the error body',
    corresponds: 'provider section 8 (limits; the body limit is not shown, the 413 is assumed); Schemathesis `not_a_server_error`',
    needs: [],
    appliesTo: (op) => op.body !== undefined && op.responses.some((r) => r.status === '413'),
    run: (ctx, op, env) => bodyLimitProbe(ctx, op, env.seed(op, 'body-limit')),
  },
  {
    id: 'rate-limit',
    title: 'past its x-rate-limit a key gets 429 with Retry-After',
    corresponds: 'provider section 8 (600 requests per 15 minutes per key, on the first read; stricter limits on card issuance; the 429 and its headers are not shown, assumed)',
    needs: ['stateful', 'admin'],
    appliesTo: (op, ctx, env) => rateLimitApplies(ctx, op) || (op === firstRead(env) && op.secured),
    run: (ctx, op, env) => rateLimitProbe(ctx, op, env.seed(op, 'rate-limit')),
  },
];

export const CHECK_IDS = CHECKS.map((c) => c.id);

/** The checks to run: all, or those named (unknown ids are a usage error, raised by the caller). */
export function selectChecks(include: string[], exclude: string[]): { checks: CheckDefinition[]; unknown: string[] } {
  const unknown = [...include, ...exclude].filter((id) => !CHECK_IDS.includes(id));
  const chosen = CHECKS.filter((c) => (include.length === 0 || include.includes(c.id)) && !exclude.includes(c.id));
  return { checks: chosen, unknown };
}

export { propertySeed };
