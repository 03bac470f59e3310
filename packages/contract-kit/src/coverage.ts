// The coverage signal: per operation, which documented statuses and error codes the run's answers showed,
// and which it never saw. A documented response never exercised is a warning in the summary (the run says
// nothing about it), never silence.
import { isObject } from '@payments/spec';
import { parseJson, type HttpResponse } from './http.ts';
import type { ApiModel, OperationModel } from './spec-model.ts';

export interface CoverageRow {
  operationId: string;
  /** The documented status (`201`, `4XX`…), or an undocumented one that was answered. */
  status: string;
  documented: boolean;
  /** A documented status the spec only assumes (x-assumed response: the 401, 413, 429). */
  assumed?: boolean;
  /** How many answers had this status. */
  seen: number;
  /** Documented codes of this status with how often each was answered; undocumented codes seen too.
   *  `assumed`: a code the spec only assumes there (invalid_request, temporarily_unavailable). */
  codes: { code: string; documented: boolean; seen: number; assumed?: boolean }[];
}

export class CoverageRecorder {
  readonly #api: ApiModel;
  readonly #statuses = new Map<string, Map<string, number>>();
  readonly #codes = new Map<string, Map<string, number>>();

  constructor(api: ApiModel) {
    this.#api = api;
  }

  record(op: OperationModel, response: HttpResponse): void {
    const statuses = this.#statuses.get(op.operationId) ?? new Map<string, number>();
    const status = String(response.status);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    this.#statuses.set(op.operationId, statuses);
    const parsed = response.status >= 400 ? parseJson(response.text) : { ok: false as const };
    if (parsed.ok && isObject(parsed.value as never) && typeof (parsed.value as { code?: unknown }).code === 'string') {
      const key = `${status} ${(parsed.value as { code: string }).code}`;
      const codes = this.#codes.get(op.operationId) ?? new Map<string, number>();
      codes.set(key, (codes.get(key) ?? 0) + 1);
      this.#codes.set(op.operationId, codes);
    }
  }

  rows(operations: OperationModel[]): CoverageRow[] {
    const rows: CoverageRow[] = [];
    for (const op of operations) {
      const statuses = this.#statuses.get(op.operationId) ?? new Map<string, number>();
      const codes = this.#codes.get(op.operationId) ?? new Map<string, number>();
      const documented = new Set(op.responses.map((r) => r.status));
      const all = [...op.responses.map((r) => r.status), ...[...statuses.keys()].filter((s) => !documented.has(s))];
      for (const status of all) {
        const listed = [...(op.codes.get(Number(status)) ?? [])];
        const seenCodes = [...codes.entries()].filter(([k]) => k.startsWith(`${status} `)).map(([k, n]) => [k.slice(status.length + 1), n] as const);
        const assumedCode = (code: string) => this.#api.catalog.some((e) => e.operationId === op.operationId && String(e.status) === status && e.code === code && e.assumed);
        rows.push({
          operationId: op.operationId,
          status,
          documented: documented.has(status),
          ...(op.responses.find((r) => r.status === status)?.assumedReason ? { assumed: true } : {}),
          seen: statuses.get(status) ?? 0,
          codes: [
            ...listed.map((code) => ({ code, documented: true, seen: seenCodes.find(([c]) => c === code)?.[1] ?? 0, ...(assumedCode(code) ? { assumed: true } : {}) })),
            ...seenCodes.filter(([c]) => !listed.includes(c)).map(([code, seen]) => ({ code, documented: false, seen })),
          ],
        });
      }
    }
    return rows;
  }
}

/**
 * A status or code the provider's document states that the run never saw: one line each. What only the spec
 * assumes (an x-assumed response such as the 429, an x-assumed code such as invalid_request) is not listed
 * here (it was never "documented"): see unexercisedAssumed.
 */
export function unexercised(rows: CoverageRow[]): string[] {
  return neverSeen(rows, false);
}

/** The responses and codes only the spec assumes (x-assumed) that the run never saw. */
export function unexercisedAssumed(rows: CoverageRow[]): string[] {
  return neverSeen(rows, true);
}

function neverSeen(rows: CoverageRow[], assumed: boolean): string[] {
  const out: string[] = [];
  for (const row of rows) {
    if (!row.documented) continue;
    const isAssumed = (c: CoverageRow['codes'][number]) => row.assumed === true || c.assumed === true;
    if (row.seen === 0) {
      // A status never answered is one line; its codes in brackets (only the stated ones under a stated status).
      if ((row.assumed === true) !== assumed) continue;
      const codes = row.codes.filter((c) => c.documented && (assumed || !isAssumed(c)));
      out.push(`${row.operationId} ${row.status}${codes.length ? ` (${codes.map((c) => c.code).join(', ')})` : ''}`);
    } else {
      for (const c of row.codes) if (c.documented && c.seen === 0 && isAssumed(c) === assumed) out.push(`${row.operationId} ${row.status} ${c.code}`);
    }
  }
  return out;
}
