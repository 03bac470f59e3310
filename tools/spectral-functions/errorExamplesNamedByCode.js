// Each named example of an error response must be keyed by its own `code` and say what it means (summary)
// and what the client should do (description): the examples are the error catalog. Each finding is placed
// on the response's examples (an absolute path: Spectral reads a result's path so; an example's own path
// would lead through its $ref to the catalog, which names no operation) and names the operation and status.
export default function errorExamplesNamedByCode(examples, _options, context) {
  const [, path, method, , status] = context.path;
  const where = `${String(method).toUpperCase()} ${path} ${status}`;
  const at = (message) => ({ message: `${where}: ${message}`, path: context.path });
  if (!examples || typeof examples !== 'object' || Object.keys(examples).length === 0) return [at('error response has no named examples')];
  const results = [];
  for (const [name, example] of Object.entries(examples)) {
    const code = example?.value?.code;
    if (code !== name) results.push(at(`example "${name}" has code "${code}"; name it by its code`));
    if (!example?.summary) results.push(at(`example "${name}" needs a summary (what the code means)`));
    if (!example?.description) results.push(at(`example "${name}" needs a description (what the client should do)`));
  }
  return results;
}
