// @payments/contract-kit: contract tests of a Payments API server against the bundled spec.
export { run, TOOL, UsageError, type RunHooks } from './run.ts';
export { parseCli, HELP, DEFAULT_RUNS, type CliOptions } from './args.ts';
export { renderSummary } from './report/summary.ts';
export { toJson } from './report/json.ts';
export { toJunit } from './report/junit.ts';
export { stderrProgress, silentProgress, type Progress } from './progress.ts';
export { loadApi, type ApiModel, type OperationModel } from './spec-model.ts';
export { createContext, type KitContext, type Target } from './context.ts';
export { checkResponse } from './checks/response.ts';
export { Assumptions } from './assumed.ts';
export type { CheckResult, Finding, Report, RunOptions } from './types.ts';
export { CHECKS, CHECK_IDS, selectChecks, type CheckDefinition, type CheckEnv } from './registry.ts';
export { capabilitiesOf, type Capabilities, type CapabilityName } from './capabilities.ts';
export { KeyPool, rateLimitsOf, type RateLimit } from './pacing.ts';
export type { CoverageRow } from './coverage.ts';
