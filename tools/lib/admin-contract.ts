// The sandbox's admin document (openapi-admin/): lint the source, bundle it into @payments/spec (dist/admin-openapi.*), lint the
// bundle with the admin ruleset. The same steps as the public contract (contract.ts), other paths and rules.
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { bundle, redoclyLint, spectralLint } from './contract.ts';
import { root } from './paths.ts';
import { log } from './steps.ts';

export const adminSpecSource = join(root, 'openapi-admin', 'openapi.yaml');
export const adminSpecDist = join(root, 'packages', 'spec', 'dist'); // shipped by @payments/spec with the public document
export const adminBundledYaml = join(adminSpecDist, 'admin-openapi.yaml');
export const adminBundledJson = join(adminSpecDist, 'admin-openapi.json');
export const adminSpectralRuleset = join(root, '.spectral-admin.yaml');

/**
 * Redocly lint of openapi-admin/ → bundle to packages/sandbox/dist/admin-openapi.{yaml,json} → Spectral lint of
 * the bundle with .spectral-admin.yaml. Throws StepError (the linter's own message) on the first failure. `out`
 * moves the bundle elsewhere (the tests lint into a temporary folder, leaving dist/ to the build).
 */
export async function lintAdminSpec(out: { yaml: string; json: string } = { yaml: adminBundledYaml, json: adminBundledJson }): Promise<void> {
  log('the admin API document (openapi-admin/):');
  await redoclyLint(adminSpecSource);
  mkdirSync(dirname(out.yaml), { recursive: true });
  mkdirSync(dirname(out.json), { recursive: true });
  await bundle(adminSpecSource, out.yaml, out.json);
  await spectralLint(out.yaml, adminSpectralRuleset, adminSpecSource);
}
