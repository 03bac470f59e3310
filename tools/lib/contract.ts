// The contract's build steps: lint the source, bundle, lint the bundle. Shared by build, lint, docs, mock,
// start and the tests, so they all build the same way.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { bin, bundledJson, bundledYaml, root, specDist, specSource } from './paths.ts';
import { writePrismDocument } from './prism-document.ts';
import { runTool, step, StepError } from './steps.ts';
import { withSources } from './spectral-sources.ts';
import { recordSources } from './stale-build.ts';

export function redoclyLint(source = specSource): Promise<string> {
  // Named by its file: the workflows lint several, one step each.
  return runTool(`redocly lint ${source === specSource ? '(source)' : relative(root, source)}`, bin('redocly'), ['lint', source, '--format=stylish']);
}

export async function bundle(source = specSource, outYaml = bundledYaml, outJson = bundledJson): Promise<void> {
  mkdirSync(specDist, { recursive: true });
  await runTool('redocly bundle', bin('redocly'), ['bundle', source, '-o', outYaml]);
  await step('write openapi.json', () => {
    writeFileSync(outJson, `${JSON.stringify(parse(readFileSync(outYaml, 'utf8')), null, 2)}\n`);
  });
}

/** Spectral on the bundle; each finding also names the source file and line under `source` (the document `target` was bundled from). */
export async function spectralLint(target = bundledYaml, ruleset?: string, source = specSource): Promise<string> {
  const args = ['lint', target, '--fail-severity=warn', '--format=stylish'];
  if (ruleset) args.push('--ruleset', ruleset);
  try {
    return await runTool('spectral lint (bundle: oas, owasp, our rules)', bin('spectral'), args);
  } catch (err) {
    throw err instanceof StepError ? new StepError(err.step, withSources(err.output, source)) : err;
  }
}

export const layoutRuleset = join(root, '.spectral-layout.yaml');

interface SpectralDiagnostic {
  code: string | number;
  message: string;
  source?: string;
  range: { start: { line: number; character: number } };
}

/**
 * Spectral with .spectral-layout.yaml over the source files as written (every .yaml under openapi/): path files,
 * error examples from the catalog folder, explicit openness. Spectral also parses the markdown guides the
 * root `$ref`s for descriptions as YAML and reports them as `parser` errors: those, and only those, are not
 * findings. `dir` is the source folder (a test lints a changed copy).
 */
export function layoutLint(dir = join(root, 'openapi')): Promise<void> {
  return step('spectral lint (source layout)', () => {
    const run = spawnSync(bin('spectral'), ['lint', join(dir, '**', '*.yaml'), '--ruleset', layoutRuleset, '--format=json', '--quiet'], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      timeout: 300_000,
    });
    let diagnostics: SpectralDiagnostic[];
    try {
      diagnostics = JSON.parse(run.stdout || '[]') as SpectralDiagnostic[];
    } catch {
      throw new StepError('spectral lint (source layout)', `${run.stdout}${run.stderr}`);
    }
    const findings = diagnostics.filter((d) => !(d.code === 'parser' && d.source?.endsWith('.md')));
    if (findings.length > 0) {
      const lines = findings.map((d) => `${relative(root, d.source ?? '?')}:${d.range.start.line + 1}:${d.range.start.character + 1}  ${d.code}  ${d.message}`);
      throw new StepError('spectral lint (source layout)', lines.join('\n'));
    }
  });
}

/** Lint, bundle, lint, and the document Prism serves: what every task that needs the bundled document runs first. */
export async function buildContract(): Promise<void> {
  await layoutLint();
  await redoclyLint();
  await bundle();
  recordSources(); // what the bundle was made from: a test run or the gate after an edit says to build again (stale-build.ts)
  await spectralLint();
  await writePrismDocument();
}
