// Pays a list of invoices through @payments/client, resumably: one derived Idempotency-Key per invoice, the
// state written to disk (temp file + rename) BEFORE and after each send, every outcome of classifyTransfer
// handled. Run it again after a crash or with unresolved invoices: nothing is paid twice.
//
//   PAYMENTS_BASE_URL=… PAYMENTS_API_KEY=svc_live_… node examples/pay-invoices/index.ts invoices.json [state.json]
import { readFile, rename, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ApiError, classifyTransfer, createPaymentsClient, deriveIdempotencyKey, type PaymentsClient, type PaymentsClientOptions } from '@payments/client';

export interface Invoice {
  invoiceId: string;
  recipientId: string;
  /** A decimal: 150, "150" or "150.00". */
  amount: string | number;
}

export type InvoiceStatus =
  /** Written before the send: a crash leaves it here, and the next run re-sends with the same key. */
  | 'sending'
  /** A transfer exists (pending or completed). Never sent again. */
  | 'paid'
  /** 201 failed/cancelled: the attempt is closed. Paying again needs a NEW key (a human decision), so never automatic. */
  | 'failed'
  /** 409 pending review: flagged for support. Never a new key; later runs ask again with the same key. */
  | 'pending_review'
  /** 503/502/504/timeout/network/rate limit after the client's retry budget: the next run retries with the same key. */
  | 'unresolved'
  /**
   * 409 idempotency conflict: this invoice's key was already used for ANOTHER amount or recipient (the invoice
   * was changed after it was sent, or two invoices share an id). That request may have paid: a human checks what,
   * never automatic.
   */
  | 'key_conflict'
  /** A definite refusal (the provider says nothing happened): nothing was paid; the error code is recorded for a human. */
  | 'rejected';

export interface InvoiceState {
  invoiceId: string;
  idempotencyKey: string;
  status: InvoiceStatus;
  /** Sends of this invoice by this program (each may be several HTTP attempts by the client). */
  sends: number;
  transferId?: string;
  transferStatus?: string;
  errorCode?: string;
  requestId?: string;
  updatedAt: string;
}

export interface PayState {
  invoices: Record<string, InvoiceState>;
}

export interface PayOptions {
  invoices: Invoice[];
  /** The JSON state file (created when missing). */
  statePath: string;
  /** Either a client… */
  client?: PaymentsClient;
  /** …or how to build one (the options are passed to createPaymentsClient: `sleep`/`now` for virtual time, `fetch`, `retry`). */
  clientOptions?: PaymentsClientOptions;
  log?: (line: string) => void;
}

export interface PayReport {
  /** Invoices sent in this run (new or resumed). */
  sent: string[];
  /** Invoices left alone because their state is final or needs a human. */
  skipped: string[];
  state: PayState;
}

/** Statuses for which a run sends (again) with the invoice's one key. */
const SEND_AGAIN: ReadonlySet<InvoiceStatus> = new Set(['sending', 'unresolved', 'pending_review']);

export async function loadState(path: string): Promise<PayState> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as PayState;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { invoices: {} };
    throw err;
  }
}

/** Atomic on POSIX: readers (and the next run after a crash) see the old file or the new one, never half of one. */
export async function saveState(path: string, state: PayState): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify(state, null, 2) + '\n', { flush: true });
  await rename(temp, path);
}

export async function payInvoices(options: PayOptions): Promise<PayReport> {
  const log = options.log ?? ((line: string) => console.log(line));
  const client = options.client ?? (options.clientOptions ? createPaymentsClient(options.clientOptions) : undefined);
  if (!client) throw new TypeError('payInvoices: pass `client` or `clientOptions`');
  const state = await loadState(options.statePath);
  const report: PayReport = { sent: [], skipped: [], state };
  const save = () => saveState(options.statePath, state);

  for (const invoice of options.invoices) {
    const previous = state.invoices[invoice.invoiceId];
    if (previous && !SEND_AGAIN.has(previous.status)) {
      report.skipped.push(invoice.invoiceId);
      continue;
    }
    // One key per invoice, derived from its id: the same on every run and after any crash.
    const idempotencyKey = previous?.idempotencyKey ?? (await deriveIdempotencyKey('createTransfer', invoice.invoiceId));
    const entry: InvoiceState = { ...previous, invoiceId: invoice.invoiceId, idempotencyKey, status: 'sending', sends: (previous?.sends ?? 0) + 1, updatedAt: new Date().toISOString() };
    state.invoices[invoice.invoiceId] = entry;
    await save(); // BEFORE sending: a crash from here on resumes with this key
    report.sent.push(invoice.invoiceId);

    let outcome;
    try {
      outcome = classifyTransfer(
        await client.POST('/v1/banking/transfers', { body: { recipientId: invoice.recipientId, amount: invoice.amount }, idempotencyKey }),
      );
    } catch (err) {
      outcome = classifyTransfer(err); // rethrows anything that is not a PaymentsError (a bug, or a crash)
    }

    delete entry.errorCode;
    delete entry.requestId;
    switch (outcome.kind) {
      case 'resolved':
        entry.status = 'paid';
        entry.transferId = outcome.transfer.id;
        entry.transferStatus = outcome.transfer.status;
        break;
      case 'closed':
        entry.status = 'failed';
        entry.transferId = outcome.transfer.id;
        entry.transferStatus = outcome.transfer.status;
        break;
      case 'pending_review':
        entry.status = 'pending_review';
        entry.errorCode = outcome.error.code;
        if (outcome.error.requestId) entry.requestId = outcome.error.requestId;
        break;
      case 'unresolved':
        entry.status = 'unresolved';
        if (outcome.error instanceof ApiError) entry.errorCode = outcome.error.code;
        else entry.errorCode = outcome.error.name;
        break;
      case 'key_conflict':
        entry.status = 'key_conflict';
        entry.errorCode = outcome.error.code;
        if (outcome.error.requestId) entry.requestId = outcome.error.requestId;
        break;
      case 'rejected':
        entry.status = 'rejected';
        entry.errorCode = (outcome.error as { code?: string }).code ?? outcome.error.name;
        if (outcome.error instanceof ApiError && outcome.error.requestId) entry.requestId = outcome.error.requestId;
        break;
    }
    entry.updatedAt = new Date().toISOString();
    await save(); // AFTER: the outcome
    log(`${invoice.invoiceId}: ${entry.status}${entry.transferId ? ` ${entry.transferId}` : ''}${entry.errorCode ? ` (${entry.errorCode})` : ''}`);
  }
  return report;
}

async function main(argv: string[]): Promise<number> {
  const [invoicesFile, stateFile = 'pay-invoices.state.json'] = argv;
  const apiKey = process.env.PAYMENTS_API_KEY;
  const baseUrl = process.env.PAYMENTS_BASE_URL;
  if (!invoicesFile || !apiKey || !baseUrl) {
    console.error('usage: PAYMENTS_BASE_URL=… PAYMENTS_API_KEY=… node examples/pay-invoices/index.ts invoices.json [state.json]');
    return 2;
  }
  const invoices = JSON.parse(await readFile(invoicesFile, 'utf8')) as Invoice[];
  const { state } = await payInvoices({ invoices, statePath: resolve(stateFile), clientOptions: { apiKey, baseUrl } });
  const open = Object.values(state.invoices).filter((i) => i.status !== 'paid');
  for (const i of open) console.error(`${i.invoiceId}: ${i.status}${i.errorCode ? ` (${i.errorCode})` : ''}`);
  // 0: everything paid; 1: something needs a later run or a human.
  return open.length ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then((code) => process.exit(code), (err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
