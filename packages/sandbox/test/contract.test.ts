// contract.ts, without a server: what the sandbox reads from the bundled spec (and only from it). Each reading
// is also checked against an edited copy of the spec, so a value typed by hand would show.
import { describe, expect, it } from 'vitest';
import { createValidator, loadSpec, type JsonObject, type OpenApiDocument } from '@payments/spec';
import { allowedFaultKinds } from '../src/admin/routes.ts';
import { loadContract, type Contract, type OperationContract } from '../src/contract.ts';

const spec = loadSpec();
const contract = loadContract(spec);
const edited = (edit: (doc: any) => void): OpenApiDocument => {
  const doc = structuredClone(spec) as any;
  edit(doc);
  return doc;
};
const opOf = (c: Contract, operationId: string): OperationContract => c.operations.find((o) => o.operationId === operationId)!;

describe('the API key header', () => {
  it("is the name of the spec's one apiKey security scheme sent in a header, lowercased", () => {
    expect(contract.apiKeyHeader).toBe('x-api-key');
    const renamed = edited((doc) => {
      doc.components.securitySchemes.ApiKeyAuth.name = 'X-Partner-Key';
    });
    expect(loadContract(renamed).apiKeyHeader).toBe('x-partner-key');
  });

  it('refuses a spec with no such scheme, or two', () => {
    expect(() => loadContract(edited((doc) => (doc.components.securitySchemes = {})))).toThrow(/exactly one apiKey security scheme in a header; it has 0/);
    const two = edited((doc) => {
      doc.components.securitySchemes.Other = { type: 'apiKey', in: 'header', name: 'x-other' };
    });
    expect(() => loadContract(two)).toThrow(/it has 2/);
    const inQuery = edited((doc) => {
      doc.components.securitySchemes.ApiKeyAuth.in = 'query';
    });
    expect(() => loadContract(inQuery)).toThrow(/it has 0/);
  });
});

describe('the body limit, per operation', () => {
  it('only the operations that document a 413 are body-limited; the GETs are not', () => {
    for (const operationId of ['getBankingBalance', 'getTransfer']) {
      expect(opOf(contract, operationId)).toMatchObject({ hasBody: false, bodyLimited: false, payloadTooLargeCode: undefined });
    }
    for (const op of contract.operations.filter((o) => o.method === 'POST')) {
      expect(op, op.operationId).toMatchObject({ hasBody: true, bodyLimited: true, payloadTooLargeCode: 'payload_too_large' });
    }
  });

  it('follows the spec: without its 413, an operation is not body-limited', () => {
    const without = edited((doc) => delete doc.paths['/v1/checkout/products'].post.responses['413']);
    expect(opOf(loadContract(without), 'createCheckoutProduct')).toMatchObject({ hasBody: true, bodyLimited: false, payloadTooLargeCode: undefined });
  });
});

describe('path matching', () => {
  it('a segment that is not valid percent-encoding matches its operation without a value, which its path validator refuses', () => {
    for (const path of ['/v1/banking/transfers/%ZZ', '/v1/banking/transfers/%', '/v1/banking/transfers/trf_%E0%A4%A']) {
      const matched = contract.match('GET', path);
      expect(matched, path).toMatchObject({ op: { operationId: 'getTransfer', notFoundCode: 'banking_transfer_not_found' } });
      if (!matched || !('op' in matched)) throw new Error('no match');
      expect(matched.params).toEqual({});
      expect(matched.op.pathValidators.get('transferId')!(matched.params.transferId)).toBe(false);
    }
  });

  it('decodes a well-formed segment; a malformed path of no operation matches nothing', () => {
    expect(contract.match('GET', '/v1/banking/transfers/trf_%41b')).toMatchObject({ params: { transferId: 'trf_Ab' } });
    expect(contract.match('GET', '/v1/banking/%ZZ')).toBeUndefined();
    expect(contract.match('GET', '/v1/banking/transfers/%ZZ/x')).toBeUndefined();
  });
});

describe('exact decimal amounts', () => {
  const validate = (operationId: string, body: unknown) => {
    const op = opOf(contract, operationId);
    const ok = op.validateBody!(body);
    return ok ? 'valid' : contract.bodyRefusal(op, body, [...(op.validateBody!.errors ?? [])]).code;
  };

  it('0.1 + 0.2 (0.30000000000000004) is not a two-decimal amount: the spec validator and the sandbox refuse it', () => {
    const schema = opOf(contract, 'createCheckoutSession').body!;
    expect(createValidator(spec).compile(schema)({ amount: 0.1 + 0.2 })).toBe(false);
    expect(validate('createCheckoutSession', { amount: 0.1 + 0.2 })).toBe('invalid_checkout_session_amount');
    expect(validate('createTransfer', { recipientId: 'rcp_1', amount: 0.1 + 0.2 })).toBe('invalid_request');
  });

  it('refuses an amount whose canonical form is not itself a valid amount (the spec bounds the string form)', () => {
    expect(validate('createCheckoutSession', { amount: '999999999999999.99' })).toBe('valid');
    expect(validate('createCheckoutSession', { amount: '12345678901234567' })).toBe('invalid_checkout_session_amount');
    expect(validate('createTransfer', { recipientId: 'rcp_1', amount: 1e21 })).toBe('invalid_request');
    const op = opOf(contract, 'createTransfer');
    op.validateBody!({ recipientId: 'rcp_1', amount: '12345678901234567' });
    expect(op.validateBody!.errors?.[0]).toMatchObject({ instancePath: '/amount', message: expect.stringContaining('12345678901234567.00') });
  });

  it('accepts what the spec accepts: numbers and strings of at most two decimals', () => {
    for (const amount of [37.45, '37.45', 0.07, '0.07', 100, '100', 1.1, '90071992547409.93']) {
      expect(validate('createCheckoutSession', { amount }), String(amount)).toBe('valid');
      expect(validate('createTransfer', { recipientId: 'rcp_1', amount }), String(amount)).toBe('valid');
    }
    expect(validate('createCheckoutSession', { discountPercent: 10 })).toBe('valid');
  });

  it('says the amount rule when an amount breaks it, as a string or a number (not "must be number" from the other branch)', () => {
    const op = opOf(contract, 'createTransfer');
    for (const amount of ['1.005', 1.005, 'abc', 0]) {
      expect(validate('createTransfer', { recipientId: 'rcp_1', amount }), String(amount)).toBe('invalid_request');
      expect(op.validateBody!.errors?.[0], String(amount)).toMatchObject({
        instancePath: '/amount',
        message: `must be a positive decimal with at most two decimal places, as a number or a string (${JSON.stringify(amount)} is not)`,
      });
    }
    expect(validate('createCheckoutSession', { amount: '1.005' })).toBe('invalid_checkout_session_amount');
  });

  it('accepts large two-decimal amounts as JSON numbers, as their strings (a fixed multipleOf tolerance refused them)', () => {
    // 114533670.82 / 0.01 is 11453367081.999998 in doubles: Ajv's multipleOfPrecision 6 refused it, and about
    // one two-decimal amount in ten above 5×10^7 (found by a QA pass against the provider's document).
    for (const amount of [114533670.82, 287352512.72, 648171847.66, 999999999999.99]) {
      expect(validate('createCheckoutSession', { amount }), String(amount)).toBe('valid');
      expect(validate('createTransfer', { recipientId: 'rcp_1', amount }), String(amount)).toBe('valid');
    }
    for (const amount of [1.005, 0.0100001, 0.1 + 0.2, 114533670.825]) {
      expect(validate('createCheckoutSession', { amount }), String(amount)).toBe('invalid_checkout_session_amount');
    }
  });
});

describe('documented errors and edge responses, and the faults they allow', () => {
  it("reads each operation's error codes and edge statuses", () => {
    expect(opOf(contract, 'issueCard').errorCodes.has('provider_rate_limited')).toBe(true);
    expect(opOf(contract, 'createTransfer').errorCodes.has('provider_rate_limited')).toBe(false);
    expect(opOf(contract, 'createTransfer').errorCodes.has('banking_transfer_attempt_pending_review')).toBe(true);
    for (const op of contract.operations) expect([...op.edgeStatuses].sort(), op.operationId).toEqual([502, 504]);
  });

  it('allows a fault kind only where its answer is documented', () => {
    expect(allowedFaultKinds(opOf(contract, 'createTransfer'))).toEqual(['unavailable', 'pending_review', 'edge_502', 'edge_504', 'drop_after_commit']);
    expect(allowedFaultKinds(opOf(contract, 'issueCard'))).toEqual(['unavailable', 'edge_502', 'edge_504', 'drop_after_commit', 'provider_rate_limited']);
    expect(allowedFaultKinds(opOf(contract, 'getBankingBalance'))).toEqual(['unavailable', 'edge_502', 'edge_504', 'drop_after_commit']);
  });

  it('follows the spec when it changes', () => {
    const changed = loadContract(
      edited((doc) => {
        delete doc.paths['/v1/banking/balance'].get.responses['502'];
        doc.paths['/v1/banking/transfers'].post.responses['503'].content['application/json'].examples.provider_rate_limited = {
          $ref: '#/components/examples/provider_rate_limited',
        } satisfies JsonObject;
      }),
    );
    expect(allowedFaultKinds(opOf(changed, 'getBankingBalance'))).toEqual(['unavailable', 'edge_504', 'drop_after_commit']);
    expect(allowedFaultKinds(opOf(changed, 'createTransfer'))).toContain('provider_rate_limited');
  });
});
