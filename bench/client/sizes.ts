// What the client costs a bundle, measured as an application gets it: packages/client/dist bundled by
// esbuild (ESM, minified, platform neutral), each as minified bytes and minified + gzip (level 9).
// Two rows carry issue 25's budget (openapi-fetch external in both: the budget is our code, what an
// application pulls in by importing us; openapi-fetch is a dependency it may share):
//  - `createPaymentsClient` alone, imported by the package's name (so its `exports` map and
//    `"sideEffects": false` apply, as in an application's bundler), tree-shaken: ≤ 4,000 B;
//  - the whole entry point (every export of `@payments/client`): ≤ 4,500 B.
// The other rows are context: everything with openapi-fetch bundled in, and openapi-fetch alone.
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export interface Size {
  name: string;
  minified: number;
  gzipped: number;
  /** The min+gzip budget in bytes, for the rows that have one. */
  budget?: number;
}

/** Issue 25's budgets, in bytes of min+gzip (kB read as 1000 B: the stricter reading). */
export const SIZE_BUDGETS = { treeShaken: 4000, entry: 4500 } as const;

type Esbuild = typeof import('esbuild');

export async function loadEsbuild(): Promise<Esbuild | undefined> {
  try {
    return await import('esbuild');
  } catch {
    return undefined;
  }
}

export async function measureSizes(esbuild: Esbuild, clientDir: string): Promise<Size[]> {
  const entry = join(clientDir, 'dist', 'index.js');
  const bundle = async (name: string, input: { entry: string } | { source: string }, external: string[]): Promise<Size> => {
    const result = await esbuild.build({
      ...('entry' in input ? { entryPoints: [input.entry] } : { stdin: { contents: input.source, resolveDir: clientDir, loader: 'js' as const } }),
      bundle: true,
      format: 'esm',
      minify: true,
      platform: 'neutral',
      external,
      write: false,
      logLevel: 'silent',
    });
    const code = result.outputFiles[0]!.contents;
    return { name, minified: code.byteLength, gzipped: gzipSync(code, { level: 9 }).byteLength };
  };
  return [
    {
      ...(await bundle('createPaymentsClient only (tree-shaken; openapi-fetch external)', { source: "export { createPaymentsClient } from '@payments/client';" }, ['openapi-fetch'])),
      budget: SIZE_BUDGETS.treeShaken,
    },
    { ...(await bundle('whole entry point (every export; openapi-fetch external)', { entry }, ['openapi-fetch'])), budget: SIZE_BUDGETS.entry },
    await bundle('whole entry point + openapi-fetch bundled', { entry }, []),
    await bundle('openapi-fetch alone', { source: "export { default } from 'openapi-fetch'; export * from 'openapi-fetch';" }, []),
  ];
}
