// Where things are. One place, so tasks and tests agree.
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const specSource = join(root, 'openapi', 'openapi.yaml');
export const specDist = join(root, 'packages', 'spec', 'dist');
export const bundledYaml = join(specDist, 'openapi.yaml');
export const bundledJson = join(specDist, 'openapi.json');
export const docsDir = join(root, 'dist', 'docs');
export const docsHtml = join(docsDir, 'index.html');
export const docsFavicon = join(docsDir, 'favicon.ico');
/** Copies of the bundle next to the docs folder, so the page's ../openapi.* links also work from dist/docs/. */
export const docsSpecYaml = join(root, 'dist', 'openapi.yaml');
export const docsSpecJson = join(root, 'dist', 'openapi.json');
export const docsSourceJson = join(root, 'dist', 'docs-source.json');
/** Redoc's settings for build-docs (written by tools/lib/docs.ts). */
export const docsConfig = join(root, 'dist', 'docs-redocly.yaml');
export const bin = (name: string) => join(root, 'node_modules', '.bin', name);
