// What the sandbox serves with the docs (`npm start`, `payments-sandbox`, the docs test): the page at /docs/
// (the root redirects there),
// the bundled spec at /openapi.yaml and /openapi.json (the page links them), the favicon, and the docs
// console's settings at /docs/console.json. Each is read and compressed once when the sandbox starts
// (static-files.ts); the page comes precompressed from the docs build. The repository serves its build output
// (tools/lib/docs-site.ts); the package serves the copy the build puts in its dist/docs/ (packagedSite).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundledSpecPath } from '@payments/spec';
import type { StaticFile } from './static-files.ts';

/** Where the docs console reads its settings; only the sandbox serves it (a 404 elsewhere tells the console so). */
export const CONSOLE_SETTINGS_PATH = '/docs/console.json';

export interface ConsoleSettings {
  /** This origin is a sandbox: the console sends requests to it. */
  sandbox: true;
  /**
   * The demo key, prefilled in the console. Only from a running sandbox's demo organization, never in the
   * HTML: the page is built once and may be copied anywhere; this answer is made by the running sandbox, is
   * not cached (no-store), and the console keeps the key in sessionStorage only.
   */
  demoApiKey?: string;
}

/** The files of a site: the docs folder (index.html, favicon.ico) and the bundled spec. */
export interface SiteFiles {
  docsDir: string;
  specJson: string;
  specYaml: string;
}

/** The site as the published package ships it: its dist/docs/ and @payments/spec's bundle. */
export const packagedSite: SiteFiles = {
  docsDir: fileURLToPath(new URL('../dist/docs/', import.meta.url)),
  specJson: bundledSpecPath,
  specYaml: bundledSpecPath.replace(/\.json$/, '.yaml'),
};

export function siteFiles(site: SiteFiles, settings: Omit<ConsoleSettings, 'sandbox'> = {}): Record<string, StaticFile> {
  const page: StaticFile = { file: join(site.docsDir, 'index.html'), type: 'text/html; charset=utf-8' };
  const body: ConsoleSettings = { sandbox: true, ...settings };
  return {
    '/': { redirect: '/docs/', type: 'text/html' }, // a first visit in a browser (it answered the API's 404 JSON)
    '/docs/': page,
    '/docs': page,
    '/openapi.yaml': { file: site.specYaml, type: 'application/yaml; charset=utf-8' },
    '/openapi.json': { file: site.specJson, type: 'application/json' },
    '/favicon.ico': { file: join(site.docsDir, 'favicon.ico'), type: 'image/x-icon', cacheControl: 'public, max-age=86400' },
    [CONSOLE_SETTINGS_PATH]: { body: JSON.stringify(body), type: 'application/json', cacheControl: 'no-store' },
  };
}
