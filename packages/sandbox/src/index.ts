// @payments/sandbox: the stateful reference server (startSandbox) and the client-rules audit it feeds
// (the traffic journal's JournalEntry, auditRules, auditJournal, formatFindings).
export { startSandbox, type RunningSandbox, type StartOptions } from './sandbox.ts';
export * from './audit/index.ts';
export { DEFAULT_JOURNAL_CAP } from './pipeline/journal.ts';
