// The workflows catch bugs: against the kit's mutant sandboxes (test/mutants/: the real sandbox behind a proxy with
// one injected defect), each workflow that covers a defect fails at the step and criterion named here, and the
// unmodified sandbox behind the same proxy passes. The rows are what bench/workflow-mutants.ts measured (every
// workflow against every mutant: 35 of 56 mutants caught, 34 of the 48 the spec makes visible; the table is in
// bench/WORKFLOW-MUTANTS.md); each row runs its one workflow, to keep the test time moderate.
import { describe, expect, it } from 'vitest';
import { workflowsAgainst } from '../bench/workflow-mutants.ts';
import { renderWorkflowSummary } from '../src/workflows/report.ts';
import { MUTANTS } from './mutants/registry.ts';

interface Row {
  mutant: string;
  workflowId: string;
  stepId: string;
  /** The failed criterion's condition, or Respect's own check (`schema check`, `content-type check`). */
  criterion: string;
}

export const WORKFLOW_CATCHES: Row[] = [
  { mutant: "transfer-created-200", workflowId: "pix-payout", stepId: "createTransfer", criterion: "$statusCode == 201" },
  { mutant: "transfer-not-found-410", workflowId: "transfer-not-found", stepId: "getUnknownTransfer", criterion: "$statusCode == 404" },
  { mutant: "transfer-status-outside-enum", workflowId: "pix-payout", stepId: "createTransfer", criterion: "$[?@.status == 'pending' || @.status == 'completed' || @.status == 'failed' || @.status == 'cancelled']" },
  { mutant: "recipient-without-nickname", workflowId: "pix-payout", stepId: "createRecipient", criterion: "schema check" },
  { mutant: "lookup-drops-id", workflowId: "pix-payout", stepId: "getTransfer", criterion: "$response.body#/id == $steps.createTransfer.outputs.transferId" },
  { mutant: "lookup-other-amount", workflowId: "pix-payout", stepId: "getTransfer", criterion: "$response.body#/amount == $inputs.amount" },
  { mutant: "transfer-amount-3-decimals", workflowId: "pix-payout", stepId: "getTransfer", criterion: "$response.body#/amount == $steps.createTransfer.outputs.amount" },
  { mutant: "product-text-plain", workflowId: "product-disabled", stepId: "checkoutOn", criterion: "content-type check" },
  { mutant: "error-without-request-id", workflowId: "product-disabled", stepId: "checkoutOff", criterion: "schema check" },
  { mutant: "pricing-conflict-code-generic", workflowId: "checkout-pricing-conflict", stepId: "amountAndDiscount", criterion: "$response.body#/code == 'checkout_session_pricing_conflict'" },
  { mutant: "replay-new-resource", workflowId: "card-provider-rate-limited", stepId: "replaySameKey", criterion: "$response.body#/id == $steps.issueAgainSameKey.outputs.cardId" },
  { mutant: "conflict-ignored", workflowId: "transfer-key-conflict", stepId: "sameKeyOtherAmount", criterion: "$statusCode == 409" },
  { mutant: "recipient-id-unusable", workflowId: "pix-payout", stepId: "createTransfer", criterion: "$statusCode == 201" },
  { mutant: "rate-limited-no-retry-after", workflowId: "card-provider-rate-limited", stepId: "issueRateLimited", criterion: "$response.header.Retry-After == $inputs.retryAfterSeconds" },
  { mutant: "retry-after-fraction", workflowId: "card-provider-rate-limited", stepId: "issueRateLimited", criterion: "$response.header.Retry-After == $inputs.retryAfterSeconds" },
  { mutant: "pending-review-as-503", workflowId: "transfer-pending-review", stepId: "transferUnderReview", criterion: "$statusCode == 409" },
  { mutant: "unavailable-retry-refused", workflowId: "transfer-503-retry", stepId: "retrySameKey", criterion: "$statusCode == 201" },
  { mutant: "recipient-not-found-400", workflowId: "transfer-to-unknown-recipient", stepId: "transferToUnknownRecipient", criterion: "$statusCode == 404" },
  { mutant: "lookup-500", workflowId: "transfer-not-found", stepId: "getUnknownTransfer", criterion: "$statusCode == 404" },
  { mutant: "everything-503", workflowId: "card-provider-rate-limited", stepId: "issueRateLimited", criterion: "$response.body#/code == 'provider_rate_limited'" },
  { mutant: "foreign-transfer-visible", workflowId: "foreign-transfer-not-found", stepId: "lookupByOther", criterion: "$statusCode == 404" },
  { mutant: "rail-unsupported-generic", workflowId: "recipient-rules", stepId: "unsupportedRail", criterion: "$response.body#/code == 'recipient_rail_unsupported'" },
  { mutant: "deactivated-recipient-accepted", workflowId: "inactive-recipient-not-found", stepId: "payWhileInactive", criterion: "$statusCode == 404" },
  { mutant: "unknown-key-accepted", workflowId: "revoked-key", stepId: "revokedKeyRefused", criterion: "$statusCode >= 400" },
  { mutant: "edge-502-json", workflowId: "transfer-edge-retry", stepId: "transferMeets502", criterion: "$response.header.content-type != 'application/json' && $response.header.content-type != 'application/json; charset=utf-8'" },
  { mutant: "conflict-other-recipient-ignored", workflowId: "transfer-key-conflict", stepId: "sameKeyOtherRecipient", criterion: "$statusCode == 409" },
  { mutant: "invalid-input-500", workflowId: "recipient-rules", stepId: "unsupportedRail", criterion: "$statusCode == 400" },
  { mutant: "unauthorized-html", workflowId: "revoked-key", stepId: "revokedKeyRefused", criterion: "$[?@.error && @.code && @.requestId]" },
  { mutant: "edge-502-retry-duplicates", workflowId: "transfer-edge-retry", stepId: "retryAfter502", criterion: "$[?!@.idempotencyKey || @.idempotencyKey == {$request.header.Idempotency-Key}]" },
  { mutant: "edge-502-json-charset", workflowId: "transfer-edge-retry", stepId: "transferMeets502", criterion: "$response.header.content-type != 'application/json' && $response.header.content-type != 'application/json; charset=utf-8'" },
  { mutant: "session-key-reuse-updates-amount", workflowId: "checkout-session-key-reuse", stepId: "otherAmountSameKey", criterion: "$response.body#/amount == $steps.firstSession.outputs.amount" },
  { mutant: "recipient-key-reuse-creates", workflowId: "recipient-rules", stepId: "otherRequestCreatedNothing", criterion: "$statusCode >= 200 && $statusCode < 300" },
  { mutant: "unauthorized-429", workflowId: "revoked-key", stepId: "revokedKeyRefused", criterion: "$statusCode != 429" },
  { mutant: "cards-access-code-swapped", workflowId: "product-disabled", stepId: "cardsOff", criterion: "$response.body#/code == 'cards_api_access_not_enabled'" },
];

describe('workflows against mutant sandboxes', () => {
  it('the unmodified sandbox behind the proxy passes every workflow', { timeout: 120_000 }, async () => {
    const { report, errors } = await workflowsAgainst(undefined);
    expect(errors).toEqual([]);
    expect(report.verdict, renderWorkflowSummary(report)).toBe('passed');
  });

  it('every row names a mutant the spec makes visible', () => {
    for (const row of WORKFLOW_CATCHES) expect(MUTANTS.find((m) => m.name === row.mutant)?.visible, row.mutant).toBe(true);
  });

  it('a server differing only from what the spec assumes (recipients created 200) passes, with the warnings counted and their reason', { timeout: 60_000 }, async () => {
    const mutant = MUTANTS.find((m) => m.name === 'recipient-created-200')!;
    expect(mutant.visible).not.toBe(true);
    const { report, errors } = await workflowsAgainst(mutant, ['pix-payout']);
    expect(errors).toEqual([]);
    expect(report.verdict, renderWorkflowSummary(report)).toBe('passed');
    expect(report.totals.warnings).toBeGreaterThan(0);
    const warning = report.results[0]!.steps.find((s) => s.stepId === 'createRecipient')!.warnings[0]!;
    expect(warning.assumedReason).toMatch(/recipient creation/);
    expect(renderWorkflowSummary(report)).toMatch(/Warnings \(the answers differ only from what the spec assumes[\s\S]*assumed by the spec, not stated by the provider/);
  });

  it("every mutant the kit's checks miss has a workflow that catches it", () => {
    for (const m of MUTANTS.filter((x) => x.kitMisses)) expect(WORKFLOW_CATCHES.some((row) => row.mutant === m.name), m.name).toBe(true);
  });

  for (const row of WORKFLOW_CATCHES) {
    it(`${row.mutant} is caught by ${row.workflowId} at ${row.stepId}: ${row.criterion}`, { timeout: 60_000 }, async () => {
      const { report, catches, errors } = await workflowsAgainst(MUTANTS.find((m) => m.name === row.mutant), [row.workflowId]);
      expect(errors, 'the mutant itself crashed').toEqual([]);
      expect(catches, renderWorkflowSummary(report)).toEqual([{ workflowId: row.workflowId, stepId: row.stepId, criterion: row.criterion }]);
      // The summary names the step and the criterion, and what the answer held for the criterion's references.
      const summary = renderWorkflowSummary(report);
      expect(summary).toContain(`step ${row.stepId}`);
      if (/\$statusCode|\$response\./.test(row.criterion) || row.criterion.startsWith('$[?')) expect(summary).toMatch(/\n {8}seen: \$(statusCode|response)/);
    });
  }
});
