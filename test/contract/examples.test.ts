// Every example in the bundled spec validates against its schema with Ajv 2020-12: request and response
// examples (named), parameter and header examples, and the `examples` of component schemas. Prism serves
// these examples and the docs show them, so an invalid one would teach clients the wrong thing.
import { describe, expect, it } from 'vitest';
import { createValidator, deref, isObject, loadSpec, operations, type Json, type JsonObject } from '@payments/spec';

const doc = loadSpec();
const validator = createValidator(doc);

interface Case {
  where: string;
  schema: JsonObject;
  value: Json;
}

function mediaCases(where: string, content: Json): Case[] {
  if (!isObject(content)) return [];
  const cases: Case[] = [];
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

function collectCases(): Case[] {
  const cases: Case[] = [];
  for (const { method, path, operation } of operations(doc)) {
    const at = `${method.toUpperCase()} ${path}`;
    const body = deref(doc, operation.requestBody ?? null);
    if (isObject(body)) cases.push(...mediaCases(`${at} request`, body.content ?? null));
    for (const rawParam of (operation.parameters ?? []) as Json[]) {
      const param = deref(doc, rawParam);
      if (isObject(param) && 'example' in param && isObject(param.schema)) {
        cases.push({ where: `${at} parameter ${String(param.name)}`, schema: param.schema, value: param.example ?? null });
      }
    }
    for (const [status, rawResponse] of Object.entries((operation.responses ?? {}) as JsonObject)) {
      const response = deref(doc, rawResponse);
      if (!isObject(response)) continue;
      cases.push(...mediaCases(`${at} ${status}`, response.content ?? null));
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
    schema.examples.forEach((value, i) =>
      cases.push({ where: `components.schemas.${name}.examples[${i}]`, schema: { $ref: `#/components/schemas/${name}` }, value }),
    );
  }
  return cases;
}

const cases = collectCases();

describe('examples', () => {
  it('exist for every operation: a request example for each body, a response example for each JSON response', () => {
    for (const { method, path, operation } of operations(doc)) {
      const at = `${method.toUpperCase()} ${path}`;
      if (operation.requestBody) expect(cases.some((c) => c.where.startsWith(`${at} request`)), `${at} request example`).toBe(true);
      for (const [status, raw] of Object.entries((operation.responses ?? {}) as JsonObject)) {
        const response = deref(doc, raw);
        if (isObject(response) && response.content) {
          expect(cases.some((c) => c.where.startsWith(`${at} ${status} `)), `${at} ${status} example`).toBe(true);
        }
      }
    }
  });

  it.each(cases.map((c) => [c.where, c] as const))('%s validates against its schema', (_where, c) => {
    const validate = validator.compile(c.schema);
    const ok = validate(c.value);
    expect(ok, JSON.stringify(validate.errors, null, 2)).toBe(true);
  });
});
