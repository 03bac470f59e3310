// What the sandbox serves when it serves the docs (npm start, the docs test): the page at /docs/, the
// bundled spec at /openapi.yaml and /openapi.json (the page links them), the favicon, and the docs console's
// settings at /docs/console.json. Each is read and compressed once when the sandbox starts
// (packages/sandbox/src/static-files.ts); the page comes precompressed from the docs build.
import type { StaticFile } from '../../packages/sandbox/src/static-files.ts';
import { bundledJson, bundledYaml, docsFavicon, docsHtml } from './paths.ts';

/** Where the docs console reads its settings; only the sandbox serves it (a 404 elsewhere tells the console so). */
export const CONSOLE_SETTINGS_PATH = '/docs/console.json';

export interface ConsoleSettings {
  /** This origin is a sandbox: the console sends requests to it. */
  sandbox: true;
  /**
   * `npm start`'s demo key, prefilled in the console. Only in the demo mode of `npm start`, never in the HTML:
   * the page is built once and may be copied anywhere; this answer is made by the running sandbox, is not
   * cached (no-store), and the console keeps the key in sessionStorage only.
   */
  demoApiKey?: string;
}

export function docsSiteFiles(settings: Omit<ConsoleSettings, 'sandbox'> = {}): Record<string, StaticFile> {
  const page: StaticFile = { file: docsHtml, type: 'text/html; charset=utf-8' };
  const body: ConsoleSettings = { sandbox: true, ...settings };
  return {
    '/docs/': page,
    '/docs': page,
    '/openapi.yaml': { file: bundledYaml, type: 'application/yaml; charset=utf-8' },
    '/openapi.json': { file: bundledJson, type: 'application/json' },
    '/favicon.ico': { file: docsFavicon, type: 'image/x-icon', cacheControl: 'public, max-age=86400' },
    [CONSOLE_SETTINGS_PATH]: { body: JSON.stringify(body), type: 'application/json', cacheControl: 'no-store' },
  };
}
