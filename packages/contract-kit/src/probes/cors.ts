// Browser CORS is off (provider sections 1 and 5, rule 7: a server-to-server API; origins are allowlisted
// only by arrangement): a request carrying an `Origin` gets no `Access-Control-Allow-Origin`, and a
// preflight (OPTIONS with `Access-Control-Request-Method`) is not granted: no allow-origin on its answer.
// Only the CORS headers are judged here: the request is a generated one, and whether the server accepts or
// refuses it (a 422 for a value it does not take) is what the `valid` and response checks judge, with the
// spec's x-assumed reasons; judging the answer again here failed `cors` on a refusal that is not about CORS.
import { CheckRecorder } from '../check-result.ts';
import { label } from '../checks/response.ts';
import { curlOf, exchange, type KitContext } from '../context.ts';
import { materialize } from '../generate.ts';
import type { HttpRequest } from '../http.ts';
import type { OperationModel } from '../spec-model.ts';
import type { CheckResult } from '../types.ts';
import { samplePlan } from './auth.ts';

const ORIGIN = 'https://contract-kit.example';
const CORS_GRANTS = ['access-control-allow-origin', 'access-control-allow-credentials'];

export async function corsProbe(ctx: KitContext, op: OperationModel, seed: number): Promise<CheckResult> {
  const check = new CheckRecorder(op.operationId, 'cors', 'no Access-Control-Allow-Origin on any answer, a preflight is not granted');
  const plan = samplePlan(ctx, op, seed);
  const simple = materialize(ctx, op, plan);
  const withOrigin: HttpRequest = { ...simple, headers: { ...simple.headers, origin: ORIGIN } };
  const preflight: HttpRequest = {
    method: 'OPTIONS',
    path: simple.path,
    headers: {
      origin: ORIGIN,
      'access-control-request-method': op.method,
      'access-control-request-headers': [ctx.api.apiKeyHeader, op.idempotencyKey?.name, op.body ? 'content-type' : undefined].filter(Boolean).join(', ').toLowerCase(),
    },
  };
  for (const [request, what] of [
    [withOrigin, `${op.method} with Origin`],
    [preflight, 'the preflight'],
  ] as const) {
    const ex = await exchange(ctx, request);
    check.sent(ex.response?.status);
    if (!ex.response) continue; // a preflight left unanswered grants nothing
    const granted = CORS_GRANTS.map((h) => [h, ex.response!.headers.get(h)] as const).filter(([, v]) => v !== null);
    if (granted.length > 0) {
      check.add([
        {
          severity: 'failure',
          rule: 'cors',
          message: `${what} → ${ex.response.status}: ${granted.map(([h, v]) => `${h}: ${v}`).join(', ')}; browser CORS is off (provider sections 1 and 5)`,
          curl: curlOf(ctx, request),
        },
      ]);
    }
    if (request === preflight && ex.response.status >= 200 && ex.response.status < 300 && ex.response.headers.get('access-control-allow-methods')) {
      check.add([{ severity: 'failure', rule: 'cors', message: `${label(op, ex.response)}: the preflight was granted (access-control-allow-methods: ${ex.response.headers.get('access-control-allow-methods')})`, curl: curlOf(ctx, request) }]);
    }
  }
  return check.result();
}
