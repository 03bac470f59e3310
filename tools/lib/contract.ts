// The contract's build steps: lint the source, bundle, lint the bundle. Shared by build, lint, docs, mock,
// start and the tests, so they all build the same way.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';
import { bin, bundledJson, bundledYaml, specDist, specSource } from './paths.ts';
import { writePrismDocument } from './prism-document.ts';
import { runTool, step } from './steps.ts';

export function redoclyLint(source = specSource): Promise<string> {
  return runTool('redocly lint (source)', bin('redocly'), ['lint', source, '--format=stylish']);
}

export async function bundle(source = specSource, outYaml = bundledYaml, outJson = bundledJson): Promise<void> {
  mkdirSync(specDist, { recursive: true });
  await runTool('redocly bundle', bin('redocly'), ['bundle', source, '-o', outYaml]);
  await step('write openapi.json', () => {
    writeFileSync(outJson, `${JSON.stringify(parse(readFileSync(outYaml, 'utf8')), null, 2)}\n`);
  });
}

export function spectralLint(target = bundledYaml, ruleset?: string): Promise<string> {
  const args = ['lint', target, '--fail-severity=warn', '--format=stylish'];
  if (ruleset) args.push('--ruleset', ruleset);
  return runTool('spectral lint (bundle: oas, owasp, our rules)', bin('spectral'), args);
}

/** Lint, bundle, lint, and the document Prism serves: what every task that needs the bundled document runs first. */
export async function buildContract(): Promise<void> {
  await redoclyLint();
  await bundle();
  await spectralLint();
  await writePrismDocument();
}
