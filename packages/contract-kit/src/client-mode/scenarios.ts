// The named fault scenarios of the client mode (issue 13, deliver 4): what the sandbox does to the one
// payment the client under test is asked to make. Each scenario runs in an organization of its own (its
// own journal and clock), with the faults armed for that organization only. The client reads
// PAYMENTS_SCENARIO and PAYMENTS_OPERATION to know what to do; every answer it meets is documented.

export type ScenarioOperation = 'createTransfer' | 'issueCard' | 'createCheckoutSession';

export interface FaultSpec {
  operationId: ScenarioOperation;
  kind: 'unavailable' | 'pending_review' | 'edge_502' | 'edge_504' | 'drop_after_commit' | 'provider_rate_limited';
  count: number;
  commit?: boolean;
  retryAfterSeconds?: number;
  resolution?: string;
}

export interface Scenario {
  name: string;
  /** What the sandbox does, in a line. */
  title: string;
  /** The one payment the client makes: a transfer to PAYMENTS_RECIPIENT_ID, a card, or a PIX checkout session. */
  operation: ScenarioOperation;
  faults: FaultSpec[];
  /** Organization settings that differ from "every product on, funded" (e.g. checkout PIX not set up). */
  organization?: Record<string, unknown>;
  /** What a client that follows the provider's rules does here. */
  expected: string;
  /**
   * The answer the scenario holds for a retry with the same key: a client that stops while its payment is
   * open (an unknown outcome, a wait to sit out) never asked for it. None where stopping is right (pending
   * review: "Contact support"; PIX not set up: a definite answer).
   */
  retryAnswer?: string;
}

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'transfer-503-then-resolved',
    title: 'a transfer meets one temporary 503, then the retry resolves it',
    operation: 'createTransfer',
    faults: [{ operationId: 'createTransfer', kind: 'unavailable', count: 1, resolution: 'completed' }],
    expected: 'waits at least 60 s, retries with the same key, gets the 201',
    retryAnswer: 'the 201 (transfer completed), answered to a retry with the same key at least 60 s after the 503',
  },
  {
    name: 'transfer-three-503s',
    title: 'a transfer meets three temporary 503s in a row',
    operation: 'createTransfer',
    faults: [{ operationId: 'createTransfer', kind: 'unavailable', count: 3 }],
    expected: 'same key each time, at least 60 s first, then longer waits with jitter',
    retryAnswer: 'the 201, answered to the fourth try with the same key after the three 503s',
  },
  {
    name: 'transfer-edge-502-after-commit',
    title: "the edge answers 502 after the transfer was committed",
    operation: 'createTransfer',
    faults: [{ operationId: 'createTransfer', kind: 'edge_502', count: 1, commit: true }],
    expected: 'retries with the same key and gets the original transfer replayed',
    retryAnswer: 'the committed transfer (201), replayed to a retry with the same key',
  },
  {
    name: 'transfer-504-before-processing',
    title: 'the edge answers 504 before the transfer was processed',
    operation: 'createTransfer',
    faults: [{ operationId: 'createTransfer', kind: 'edge_504', count: 1, commit: false }],
    expected: 'retries with the same key (the outcome was unknown to it)',
    retryAnswer: 'the 201, answered to a retry with the same key (the first attempt was never processed)',
  },
  {
    name: 'transfer-dropped-after-commit',
    title: 'the connection drops after the transfer was committed (no answer)',
    operation: 'createTransfer',
    faults: [{ operationId: 'createTransfer', kind: 'drop_after_commit', count: 1 }],
    expected: 'retries with the same key and gets the original transfer replayed',
    retryAnswer: 'the committed transfer (201), replayed to a retry with the same key',
  },
  {
    name: 'transfer-pending-review',
    title: 'the transfer attempt is pending review (409)',
    operation: 'createTransfer',
    faults: [{ operationId: 'createTransfer', kind: 'pending_review', count: 1, resolution: 'completed' }],
    expected: 'never a new key: stops (or asks again later with the same key)',
  },
  {
    name: 'card-provider-rate-limited',
    title: 'the card provider answers 503 provider_rate_limited with Retry-After: 5',
    operation: 'issueCard',
    faults: [{ operationId: 'issueCard', kind: 'provider_rate_limited', count: 1, retryAfterSeconds: 5 }],
    expected: 'waits the Retry-After, then repeats the request with the same key',
    retryAnswer: 'the card (201), answered to the same request with the same key after the 5 s of Retry-After',
  },
  {
    name: 'checkout-pix-not-set-up',
    title: 'a PIX checkout session while PIX is not set up in the dashboard',
    operation: 'createCheckoutSession',
    faults: [],
    organization: { checkoutPix: false },
    expected: 'does not retry checkout_pix_not_available (a definite answer)',
  },
];

/** The scenarios named in `names` (all when empty), in the order given; an unknown name throws with the list. */
export function pickScenarios(names: readonly string[]): Scenario[] {
  if (!names.length) return [...SCENARIOS];
  return names.map((name) => {
    const found = SCENARIOS.find((s) => s.name === name);
    if (!found) throw new RangeError(`unknown scenario "${name}"; the scenarios are: ${SCENARIOS.map((s) => s.name).join(', ')}`);
    return found;
  });
}
