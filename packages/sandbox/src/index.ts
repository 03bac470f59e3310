// @payments/sandbox: the stateful reference server (startSandbox) and the client-rules audit it feeds
// (the traffic journal's JournalEntry, auditRules, auditJournal, formatFindings), and the test values that
// trigger the provider's refusals (TEST_VALUES).
export { startSandbox, type RunningSandbox, type StartOptions } from './sandbox.ts';
export * from './audit/index.ts';
export { DEFAULT_JOURNAL_CAP } from './pipeline/journal.ts';
export { TEST_VALUES, type TestValue } from './test-values.ts';
