// The same request sent N times at once with one Idempotency-Key (a client that retries before the first
// answer arrives): the action is done once (provider section 7, Idempotency rule 3). Every definite answer
// has the same status and a byte-identical body (one resource, the original result replayed); a documented
// 503 or the edge's 502/504 among them is inconclusive, a 429 unchecked.
import { CheckRecorder } from '../check-result.ts';
import { checkAnswerToValid, inconclusive } from '../checks/expectations.ts';
import { snippet } from '../checks/response.ts';
import { curlOf, exchange, type KitContext } from '../context.ts';
import { examplePlan, materialize } from '../generate.ts';
import type { HttpResponse } from '../http.ts';
import type { OperationModel } from '../spec-model.ts';
import type { CheckResult } from '../types.ts';
import { SetupError } from './admin.ts';
import { difference, successBody } from './stateful.ts';

export const PARALLEL = 6;

export async function concurrentKeyProbe(ctx: KitContext, op: OperationModel): Promise<CheckResult> {
  const check = new CheckRecorder(op.operationId, 'concurrent-key', `${PARALLEL} parallel requests with one Idempotency-Key make one resource with identical bodies`);
  let request;
  try {
    request = materialize(ctx, op, examplePlan(ctx, op, await successBody(ctx, op, check)));
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    check.skip(`skipped, ${err.message}`);
    return check.result();
  }
  const answers = await Promise.all(Array.from({ length: PARALLEL }, () => exchange(ctx, request)));
  const definite = [];
  for (const ex of answers) {
    check.sent(ex.response?.status);
    if (!ex.response) {
      check.add([{ severity: 'failure', rule: 'no-response', message: `${op.method} ${op.path}: no response to one of ${PARALLEL} parallel requests (${ex.error})`, curl: curlOf(ctx, request) }]);
      continue;
    }
    check.add(checkAnswerToValid(ctx, op, ex.response, request).map((f) => ({ ...f, curl: curlOf(ctx, request) })));
    const unknown = inconclusive(op, ex.response);
    if (unknown) check.add([unknown]);
    else definite.push(ex.response);
  }
  const [first, ...rest] = definite;
  if (!first) return check.result();
  if (first.status >= 300) {
    check.skip(`skipped, the request was not a success (${first.status} ${snippet(first.text)}), so there was nothing to duplicate`);
    return check.result();
  }
  const d = rest.find((r) => r.status !== first.status || r.text !== first.text);
  if (d) {
    const key = op.idempotencyKey?.name ?? 'Idempotency-Key';
    const bodies = bodyCounts(definite);
    const got = `${PARALLEL} identical parallel requests with one ${key} got ${statusCounts(definite)}`;
    const message =
      bodies.length === 1
        ? `${got}, one body: only the status differs; every answer under one key is the original result, its status included (section 7, Idempotency rule 3)`
        : `${got}, ${bodies.length} different bodies (${bodies.every((n) => n === 1) ? '×1 each' : bodies.map((n) => `×${n}`).join(', ')}): ${difference(first.text, rest.find((r) => r.text !== first.text)!.text)}; the action was not done exactly once`;
    check.add([{ severity: 'failure', rule: 'concurrent-key', message, curl: curlOf(ctx, request) }]);
  }
  return check.result();
}

/** How many answers had each status, in the order first seen: `201 ×6`, `201 ×1, 200 ×5`. */
function statusCounts(answers: readonly HttpResponse[]): string {
  const counts = new Map<number, number>();
  for (const r of answers) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${status} ×${n}`).join(', ');
}

/** How many answers had each distinct body: [3, 3] for two transfers answered alternately (counting the
 *  answers that differ from the first would say 3 of them, and a message per request says 6). */
function bodyCounts(answers: readonly HttpResponse[]): number[] {
  const counts = new Map<string, number>();
  for (const r of answers) counts.set(r.text, (counts.get(r.text) ?? 0) + 1);
  return [...counts.values()];
}
