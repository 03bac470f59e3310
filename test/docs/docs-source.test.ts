// What the docs say to a reader who installed the packages (`npx payments-sandbox`, `npx payments-contract-kit`)
// rather than cloned the repository, and the servers the Servers panel shows: read from the docs' source
// (tools/lib/docs.ts, tools/lib/docs-workflows.ts), before Redoc renders it. The browser tests
// (reader-paths.browser.test.ts) check the same on the rendered page where the page itself changes it.
import { describe, expect, it } from 'vitest';
import { isObject, loadSpec, type JsonObject } from '@payments/spec';
import { docsSource, SCENARIOS, testValuesMarkdown, withAbsoluteUrl } from '../../tools/lib/docs.ts';
import { workflowConsoleData, workflowTag } from '../../tools/lib/docs-workflows.ts';

const doc = loadSpec();
const source = docsSource(doc);
const tags = (source.tags as JsonObject[]).filter(isObject);
const tag = (name: string) => String(tags.find((t) => t.name === name)?.description ?? '');

describe('the docs speak to users of the installed packages too', () => {
  it('the Sandbox test values guide names `npx payments-sandbox` next to `npm start`, and the installed admin CLI', () => {
    const text = testValuesMarkdown();
    expect(text).toContain('`npx payments-sandbox`, or `npm start` in the repository');
    expect(text).toContain('`npx payments-sandbox admin --help`');
    expect(text).not.toMatch(/\(`npm start`\)/);
  });

  it('the Idempotency guide\'s Try-it paragraph names `npx payments-sandbox`', () => {
    const guide = tag('Idempotency and retries');
    expect(guide.split('\n\n')[0]).toContain('`npx payments-sandbox`, or `npm start` in the repository');
  });

  it('the 503 scenario\'s command is the installed admin CLI first (the repository\'s form second)', () => {
    const retry = SCENARIOS.find((s) => s.name === 'retry-503')!;
    const [first, second] = retry.command!.split('\n');
    expect(first).toMatch(/^npx payments-sandbox admin --url \{baseUrl\} --token <admin token> fault add --operation createTransfer --kind unavailable --count 1 --resolution completed$/);
    expect(second).toContain('node tools/launch.mjs packages/sandbox/src/cli.ts --url {baseUrl}');
    expect(retry.steps.join(' ')).toContain('npx payments-sandbox');
    expect(retry.steps.join(' ')).not.toContain('that npm start printed');
  });

  it('each workflow page gives the installed command (`npx payments-contract-kit workflows`) and the installed file', () => {
    for (const w of workflowConsoleData(doc)) {
      const page = tag(workflowTag(w.workflowId));
      expect(page, w.workflowId).toContain(`\`npx payments-contract-kit workflows --workflow ${w.workflowId}\``);
      expect(page, w.workflowId).toContain(`\`npm run workflows -- --workflow ${w.workflowId}\``);
      expect(page, w.workflowId).toMatch(/\*\*File:\*\* `@payments\/spec\/dist\/workflows\/[a-z-]+\.arazzo\.yaml`/);
    }
  });
});

describe('the Servers panel', () => {
  it('gets absolute URLs only (Redoc resolves `{base_url}` against the page: http://…/docs/{base_url}), and the sandbox\'s `/`', () => {
    const servers = (source.servers as JsonObject[]).filter(isObject);
    for (const s of servers) expect(String(s.url)).toMatch(/^(https?:\/\/[^{}]+|\/)$/);
    const production = servers[0]!;
    expect(production.url).toBe('https://api.payments.invalid');
    expect(String(production.description)).toContain('{base_url} at its default, https://api.payments.invalid');
    expect(String(production.description)).toContain('placeholder');
    expect(String(production.description)).not.toContain('**Assumed:**');
  });

  it('withAbsoluteUrl leaves an absolute URL and `/` alone, and refuses a URL its defaults cannot make absolute', () => {
    const absolute = { url: 'https://{region}.example.com', variables: { region: { default: 'eu' } } };
    withAbsoluteUrl(absolute);
    expect(absolute.url).toBe('https://{region}.example.com');
    const root = { url: '/' };
    withAbsoluteUrl(root);
    expect(root.url).toBe('/');
    expect(() => withAbsoluteUrl({ url: '{path}', variables: { path: { default: 'v1' } } })).toThrow(/not absolute/);
  });
});
