// The demo organization lives in the sandbox package (payments-sandbox prints it too); re-exported for the
// repository's tasks, tests and benches.
export { DEMO_NAME, demoOrganization } from '../../packages/sandbox/src/demo-organization.ts';
