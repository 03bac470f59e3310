// Writing the optional report files of a command (--json, --junit): each given path, its folder made, and a line
// on stderr saying where it went. The text is made only for the files asked for.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export function writeReports(files: readonly (readonly [string | undefined, () => string])[], label: string): void {
  for (const [file, text] of files) {
    if (!file) continue;
    const path = resolve(file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text());
    process.stderr.write(`${label}: wrote ${path}\n`);
  }
}
