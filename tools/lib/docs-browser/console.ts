// The docs console ("Try it"): a panel beside Redoc's page that sends the operation of the current page to
// the sandbox that served the docs (same origin: the sandbox sends no CORS headers, by design). It lives in
// its own element outside Redoc's React tree, so Redoc's rendering never touches it. Everything it knows
// about the operations comes from the JSON the docs build embeds (tools/lib/docs-console.ts).
//
// The API key: typed by the reader or prefilled from the sandbox's /docs/console.json (only `npm start`'s
// demo mode puts a key there); kept in sessionStorage (this tab only), sent only as a header, never in a URL.
//
// This file holds the console's state and what the reader's actions do; console-panel.ts draws, and
// console-request.ts builds the request and reads the answers.
import type { ConsoleData, ConsoleOperation, ConsoleScenario } from '../docs-console.ts';
import { buildPanel, explainElsewhere, markReplay, renderHistory, renderParams, renderScenario, showError, showResponse } from './console-panel.ts';
import { buildRequest, fieldOf, idFieldOf, parseBody, replayOf, withRememberedIds, type ParameterValue, type Sent } from './console-request.ts';
import { h, session } from './dom.ts';

const STORE = { apiKey: 'payments-docs.apiKey', baseUrl: 'payments-docs.baseUrl', ids: 'payments-docs.ids' };
const SCENARIO_PREFIX = '#try/';

/** Ids the sandbox returned in this tab (recipientId, transferId, …), reused to prefill later requests. */
function rememberedIds(): Record<string, string> {
  try {
    return JSON.parse(session(STORE.ids) ?? '{}') as Record<string, string>;
  } catch {
    return {};
  }
}

const newIdempotencyKey = () => `docs-${crypto.randomUUID()}`;

export function startConsole(data: ConsoleData): void {
  const ui = buildPanel(data.apiKeyHeader);
  const mode = location.protocol === 'file:' ? 'elsewhere' : 'sandbox';
  let current: ConsoleOperation | undefined;
  let scenario: ConsoleScenario | undefined;
  const keys = new Map<string, string>(); // operationId → its Idempotency-Key, until "New key"
  const history = new Map<string, Sent[]>();

  function fillBody(op: ConsoleOperation): void {
    const example = op.examples[Number(ui.exampleSelect.value) || 0];
    ui.body.value = example ? JSON.stringify(withRememberedIds(example.value, rememberedIds()), null, 2) : '';
  }

  const showScenario = () =>
    renderScenario(ui.scenarioBox, scenario && current && scenario.operationId === current.operationId ? scenario : undefined, ui.baseUrl.value || location.origin);
  const showHistory = () => renderHistory(ui.log, current ? (history.get(current.operationId) ?? []) : []);

  function renderOperation(op: ConsoleOperation): void {
    current = op;
    ui.title.textContent = `Try it: ${op.summary}`;
    ui.endpoint.replaceChildren(h('span', { class: `ti-method ti-${op.method.toLowerCase()}` }, op.method), ' ', h('code', {}, op.path));
    renderParams(ui.params, op, keys, rememberedIds(), newIdempotencyKey);
    ui.exampleSelect.replaceChildren(...op.examples.map((e, i) => h('option', { value: String(i) }, e.summary)));
    ui.exampleRow.hidden = op.examples.length < 2;
    ui.bodyRow.hidden = op.examples.length === 0;
    fillBody(op);
    showScenario();
    ui.response.replaceChildren();
    showHistory();
  }

  /** The sandbox's origin, or undefined (and the reason shown) when the request cannot be sent from here. */
  function sandboxBase(): URL | undefined {
    const typed = ui.baseUrl.value.trim();
    if (!typed) {
      showError(ui.response, 'Not sent: enter the base URL of a sandbox first.');
      ui.baseUrl.focus();
      return undefined;
    }
    let base: URL;
    try {
      base = new URL(typed);
    } catch {
      showError(ui.response, `"${ui.baseUrl.value}" is not a URL.`);
      return undefined;
    }
    if (base.origin === location.origin) return base;
    explainElsewhere(ui.notice, `This page is at ${location.protocol === 'file:' ? 'a file' : location.origin}, the sandbox at ${base.origin}.`);
    showError(ui.response, `Not sent: ${base.origin} is another origin, and the sandbox allows no cross-origin requests. Open ${base.origin}/docs/ to try it there.`);
    return undefined;
  }

  async function submit(): Promise<void> {
    const op = current;
    const base = op && sandboxBase();
    if (!op || !base) return;
    const values: ParameterValue[] = [...ui.params.querySelectorAll<HTMLInputElement>('input[data-name]')].map((input) => ({
      name: input.dataset.name ?? '',
      in: input.dataset.in ?? '',
      value: input.value,
    }));
    const request = buildRequest(op, base, { [data.apiKeyHeader]: ui.apiKey.value.trim() }, values, ui.bodyRow.hidden ? undefined : ui.body.value);
    ui.send.disabled = true;
    const started = performance.now();
    try {
      const res = await fetch(request.url, request.init);
      const text = await res.text();
      const parsed = parseBody(text);
      showResponse(ui.response, res, text, parsed, fieldOf(parsed, 'code'), Math.round(performance.now() - started));
      record(op, res, request.key, fieldOf(parsed, 'id'));
    } catch (err) {
      showError(ui.response, `No response: ${err instanceof Error ? err.message : String(err)}. Is the sandbox still running?`);
    } finally {
      ui.send.disabled = false;
    }
  }

  /** Remembers a created resource's id for later requests, and the send in the operation's history. */
  function record(op: ConsoleOperation, res: Response, key: string | undefined, id: string | undefined): void {
    if (res.ok && id && op.method === 'POST') session(STORE.ids, JSON.stringify({ ...rememberedIds(), [idFieldOf(op.path)]: id }));
    const sent = history.get(op.operationId) ?? [];
    const entry: Sent = { n: sent.length + 1, status: res.status, key, id };
    sent.push(entry);
    history.set(op.operationId, sent);
    const replay = replayOf(sent, entry);
    if (replay) markReplay(ui.response, replay);
    showHistory();
  }

  function setOpen(open: boolean): void {
    ui.panel.hidden = !open;
    ui.launcher.setAttribute('aria-expanded', String(open));
    document.documentElement.classList.toggle('try-it-open', open);
    if (open) (ui.apiKey.value ? ui.send : ui.apiKey).focus({ preventScroll: true });
  }

  function onRoute(): void {
    const route = decodeURIComponent(location.hash.replace(/^#/, ''));
    const op = data.operations.find((o) => o.route === route);
    ui.launcher.hidden = !op;
    if (!op) return;
    ui.launcher.textContent = `Try it: ${op.method} ${op.path}`;
    if (op !== current) renderOperation(op);
  }

  function startScenario(name: string): void {
    const found = data.scenarios.find((s) => s.name === name);
    const op = found && data.operations.find((o) => o.operationId === found.operationId);
    if (!found || !op) return;
    scenario = found;
    keys.set(op.operationId, newIdempotencyKey()); // a scenario starts a fresh attempt
    history.delete(op.operationId);
    current = undefined;
    if (location.hash !== `#${op.route}`) location.hash = op.route;
    onRoute();
    setOpen(true);
  }

  ui.launcher.addEventListener('click', () => setOpen(ui.panel.hidden));
  ui.close.addEventListener('click', () => {
    setOpen(false);
    ui.launcher.focus();
  });
  ui.exampleSelect.addEventListener('change', () => current && fillBody(current));
  ui.apiKey.addEventListener('input', () => session(STORE.apiKey, ui.apiKey.value));
  ui.baseUrl.addEventListener('input', () => {
    session(STORE.baseUrl, ui.baseUrl.value);
    showScenario();
  });
  ui.form.addEventListener('submit', (event) => {
    event.preventDefault();
    void submit();
  });
  // Guides link to prefilled requests as #try/<scenario>: taken before Redoc's router sees the click.
  window.addEventListener(
    'click',
    (event) => {
      const link = event.target instanceof Element ? event.target.closest('a[href^="#try/"]') : null;
      if (!link) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      startScenario(link.getAttribute('href')!.slice(SCENARIO_PREFIX.length));
    },
    true,
  );
  window.addEventListener('hashchange', () => {
    if (location.hash.startsWith(SCENARIO_PREFIX)) startScenario(location.hash.slice(SCENARIO_PREFIX.length));
    else onRoute();
  });

  ui.apiKey.value = session(STORE.apiKey) ?? '';
  ui.baseUrl.value = session(STORE.baseUrl) ?? (mode === 'sandbox' ? location.origin : '');
  if (mode === 'elsewhere') explainElsewhere(ui.notice, 'This page was opened from a file.');
  else {
    // Only a sandbox serves its console settings: a 404 or an error means another host serves these docs.
    fetch(data.settingsPath, { cache: 'no-store', credentials: 'omit' })
      .then(async (res) => {
        const settings = res.ok ? ((await res.json()) as { sandbox?: boolean; demoApiKey?: string }) : undefined;
        if (!settings?.sandbox) throw new Error('not a sandbox');
        if (!ui.apiKey.value && settings.demoApiKey) ui.apiKey.value = session(STORE.apiKey, settings.demoApiKey) ?? settings.demoApiKey;
      })
      .catch(() => {
        if (!session(STORE.baseUrl)) ui.baseUrl.value = '';
        explainElsewhere(ui.notice, `${location.origin} does not serve a sandbox.`);
      });
  }
  if (location.hash.startsWith(SCENARIO_PREFIX)) startScenario(location.hash.slice(SCENARIO_PREFIX.length));
  else onRoute();
}
