// What the sandbox serves with the docs, from this repository's build output (npm start, the docs test).
// The file list itself is the sandbox package's (packages/sandbox/src/site.ts), which payments-sandbox serves
// from its own copy of the docs.
import { CONSOLE_SETTINGS_PATH, siteFiles, type ConsoleSettings } from '../../packages/sandbox/src/site.ts';
import type { StaticFile } from '../../packages/sandbox/src/static-files.ts';
import { bundledJson, bundledYaml, docsDir } from './paths.ts';

export { CONSOLE_SETTINGS_PATH, type ConsoleSettings };

export function docsSiteFiles(settings: Omit<ConsoleSettings, 'sandbox'> = {}): Record<string, StaticFile> {
  return siteFiles({ docsDir, specJson: bundledJson, specYaml: bundledYaml }, settings);
}
