// The honest-gaps rule lives in @payments/spec (assumptions.ts), shared with the sandbox's client audit: where
// the provider's document is silent the spec makes a conventional choice marked `x-assumed: true`, and a
// mismatch only there is a warning carrying the reason.
export { Assumptions, type Assumption } from '@payments/spec';
