// The published packages, in dependency order (each compiled and published after what it depends on), and
// their compilation: tsc per package (JS + .d.ts into dist/, `.ts` imports rewritten to `.js`), then the
// files a package serves that another build step made (the docs for the sandbox, the Prism document for the
// mock) or ships besides (the kit's Python example client). In this repository the packages' `exports` point at their TypeScript sources (the tasks and tests
// run them through the workspace links); `publishConfig` points the packed package.json at dist/.
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bin, docsDir, root } from './paths.ts';
import { prismDocumentPath } from './prism-document.ts';
import { runTool } from './steps.ts';

export const PUBLISHED = ['spec', 'types', 'client', 'sandbox', 'contract-kit', 'mock'] as const;
export type PackageDir = (typeof PUBLISHED)[number];

export const packageDir = (name: string) => join(root, 'packages', name);

/** Removes what tsc wrote before (no stale module may ship); spec's dist also holds the bundles, kept. */
function cleanCompiled(name: PackageDir): void {
  const dist = join(packageDir(name), 'dist');
  if (name !== 'spec') return rmSync(dist, { recursive: true, force: true });
  if (!existsSync(dist)) return;
  for (const entry of readdirSync(dist, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && /\.(js|d\.ts)$/.test(entry.name)) rmSync(join(entry.parentPath, entry.name));
  }
}

/** Files the package serves that other build steps produced, copied into its dist/ when they exist. */
function copyAssets(name: PackageDir): void {
  const copies: Array<[string, string]> =
    name === 'sandbox'
      ? // The page ships compressed only (the sandbox serves its raw bytes from the .br: static-files.ts).
        ['index.html.br', 'index.html.gz', 'favicon.ico'].map((file) => [join(docsDir, file), join(packageDir(name), 'dist', 'docs', file)])
      : name === 'mock'
        ? [[prismDocumentPath, join(packageDir(name), 'dist', 'openapi.json')]]
        : name === 'contract-kit'
          ? // A client in another language an installed kit can run at once (QA: the README's examples were repository files).
            [[join(root, 'examples', 'python-client', 'pay.py'), join(packageDir(name), 'dist', 'examples', 'pay.py')]]
          : [];
  for (const [from, to] of copies) {
    if (!existsSync(from)) continue; // a task that builds no docs (chaos, bench-client) packs nothing; the release checks the tarballs
    mkdirSync(join(to, '..'), { recursive: true });
    copyFileSync(from, to); // copies keep the build's order of mtimes: the precompressed page stays fresh
  }
}

/** Compiles the published packages to dist/: JS + declarations, as consumers get them. */
export async function compilePackages(names: readonly PackageDir[] = PUBLISHED): Promise<void> {
  for (const name of names) {
    cleanCompiled(name);
    await runTool(`tsc packages/${name} → dist`, bin('tsc'), ['-p', join(packageDir(name), 'tsconfig.build.json')]);
    copyAssets(name);
  }
}
