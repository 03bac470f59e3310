// What every contender sends and every transport answers: one transfer and one balance, as the spec
// shapes them. Shared by the stub transport and the HTTP server so both answer byte for byte the same.
import type { components } from '@payments/types';

export const API_KEY = 'svc_live_benchclient0001';
export const TRANSFERS_PATH = '/v1/banking/transfers';
export const BALANCE_PATH = '/v1/banking/balance';

export const transferBody: components['schemas']['TransferCreate'] = { recipientId: 'rcp_01JD7Q3Z8X4K2M9N5P6R7S8T9V', amount: '150.00' };

export const transfer: components['schemas']['Transfer'] = {
  id: 'trf_01JD7Q3Z8X4K2M9N5P6R7S8T9V',
  recipientId: transferBody.recipientId,
  amount: '150.00',
  status: 'pending',
  idempotencyKey: 'bench-key-0',
};

export const balance: components['schemas']['Balance'] = {
  balances: [
    { currency: 'BRL', available: '1520.75' },
    { currency: 'USD', available: '310.00' },
  ],
};

/** A new key per call for every contender alike (a real caller sends one key per payment). */
let counter = 0;
export const nextKey = () => `bench-key-${++counter}`;
