// Spectral lints the bundle (packages/spec/dist/openapi.yaml), so its findings name lines of a file nobody
// edits. This adds under each finding the source file and line it comes from, found by the finding's JSON
// path and the layout the layout rules enforce: a path item in openapi/paths/ (the root's `$ref`), a
// component in openapi/components/<type>/ named by its file, anything else in the root document.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { root } from './paths.ts';

/** A stylish finding line: `  676:15  error  rule  message  json.path[0].here`. */
const FINDING = /^\s*\d+:\d+\s+(?:error|warning|information|hint)\s+\S+\s+.*\s{2}(\S+)\s*$/;
const SEGMENT = /\[([^\]]+)\]|([^.[\]]+)/g;

const segments = (path: string): string[] => [...path.matchAll(SEGMENT)].map((m) => m[1] ?? m[2]!);
const shown = (file: string) => (file.startsWith(root) ? relative(root, file) : file);

function findFile(dir: string, name: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const found = entry.isDirectory() ? findFile(path, name) : entry.name === name ? path : undefined;
    if (found) return found;
  }
  return undefined;
}

/** The source file a bundle path comes from, and the path within it. */
function sourceOf(rootDocument: string, path: string[]): { file: string; rest: string[] } {
  const [top, key, name] = path;
  if (top === 'paths' && key) {
    const ref = (parseDocument(readFileSync(rootDocument, 'utf8')).getIn(['paths', key, '$ref']) as string | undefined) ?? '';
    if (ref.startsWith('./')) return { file: join(dirname(rootDocument), ref), rest: path.slice(2) };
  }
  if (top === 'components' && key && name) {
    const file = findFile(join(dirname(rootDocument), 'components', key), `${name}.yaml`);
    if (file) return { file, rest: path.slice(3) };
  }
  return { file: rootDocument, rest: path };
}

/** The line and column of the deepest node of `rest` the file holds (a part $ref'd elsewhere stops the walk). */
function lineOf(file: string, rest: string[]): string {
  const lines = new LineCounter();
  let node: Node | null | undefined = parseDocument(readFileSync(file, 'utf8'), { lineCounter: lines }).contents;
  let at = node?.range?.[0] ?? 0;
  for (const segment of rest) {
    if (isMap(node)) node = node.items.find((pair) => String(isScalar(pair.key) ? pair.key.value : pair.key) === segment)?.value as Node | null | undefined;
    else if (isSeq(node)) node = node.items[Number(segment)] as Node | undefined;
    else break;
    if (!node?.range) break;
    at = node.range[0];
  }
  const { line, col } = lines.linePos(at);
  return `${line}:${col}`;
}

/** Spectral's stylish output with `source: <file>:<line>:<col>` under each finding it can place. */
export function withSources(output: string, rootDocument: string): string {
  return output
    .split('\n')
    .flatMap((line) => {
      const path = FINDING.exec(line)?.[1];
      if (!path) return [line];
      try {
        const { file, rest } = sourceOf(rootDocument, segments(path));
        return [line, `    source: ${shown(file)}:${lineOf(file, rest)}`];
      } catch {
        return [line]; // a path this cannot follow: the bundle's line stands
      }
    })
    .join('\n');
}
