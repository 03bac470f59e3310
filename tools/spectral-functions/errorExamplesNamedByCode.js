// Each named example of an error response must be keyed by its own `code` and say what it means (summary)
// and what the client should do (description): the examples are the error catalog.
export default function errorExamplesNamedByCode(examples) {
  if (!examples || typeof examples !== 'object' || Object.keys(examples).length === 0) {
    return [{ message: 'error response has no named examples' }];
  }
  const results = [];
  for (const [name, example] of Object.entries(examples)) {
    const code = example?.value?.code;
    if (code !== name) results.push({ message: `example "${name}" has code "${code}"; name it by its code`, path: [name] });
    if (!example?.summary) results.push({ message: `example "${name}" needs a summary (what the code means)`, path: [name] });
    if (!example?.description) results.push({ message: `example "${name}" needs a description (what the client should do)`, path: [name] });
  }
  return results;
}
