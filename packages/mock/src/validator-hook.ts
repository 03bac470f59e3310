// Loaded into Prism's process (`node --import`, by payments-mock (cli.ts) and tools/lib/prism.ts): gives Prism's
// request and response validator the `multipleOf` ours has (useExactMultipleOf, from @payments/spec), so
// `multipleOf: 0.01` means "at most two decimal places" there too. Without it Prism's Ajv divides doubles
// exactly (0.07 / 0.01 = 7.000000000000001) and refuses 1,363 of the 10,000 valid two-decimal amounts up to
// 100.00; with a fixed tolerance (Ajv's `multipleOfPrecision`, what this hook gave before) it still refused
// about one large amount in ten (114533670.82).
//
// Why a load hook and not a derived schema: no JSON Schema that Ajv evaluates with float division says
// "at most two decimal places" for every number (k/100 is not a binary fraction, so x / d is inexact for some
// k whatever the divisor d), and Prism exposes no Ajv options. Prism builds its Ajv instances in one function,
// `createAjvInstances`, in @stoplight/prism-http's validator/validators/utils.js: this hook wraps it as the
// module is loaded, and fails Prism's start when that text is not found (a Prism upgrade must revisit it;
// test/mock/prism.test.ts sends all 10,000 amounts up to 100.00 and large ones).
import { registerHooks } from 'node:module';
import { useExactMultipleOf } from '@payments/spec/decimal';

const TARGET = '/@stoplight/prism-http/dist/validator/validators/utils.js';
const ANCHOR = 'const ajvInstances = {';
const INSTALL = Symbol.for('@payments/mock: exact multipleOf');
(globalThis as Record<symbol, unknown>)[INSTALL] = useExactMultipleOf;

// Runs in utils.js, before its instances are made: each Ajv it creates gets the exact multipleOf.
const WRAP = `{ const create = createAjvInstances, install = globalThis[Symbol.for(${JSON.stringify(INSTALL.description)})];
  createAjvInstances = (Ajv) => { const made = create(Ajv); install(made.coerce); install(made.noCoerce); return made; }; }
`;

let patched = false;
registerHooks({
  load(url, context, nextLoad) {
    const result = nextLoad(url, context);
    if (!url.endsWith(TARGET)) return result;
    const source = String(result.source);
    if (!source.includes(ANCHOR) || !source.includes('function createAjvInstances(Ajv)')) {
      throw new Error(`prism-validator-hook: ${TARGET} no longer defines createAjvInstances before "${ANCHOR}"; Prism changed, revisit packages/mock/src/validator-hook.ts`);
    }
    patched = true;
    return { ...result, source: source.replace(ANCHOR, `${WRAP}${ANCHOR}`) };
  },
});

// Prism loads its validator while starting; if it never did, say so instead of running unpatched.
process.on('exit', () => {
  if (!patched) process.stderr.write(`prism-validator-hook: ${TARGET} was never loaded; the exact multipleOf is NOT applied\n`);
});
