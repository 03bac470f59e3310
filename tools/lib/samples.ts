// Docs code samples that cannot rot: each operation has `openapi/samples/<operationId>.ts` (a real module whose
// `run()` test/samples executes against the sandbox) and `openapi/samples/<operationId>.curl.sh` (a curl
// template with $BASE_URL, $API_KEY and placeholders such as $RECIPIENT_ID). The docs show the lines between
// `// sample:start` and `// sample:end` (`# sample:…` in shell; no markers = the whole file), dedented.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { operations, type Json, type JsonObject, type OpenApiDocument } from '@payments/spec';
import { root } from './paths.ts';
import { StepError } from './steps.ts';

export const samplesDir = join(root, 'openapi', 'samples');

export interface CodeSample {
  lang: 'curl' | 'TypeScript';
  label: string;
  source: string;
}

/**
 * The samples' languages, in the order of Redoc's language menu. Redoc shows an `x-codeSamples` entry only
 * when its label (or lang) is in its `codeSamples.languages` setting: tools/lib/docs.ts passes this list.
 */
export const SAMPLE_LANGUAGES = [
  { lang: 'curl', label: 'curl' },
  // Short: Redoc's menu cuts longer labels ("TypeScript (@pay…"); the sample's import names the client.
  { lang: 'TypeScript', label: 'TypeScript' },
] as const satisfies readonly Omit<CodeSample, 'source'>[];

export const samplePaths = (operationId: string) => ({
  curl: join(samplesDir, `${operationId}.curl.sh`),
  typescript: join(samplesDir, `${operationId}.ts`),
});

/** The text between start/end markers (every marked region, in order, dedented); the whole text when unmarked. */
export function extractSample(text: string): string {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const marker = (line: string, what: 'start' | 'end') => new RegExp(`^\\s*(//|#)\\s*sample:${what}\\s*$`).test(line);
  if (!lines.some((line) => marker(line, 'start'))) return text.trim() + '\n';
  const regions: string[][] = [];
  let current: string[] | undefined;
  for (const line of lines) {
    if (marker(line, 'start')) {
      if (current) throw new Error('sample:start inside a sample region');
      current = [];
    } else if (marker(line, 'end')) {
      if (!current) throw new Error('sample:end without sample:start');
      regions.push(dedent(current));
      current = undefined;
    } else current?.push(line);
  }
  if (current) throw new Error('sample:start without sample:end');
  return regions.map((region) => region.join('\n').trim()).join('\n\n') + '\n';
}

function dedent(lines: string[]): string[] {
  const indents = lines.filter((line) => line.trim()).map((line) => line.match(/^ */)![0].length);
  const cut = indents.length ? Math.min(...indents) : 0;
  return lines.map((line) => line.slice(cut));
}

/** The operation's samples as Redoc's `x-codeSamples` entries; throws when a file is missing. */
export function samplesFor(operationId: string): CodeSample[] {
  const paths = samplePaths(operationId);
  for (const file of Object.values(paths)) {
    if (!existsSync(file)) throw new StepError('code samples', `no code sample for ${operationId}: ${relative(root, file)} is missing (every operation needs a .ts and a .curl.sh sample in openapi/samples/; README, "Changing the contract")`);
  }
  const [curl, typescript] = SAMPLE_LANGUAGES;
  return [
    { ...curl, source: extractSample(readFileSync(paths.curl, 'utf8')) },
    { ...typescript, source: extractSample(readFileSync(paths.typescript, 'utf8')) },
  ];
}

/** A copy of the document with `x-codeSamples` on every operation (the input is not changed). */
export function withSamples<T extends OpenApiDocument>(doc: T): T {
  const copy = structuredClone(doc);
  for (const { operationId, operation } of operations(copy)) {
    (operation as JsonObject)['x-codeSamples'] = samplesFor(operationId) as unknown as Json;
  }
  return copy;
}
