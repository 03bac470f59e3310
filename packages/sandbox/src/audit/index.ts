// The client-rules audit (issue 13, deliver 3), a pure module: from what one organization's clients sent
// and were answered (its journal), the provider's rules they broke. Nothing here touches the store, the
// clock or the network, so the pipeline can record entries however it likes and a test can hand-write them.
//
// The interface, in full:
//
//   const rules = auditRules(loadSpec());            // once: read from the bundled spec (@payments/spec)
//   const entry: JournalEntry = {                    // one per API request, recorded by the pipeline:
//     at, operationId, idempotencyKey,               //   when (the organization's clock), what, the key or null
//     identity: paymentIdentity(operationId, body),  //   what it asks for (canonical text): one key, one identity
//     body,                                          //   the parsed JSON body (for the schema check), or undefined
//     status, code, resourceStatus, retryAfterSeconds, // what was answered (null: nothing of that kind)
//     fault, answered,                               //   the fault applied (or null); whether an answer was sent
//   };                                               //   (never the API key: the journal holds no other header)
//   const findings: Finding[] = auditJournal(entries, rules);   // [] for a client that follows the rules
//   auditJournal(entries, rules, { onePayment: 'createTransfer' }); // the journal holds ONE such payment
//
// Each Finding has `kind`, `rule` (section and words of the provider's document, plus where the spec says
// it), `detail`, `evidence` (the requests: time, key, status, code, fault, answered) and `shouldHave`.
// Entries may come in any order (sorted by `at`, then as given); only POST operations are judged.
//
// A payment is its key: the document never says that two keys with one amount and recipient are one
// payment (two invoices of one amount are two). With `onePayment` (a client-mode scenario asks for exactly
// one) every request of that operation is the one payment, whatever its key, amount or recipient.
//
// What is judged, each from the spec where the spec says it:
//   - with `onePayment`: a new key for the payment after an unknown outcome of the previous key (a 5xx but
//     a code the catalog calls definite, the edge's 502/504 without a body, no answer), or while it is
//     pending review, or after a 201 pending/completed that resolved a temporary 503 (section 3: a duplicate
//     payment);
//   - the same payment sent again sooner than x-retry's minimum after the temporary 503, waits that do not
//     grow over consecutive temporary 503s, or sooner than a Retry-After that a non-assumed, x-retryable
//     code carries (provider_rate_limited);
//   - one key with two payment identities; a payment refused (a 4xx but a rate limit, or a code the catalog
//     marks not x-retryable) sent again and refused the same way again;
//   - a POST without the Idempotency-Key its operation requires; a key or a body the spec's schemas reject.
// `openEnd` says where a journal leaves a payment open (its last answer asks for a retry with the same key).
// Nothing assumed (x-assumed) is held against a client: the 429's Retry-After, for one, is not judged, and a
// schema finding that rests only on x-assumed nodes is a warning (`basis: 'assumed'`) naming them. Every
// Finding has `severity` (failure | warning) and `basis` (document | assumed | scenario).
export { auditJournal, evidence, openEnd, seconds, stamp, type AuditOptions, type Basis, type Evidence, type Finding, type FindingKind, type NewFinding } from './audit.ts';
export { auditJitter, increasedDelays } from './jitter.ts';
export { paymentIdentity, type JournalEntry } from './journal.ts';
export { auditRules, PROVIDER, type AuditRules, type OperationRules, type ProviderRule } from './rules.ts';
export { formatFindings } from './report.ts';
