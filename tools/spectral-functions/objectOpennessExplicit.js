// Every object schema in a source file states `additionalProperties` (true, false or a schema): generators
// that default to closed objects (hey-api, orval's zod) then read the contract as written. Given the whole
// file (`$`), because a schema file's root is itself the schema and JSONPath filters never select the root.
// Example values and `x-` extensions are data, not schemas, and are not walked.
const SKIP = new Set(['example', 'examples', 'value', 'default', 'const', 'enum']);
const MAX_DEPTH = 64;

function isObjectSchema(node, key) {
  if (key === 'properties' || key === 'patternProperties') return false; // a map of schemas, not a schema
  return node.type === 'object' || (node.type === undefined && typeof node.properties === 'object' && node.properties !== null && !('in' in node));
}

export default function objectOpennessExplicit(root) {
  const results = [];
  const walk = (node, path, key) => {
    if (path.length > MAX_DEPTH || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach((item, i) => walk(item, [...path, i], key));
    if (isObjectSchema(node, key) && !('additionalProperties' in node)) {
      results.push({ message: 'an object schema must state additionalProperties (true for the objects whose other fields the provider does not show)', path });
    }
    for (const [k, v] of Object.entries(node)) {
      if (SKIP.has(k) || k.startsWith('x-')) continue;
      walk(v, [...path, k], k);
    }
  };
  walk(root, [], undefined);
  return results;
}
