// Which operation a request is for (method and concrete path → the spec's operation), so the transport can
// count a request against its rate limit and record its answer in the coverage table without every caller
// passing the operation along.
import type { ApiModel, OperationModel } from './spec-model.ts';

const patterns = new WeakMap<ApiModel, { op: OperationModel; method: string; regex: RegExp }[]>();

export function operationOf(api: ApiModel, method: string, path: string): OperationModel | undefined {
  let list = patterns.get(api);
  if (!list) {
    list = api.operations.map((op) => ({
      op,
      method: op.method,
      regex: new RegExp(`^${op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
    patterns.set(api, list);
  }
  const bare = path.split('?')[0]!;
  return list.find((p) => p.method === method.toUpperCase() && p.regex.test(bare))?.op;
}
