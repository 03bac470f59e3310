// The docs console ("Try it"): a panel beside Redoc's page that sends the operation of the current page to
// the sandbox that served the docs (same origin: the sandbox sends no CORS headers, by design). It lives in
// its own element outside Redoc's React tree, so Redoc's rendering never touches it. Everything it knows
// about the operations comes from the JSON the docs build embeds (tools/lib/docs-console.ts).
//
// The API key: typed by the reader or prefilled from the sandbox's /docs/console.json (only `npm start`'s
// demo mode puts a key there); kept in sessionStorage (this tab only), sent only as a header, never in a URL.
import type { ConsoleData, ConsoleOperation, ConsoleParameter, ConsoleScenario } from '../docs-console.ts';

type Mode = 'sandbox' | 'elsewhere';
interface Sent {
  n: number;
  status: number;
  key: string | undefined;
  id: string | undefined;
}

const STORE = { apiKey: 'payments-docs.apiKey', baseUrl: 'payments-docs.baseUrl', ids: 'payments-docs.ids' };
const IDEMPOTENCY_HEADER = 'idempotency-key';
const SCENARIO_PREFIX = '#try/';

function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  el.append(...children);
  return el;
}

function session(key: string, value?: string): string | null {
  try {
    if (value !== undefined) sessionStorage.setItem(key, value);
    return sessionStorage.getItem(key);
  } catch {
    return null; // storage disabled: the console still works, it just forgets on reload
  }
}

/** Ids the sandbox returned in this tab (recipientId, transferId, …), reused to prefill later requests. */
function rememberedIds(): Record<string, string> {
  try {
    return JSON.parse(session(STORE.ids) ?? '{}') as Record<string, string>;
  } catch {
    return {};
  }
}

/** `/v1/banking/recipients` creates a `recipientId`; `/v1/cards` a `cardId`. */
function idFieldOf(path: string): string {
  const last = path.split('/').filter(Boolean).pop() ?? 'resource';
  return `${last.replace(/s$/, '')}Id`;
}

/** The example with ids the sandbox gave this tab in place of the spec's sample ids. */
function withRememberedIds(value: unknown, ids: Record<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => withRememberedIds(v, ids));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === 'string' && ids[k] ? ids[k] : withRememberedIds(v, ids)]));
}

const newIdempotencyKey = () => `docs-${crypto.randomUUID()}`;

export function startConsole(data: ConsoleData): void {
  const mode: Mode = location.protocol === 'file:' ? 'elsewhere' : 'sandbox';
  let current: ConsoleOperation | undefined;
  let scenario: ConsoleScenario | undefined;
  const keys = new Map<string, string>(); // operationId → its Idempotency-Key, until "New key"
  const history = new Map<string, Sent[]>();

  const launcher = h('button', { type: 'button', class: 'try-it-launcher', 'aria-controls': 'try-it', 'aria-expanded': 'false', hidden: '' });
  const title = h('h2', { id: 'try-it-title' }, 'Try it');
  const close = h('button', { type: 'button', class: 'ti-close', 'aria-label': 'Close the console' }, '×');
  const endpoint = h('p', { class: 'ti-endpoint' });
  const scenarioBox = h('div', { class: 'ti-scenario', hidden: '' });
  const notice = h('div', { class: 'ti-notice', role: 'note', hidden: '' });
  const baseUrl = h('input', { id: 'ti-base-url', name: 'baseUrl', type: 'url', autocomplete: 'off', spellcheck: 'false', placeholder: 'http://127.0.0.1:8080' });
  const apiKey = h('input', { id: 'ti-api-key', name: 'apiKey', type: 'text', autocomplete: 'off', spellcheck: 'false', placeholder: 'svc_live_…' });
  const params = h('div', { class: 'ti-params' });
  const exampleSelect = h('select', { id: 'ti-example' });
  const exampleRow = h('div', { class: 'ti-field' }, h('label', { for: 'ti-example' }, 'Example (from the spec)'), exampleSelect);
  const body = h('textarea', { id: 'ti-body', name: 'body', rows: '7', spellcheck: 'false' });
  const bodyRow = h('div', { class: 'ti-field' }, h('label', { for: 'ti-body' }, 'Body (JSON)'), body);
  const send = h('button', { type: 'submit', class: 'ti-send' }, 'Send');
  const form = h(
    'form',
    { class: 'ti-form', 'aria-label': 'Request' },
    h('div', { class: 'ti-field' }, h('label', { for: 'ti-base-url' }, 'Base URL'), baseUrl),
    h('div', { class: 'ti-field' }, h('label', { for: 'ti-api-key' }, `API key (${data.apiKeyHeader})`), apiKey, h('small', {}, 'Kept in this tab only (sessionStorage); sent as a header, never in a URL.')),
    params,
    exampleRow,
    bodyRow,
    h('div', { class: 'ti-actions' }, send),
  );
  const response = h('section', { class: 'ti-response', 'aria-live': 'polite', 'aria-label': 'Response' });
  const log = h('ul', { class: 'ti-history', 'aria-label': 'Requests sent from this page' });
  const panel = h(
    'aside',
    { id: 'try-it', 'aria-labelledby': 'try-it-title', hidden: '' },
    h('div', { class: 'ti-head' }, title, close),
    endpoint,
    scenarioBox,
    notice,
    form,
    response,
    log,
  );
  document.body.append(launcher, panel);

  function explainElsewhere(reason: string): void {
    notice.hidden = false;
    notice.replaceChildren(
      h('p', {}, h('strong', {}, 'Open these docs from the sandbox to send requests. '), reason),
      h('p', {}, 'Enter the base URL of a running sandbox (npm start prints it), then open its docs at ', h('code', {}, '<base URL>/docs/'), '. The sandbox sends no CORS headers, by design: the API is server-to-server, so a browser page on another origin (or a file) cannot call it, and an API key never has to live in a web page of another site. The console therefore sends only to the origin that served this page.'),
    );
  }

  function renderParams(op: ConsoleOperation): void {
    const ids = rememberedIds();
    params.replaceChildren(
      ...op.parameters
        .filter((p) => p.in !== 'query' || p.required)
        .map((p: ConsoleParameter) => {
          const id = `ti-param-${p.in}-${p.name}`;
          const isKey = p.in === 'header' && p.name.toLowerCase() === IDEMPOTENCY_HEADER;
          let value = p.example ?? '';
          if (isKey) {
            if (!keys.has(op.operationId)) keys.set(op.operationId, newIdempotencyKey());
            value = keys.get(op.operationId)!;
          } else if (p.in === 'path' && ids[p.name]) value = ids[p.name]!;
          const input = h('input', { id, 'data-in': p.in, 'data-name': p.name, type: 'text', autocomplete: 'off', spellcheck: 'false', value });
          if (p.required) input.required = true;
          const label = h('label', { for: id }, `${p.name} (${p.in})`);
          if (!isKey) return h('div', { class: 'ti-field' }, label, input);
          input.addEventListener('input', () => keys.set(op.operationId, input.value));
          const renew = h('button', { type: 'button', class: 'ti-secondary' }, 'New key');
          renew.addEventListener('click', () => {
            keys.set(op.operationId, (input.value = newIdempotencyKey()));
          });
          return h('div', { class: 'ti-field' }, label, h('div', { class: 'ti-inline' }, input, renew), h('small', {}, 'Generated for this page; sending again with the same key replays the original result.'));
        }),
    );
  }

  function fillBody(op: ConsoleOperation): void {
    const example = op.examples[Number(exampleSelect.value) || 0];
    body.value = example ? JSON.stringify(withRememberedIds(example.value, rememberedIds()), null, 2) : '';
  }

  function renderOperation(op: ConsoleOperation): void {
    current = op;
    title.textContent = `Try it: ${op.summary}`;
    endpoint.replaceChildren(h('span', { class: `ti-method ti-${op.method.toLowerCase()}` }, op.method), ' ', h('code', {}, op.path));
    renderParams(op);
    exampleSelect.replaceChildren(...op.examples.map((e, i) => h('option', { value: String(i) }, e.summary)));
    exampleRow.hidden = op.examples.length < 2;
    bodyRow.hidden = op.examples.length === 0;
    fillBody(op);
    renderScenario();
    response.replaceChildren();
    renderHistory();
  }

  function renderScenario(): void {
    const active = scenario && current && scenario.operationId === current.operationId ? scenario : undefined;
    scenarioBox.hidden = !active;
    if (!active) return scenarioBox.replaceChildren();
    const command = active.command?.replace('{baseUrl}', baseUrl.value || location.origin);
    scenarioBox.replaceChildren(
      h('h3', {}, active.title),
      h('ol', {}, ...active.steps.map((s) => h('li', {}, s))),
      ...(command ? [h('pre', { class: 'ti-command', tabindex: '0', 'aria-label': 'Admin command to run in a terminal' }, h('code', {}, command))] : []),
    );
  }

  /** An earlier send with the same Idempotency-Key that got the same id: this one was a replay. */
  const replayOf = (sent: Sent[], s: Sent) => sent.find((o) => o.n < s.n && o.key !== undefined && o.key === s.key && o.id !== undefined && o.id === s.id);

  function renderHistory(): void {
    const sent = current ? (history.get(current.operationId) ?? []) : [];
    log.replaceChildren(
      ...sent.map((s) => {
        const replay = replayOf(sent, s);
        return h('li', {}, `Send ${s.n}: ${s.status}${s.id ? ` ${s.id}` : ''}${s.key ? ` (key ${s.key})` : ''}${replay ? `: same id as send ${replay.n}, the original result replayed` : ''}`);
      }),
    );
  }

  function showResponse(res: Response, text: string, ms: number): unknown {
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const code = parsed && typeof parsed === 'object' && 'code' in parsed ? String((parsed as { code: unknown }).code) : undefined;
    const headers = [...res.headers.entries()];
    response.replaceChildren(
      h('h3', {}, 'Response'),
      h('p', { class: `ti-status ti-status-${String(res.status)[0]}xx` }, `${res.status} ${res.statusText}`, h('span', { class: 'ti-time' }, ` in ${ms} ms`)),
      ...(code ? [h('p', {}, 'Error code ', h('code', {}, code), ': see ', h('a', { href: '#/errors' }, 'the error catalog'), ' for what it means and what to do.')] : []),
      h('details', {}, h('summary', {}, `Headers (${headers.length})`), h('dl', { class: 'ti-headers' }, ...headers.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]))),
      h('pre', { class: 'ti-body', tabindex: '0', 'aria-label': 'Response body' }, h('code', {}, parsed === undefined ? text : JSON.stringify(parsed, null, 2))),
    );
    return parsed;
  }

  async function submit(): Promise<void> {
    const op = current;
    if (!op) return;
    if (!baseUrl.value.trim()) {
      response.replaceChildren(h('p', { class: 'ti-error', role: 'alert' }, 'Not sent: enter the base URL of a sandbox first.'));
      baseUrl.focus();
      return;
    }
    let base: URL;
    try {
      base = new URL(baseUrl.value.trim());
    } catch {
      response.replaceChildren(h('p', { class: 'ti-error', role: 'alert' }, `"${baseUrl.value}" is not a URL.`));
      return;
    }
    if (base.origin !== location.origin) {
      explainElsewhere(`This page is at ${location.protocol === 'file:' ? 'a file' : location.origin}, the sandbox at ${base.origin}.`);
      response.replaceChildren(h('p', { class: 'ti-error', role: 'alert' }, `Not sent: ${base.origin} is another origin, and the sandbox allows no cross-origin requests. Open ${base.origin}/docs/ to try it there.`));
      return;
    }
    const headers: Record<string, string> = { [data.apiKeyHeader]: apiKey.value.trim() };
    let path = op.path;
    const query = new URLSearchParams();
    for (const input of params.querySelectorAll<HTMLInputElement>('input[data-name]')) {
      const { name = '', in: where } = input.dataset;
      if (where === 'path') path = path.replace(`{${name}}`, encodeURIComponent(input.value));
      else if (where === 'header' && input.value) headers[name] = input.value;
      else if (where === 'query' && input.value) query.set(name, input.value);
    }
    const init: RequestInit = { method: op.method, headers, cache: 'no-store', credentials: 'omit' };
    if (!bodyRow.hidden) {
      headers['content-type'] = 'application/json';
      init.body = body.value;
    }
    const url = new URL(path.replace(/^\//, ''), base.href.endsWith('/') ? base.href : `${base.href}/`);
    if ([...query].length > 0) url.search = query.toString();
    send.disabled = true;
    const started = performance.now();
    try {
      const res = await fetch(url, init);
      const text = await res.text();
      const parsed = showResponse(res, text, Math.round(performance.now() - started));
      const id = parsed && typeof parsed === 'object' && 'id' in parsed ? String((parsed as { id: unknown }).id) : undefined;
      if (res.ok && id && op.method === 'POST') session(STORE.ids, JSON.stringify({ ...rememberedIds(), [idFieldOf(op.path)]: id }));
      const sent = history.get(op.operationId) ?? [];
      const entry: Sent = { n: sent.length + 1, status: res.status, key: Object.entries(headers).find(([k]) => k.toLowerCase() === IDEMPOTENCY_HEADER)?.[1], id };
      sent.push(entry);
      history.set(op.operationId, sent);
      const replay = replayOf(sent, entry);
      if (replay) response.querySelector('.ti-status')?.after(h('p', { class: 'ti-replay' }, `Same id as send ${replay.n} with this Idempotency-Key: the sandbox replayed the original result; nothing was created twice.`));
      renderHistory();
    } catch (err) {
      response.replaceChildren(h('p', { class: 'ti-error', role: 'alert' }, `No response: ${err instanceof Error ? err.message : String(err)}. Is the sandbox still running?`));
    } finally {
      send.disabled = false;
    }
  }

  function setOpen(open: boolean): void {
    panel.hidden = !open;
    launcher.setAttribute('aria-expanded', String(open));
    document.documentElement.classList.toggle('try-it-open', open);
    if (open) (apiKey.value ? send : apiKey).focus({ preventScroll: true });
  }

  function onRoute(): void {
    const route = decodeURIComponent(location.hash.replace(/^#/, ''));
    const op = data.operations.find((o) => o.route === route);
    launcher.hidden = !op;
    if (!op) return;
    launcher.textContent = `Try it: ${op.method} ${op.path}`;
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

  launcher.addEventListener('click', () => setOpen(panel.hidden));
  close.addEventListener('click', () => {
    setOpen(false);
    launcher.focus();
  });
  exampleSelect.addEventListener('change', () => current && fillBody(current));
  apiKey.addEventListener('input', () => session(STORE.apiKey, apiKey.value));
  baseUrl.addEventListener('input', () => {
    session(STORE.baseUrl, baseUrl.value);
    renderScenario();
  });
  form.addEventListener('submit', (event) => {
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

  apiKey.value = session(STORE.apiKey) ?? '';
  baseUrl.value = session(STORE.baseUrl) ?? (mode === 'sandbox' ? location.origin : '');
  if (mode === 'elsewhere') explainElsewhere('This page was opened from a file.');
  else {
    // Only a sandbox serves its console settings: a 404 or an error means another host serves these docs.
    fetch(data.settingsPath, { cache: 'no-store', credentials: 'omit' })
      .then(async (res) => {
        const settings = res.ok ? ((await res.json()) as { sandbox?: boolean; demoApiKey?: string }) : undefined;
        if (!settings?.sandbox) throw new Error('not a sandbox');
        if (!apiKey.value && settings.demoApiKey) apiKey.value = session(STORE.apiKey, settings.demoApiKey) ?? settings.demoApiKey;
      })
      .catch(() => {
        if (!session(STORE.baseUrl)) baseUrl.value = '';
        explainElsewhere(`${location.origin} does not serve a sandbox.`);
      });
  }
  if (location.hash.startsWith(SCENARIO_PREFIX)) startScenario(location.hash.slice(SCENARIO_PREFIX.length));
  else onRoute();
}
