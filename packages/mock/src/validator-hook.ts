// Loaded into Prism's process (`node --import`, by payments-mock (cli.ts) and tools/lib/prism.ts): gives Prism's request and response validator
// the multipleOf tolerance ours has (Ajv's `multipleOfPrecision`, from @payments/spec), so `multipleOf: 0.01`
// means "at most two decimal places" there too. Without it Prism's Ajv divides doubles exactly
// (0.07 / 0.01 = 7.000000000000001) and refuses 1,363 of the 10,000 valid two-decimal amounts up to 100.00.
//
// Why a load hook and not a derived schema: no JSON Schema that Ajv evaluates with exact float division says
// "at most two decimal places" for every number (k/100 is not a binary fraction, so x / d is inexact for some
// k whatever the divisor d), and Prism exposes no Ajv options. Prism builds its Ajv instances from one object,
// `baseAjvOptions`, in @stoplight/prism-http's validator/validators/utils.js: this hook adds the option there
// as the module is loaded, and fails Prism's start when that text is not found (a Prism upgrade must revisit
// it; test/mock/prism.test.ts sends all 10,000 amounts).
import { registerHooks } from 'node:module';

const TARGET = '/@stoplight/prism-http/dist/validator/validators/utils.js';
const ANCHOR = 'const baseAjvOptions = {';
const precision = Number(process.env.PRISM_MULTIPLE_OF_PRECISION);
if (!Number.isInteger(precision) || precision < 1) throw new Error('prism-validator-hook: PRISM_MULTIPLE_OF_PRECISION must be a positive integer');

let patched = false;
registerHooks({
  load(url, context, nextLoad) {
    const result = nextLoad(url, context);
    if (!url.endsWith(TARGET)) return result;
    const source = String(result.source);
    if (!source.includes(ANCHOR)) throw new Error(`prism-validator-hook: ${TARGET} no longer contains "${ANCHOR}"; Prism changed, revisit packages/mock/src/validator-hook.ts`);
    patched = true;
    return { ...result, source: source.replace(ANCHOR, `${ANCHOR} multipleOfPrecision: ${precision},`) };
  },
});

// Prism loads its validator while starting; if it never did, say so instead of running unpatched.
process.on('exit', () => {
  if (!patched) process.stderr.write(`prism-validator-hook: ${TARGET} was never loaded; the multipleOf tolerance is NOT applied\n`);
});
