// What the client costs a bundle: packages/client/dist/index.js bundled by esbuild (ESM, minified,
// platform neutral) with openapi-fetch left external (= our code only) and bundled in (= everything),
// plus openapi-fetch alone; each as minified bytes and minified + gzip (level 9).
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export interface Size {
  name: string;
  minified: number;
  gzipped: number;
}

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
    await bundle('our code (openapi-fetch external)', { entry }, ['openapi-fetch']),
    await bundle('everything (openapi-fetch bundled)', { entry }, []),
    await bundle('openapi-fetch alone', { source: "export { default } from 'openapi-fetch'; export * from 'openapi-fetch';" }, []),
    await bundle('createPaymentsClient only (tree-shaken, external)', { source: "export { createPaymentsClient } from './dist/index.js';" }, ['openapi-fetch']),
  ];
}
