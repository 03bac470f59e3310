// The error catalog: every error code the document gives, per operation and status, with its meaning
// (example summary), client action (example description) and whether a client retries it. The named
// examples of the error responses ARE the catalog; this only reads them.
import { deref, isObject, operations, type JsonObject, type OpenApiDocument } from './document.ts';

export interface CatalogEntry {
  code: string;
  status: number;
  operationId: string;
  method: string;
  path: string;
  meaning: string;
  action: string;
  retryable: boolean;
  assumed: boolean;
  assumedReason?: string;
  example: JsonObject;
}

export function errorCatalog(doc: OpenApiDocument): CatalogEntry[] {
  const entries: CatalogEntry[] = [];
  for (const { method, path, operationId, operation } of operations(doc)) {
    const responses = isObject(operation.responses) ? operation.responses : {};
    for (const [status, rawResponse] of Object.entries(responses)) {
      if (!/^[45]\d\d$/.test(status)) continue;
      const response = deref(doc, rawResponse);
      const media = isObject(response) && isObject(response.content) ? response.content['application/json'] : undefined;
      const examples = isObject(media) && isObject(media.examples) ? media.examples : {};
      for (const rawExample of Object.values(examples)) {
        const example = deref(doc, rawExample);
        if (!isObject(example) || !isObject(example.value)) continue;
        entries.push({
          code: String(example.value.code),
          status: Number(status),
          operationId,
          method,
          path,
          meaning: String(example.summary ?? ''),
          action: String(example.description ?? ''),
          retryable: example['x-retryable'] === true,
          assumed: example['x-assumed'] === true,
          ...(typeof example['x-assumed-reason'] === 'string' ? { assumedReason: example['x-assumed-reason'] } : {}),
          example: example.value,
        });
      }
    }
  }
  return entries;
}

/** Error responses the document declares without a JSON body (the edge network's 502/504), per operation. */
export function edgeStatuses(doc: OpenApiDocument): { operationId: string; status: number }[] {
  const result: { operationId: string; status: number }[] = [];
  for (const { operationId, operation } of operations(doc)) {
    const responses = isObject(operation.responses) ? operation.responses : {};
    for (const [status, raw] of Object.entries(responses)) {
      const response = deref(doc, raw);
      if (isObject(response) && response['x-origin'] === 'edge') result.push({ operationId, status: Number(status) });
    }
  }
  return result;
}
