// The root document's `paths`: each path item is only a `$ref` to its own file in openapi/paths/ (one file per
// path, Redocly's openapi-starter layout), and every file there is referenced by exactly one path. Runs on
// the unbundled root (.spectral-layout.yaml, `resolved: false`): in the bundle the files are already inlined.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

const REF = /^\.\/paths\/([^/]+\.yaml)$/;

export default function pathItemsFromPathFiles(paths, _options, context) {
  const results = [];
  const referenced = new Map();
  for (const [path, item] of Object.entries(paths ?? {})) {
    const ref = item && typeof item === 'object' ? item.$ref : undefined;
    const match = typeof ref === 'string' ? REF.exec(ref) : null;
    if (!match || Object.keys(item).length !== 1) {
      results.push({ message: `${path} must be only a $ref to its file in openapi/paths/ (./paths/<name>.yaml)`, path: ['paths', path] });
      continue;
    }
    const file = match[1];
    if (referenced.has(file)) results.push({ message: `${path} and ${referenced.get(file)} share ./paths/${file}: one file per path`, path: ['paths', path] });
    referenced.set(file, path);
  }
  const source = context.document.source;
  if (source) {
    const dir = join(dirname(source), 'paths');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
      if (!referenced.has(file)) results.push({ message: `openapi/paths/${file} is not referenced by any path of the root document`, path: ['paths'] });
    }
  }
  return results;
}
