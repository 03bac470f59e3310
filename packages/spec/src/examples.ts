// Every example a document carries, with the schema it must satisfy: named request and response examples,
// parameter examples (the path item's parameters included), response header examples, and the `examples`
// of component schemas. Prism serves these examples and the docs show them: the public and the admin
// document's tests validate each one with Ajv, so an invalid example fails a test instead of teaching
// clients the wrong thing.
import { deref, isObject, operations, type Json, type JsonObject, type OpenApiDocument } from './document.ts';

export interface ExampleCase {
  /** Where the example stands, e.g. `POST /v1/cards 201 application/json example "virtual"`. */
  where: string;
  schema: JsonObject;
  value: Json;
}

export function exampleCases(doc: OpenApiDocument): ExampleCase[] {
  const cases: ExampleCase[] = [];
  for (const { method, path, operation } of operations(doc)) {
    const at = `${method.toUpperCase()} ${path}`;
    const body = deref(doc, operation.requestBody ?? null);
    if (isObject(body)) cases.push(...mediaCases(doc, `${at} request`, body.content ?? null));
    for (const raw of parametersOf(doc, path, operation)) {
      const param = deref(doc, raw);
      if (isObject(param) && 'example' in param && isObject(param.schema)) {
        cases.push({ where: `${at} parameter ${String(param.name)}`, schema: param.schema, value: param.example ?? null });
      }
    }
    for (const [status, rawResponse] of Object.entries((operation.responses ?? {}) as JsonObject)) {
      const response = deref(doc, rawResponse);
      if (!isObject(response)) continue;
      cases.push(...mediaCases(doc, `${at} ${status}`, response.content ?? null));
      for (const [name, rawHeader] of Object.entries(isObject(response.headers) ? response.headers : {})) {
        const header = deref(doc, rawHeader);
        if (isObject(header) && 'example' in header && isObject(header.schema)) {
          cases.push({ where: `${at} ${status} header ${name}`, schema: header.schema, value: header.example ?? null });
        }
      }
    }
  }
  for (const [name, schema] of Object.entries((doc.components.schemas ?? {}) as JsonObject)) {
    if (!isObject(schema) || !Array.isArray(schema.examples)) continue;
    schema.examples.forEach((value, i) => cases.push({ where: `components.schemas.${name}.examples[${i}]`, schema: { $ref: `#/components/schemas/${name}` }, value }));
  }
  return cases;
}

function mediaCases(doc: OpenApiDocument, where: string, content: Json): ExampleCase[] {
  if (!isObject(content)) return [];
  const cases: ExampleCase[] = [];
  for (const [mediaType, rawMedia] of Object.entries(content)) {
    const media = deref(doc, rawMedia);
    if (!isObject(media) || !isObject(media.schema)) continue;
    for (const [name, rawExample] of Object.entries(isObject(media.examples) ? media.examples : {})) {
      const example = deref(doc, rawExample);
      if (isObject(example)) cases.push({ where: `${where} ${mediaType} example "${name}"`, schema: media.schema, value: example.value ?? null });
    }
  }
  return cases;
}

/** An operation's parameters, its path item's included (the admin document declares path ids on the path item). */
function parametersOf(doc: OpenApiDocument, path: string, operation: JsonObject): Json[] {
  const item = deref(doc, doc.paths[path] ?? null);
  const shared = isObject(item) && Array.isArray(item.parameters) ? item.parameters : [];
  return [...shared, ...(Array.isArray(operation.parameters) ? operation.parameters : [])];
}

/** What lacks an example: each request body without one, each JSON response without one (`POST /v1/cards 201`). */
export function missingExamples(doc: OpenApiDocument, cases: ExampleCase[] = exampleCases(doc)): string[] {
  const missing: string[] = [];
  const has = (prefix: string) => cases.some((c) => c.where.startsWith(prefix));
  for (const { method, path, operation } of operations(doc)) {
    const at = `${method.toUpperCase()} ${path}`;
    if (operation.requestBody && !has(`${at} request `)) missing.push(`${at} request`);
    for (const [status, raw] of Object.entries((operation.responses ?? {}) as JsonObject)) {
      const response = deref(doc, raw);
      if (isObject(response) && response.content && !has(`${at} ${status} `)) missing.push(`${at} ${status}`);
    }
  }
  return missing;
}
