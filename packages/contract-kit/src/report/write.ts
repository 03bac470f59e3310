// Writing the optional report files of a command (--json, --junit): each given path, its folder made, and a line
// on stderr saying where it went. The text is made only for the files asked for. The paths are checked before
// the run, so a long run does not end in a stack trace for a report it cannot write (QA).
import { accessSync, constants, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** `${option} ${path}: why` for the first report path that cannot be written, else undefined. */
export function unwritableReport(files: readonly (readonly [option: string, file: string | undefined])[]): string | undefined {
  for (const [option, file] of files) {
    if (!file) continue;
    const path = resolve(file);
    const problem = writeProblem(path);
    if (problem) return `${option} ${path}: ${problem}`;
  }
  return undefined;
}

function writeProblem(path: string): string | undefined {
  if (existsSync(path)) {
    if (statSync(path).isDirectory()) return 'is a folder, not a file';
    return writable(path) ? undefined : 'the file cannot be written (permission denied)';
  }
  let folder = dirname(path);
  while (!existsSync(folder)) folder = dirname(folder); // ends at the root, which exists
  if (!statSync(folder).isDirectory()) return `${folder} is a file, not a folder`;
  return writable(folder) ? undefined : `the folder ${folder} cannot be written to (permission denied)`;
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Writes each report asked for; false when one could not be written (said in one line on stderr). */
export function writeReports(files: readonly (readonly [string | undefined, () => string])[], label: string): boolean {
  let all = true;
  for (const [file, text] of files) {
    if (!file) continue;
    const path = resolve(file);
    try {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text());
      process.stderr.write(`${label}: wrote ${path}\n`);
    } catch (err) {
      process.stderr.write(`${label}: could not write ${path}: ${(err as Error).message}\n`);
      all = false;
    }
  }
  return all;
}
