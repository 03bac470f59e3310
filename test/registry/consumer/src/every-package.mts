// Every package's API as a consumer uses it, type-checked strict (skipLibCheck false: the packages' own .d.ts
// are checked too) and run once: the readers of @payments/spec, the types, the sandbox and the kit as
// libraries, the mock's document. The @ts-expect-error lines prove the types are real, not `any`.
import { readFileSync } from 'node:fs';
import { CHECKS, type CheckDefinition } from '@payments/contract-kit';
import { mockDocumentPath } from '@payments/mock';
import { startSandbox, TEST_VALUES, type RunningSandbox, type TestValue } from '@payments/sandbox';
import { assumptions, errorCatalog, loadSpec, type CatalogEntry } from '@payments/spec';
import type { ErrorCode, TransferStatus } from '@payments/types';

const status: TransferStatus = 'pending';
// @ts-expect-error not a documented transfer status
const wrong: TransferStatus = 'settled';
const conflict: ErrorCode<'createTransfer'> = 'banking_transfer_idempotency_conflict';

const catalog: CatalogEntry[] = errorCatalog(loadSpec());
const checks: readonly CheckDefinition[] = CHECKS;
const mock = JSON.parse(readFileSync(mockDocumentPath, 'utf8')) as { openapi: string };

const sandbox: RunningSandbox = await startSandbox({ port: 0 });
// @ts-expect-error the sandbox's URL is a string
const notANumber: number = sandbox.url;
const testValues: readonly TestValue[] = TEST_VALUES;
const health = await fetch(`${sandbox.url}/openapi.json`).then((r) => r.status, () => 0);
await sandbox.close();

console.log(
  JSON.stringify({ codes: catalog.length, assumed: assumptions(loadSpec()).length, checks: checks.length, mockOpenapi: mock.openapi, sandboxAnswered: health, testValueCodes: testValues.map((t) => t.code), status, wrong, conflict, notANumber }),
);
