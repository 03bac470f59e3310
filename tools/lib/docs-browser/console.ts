// The docs console ("Try it"): a panel beside Redoc's page that sends the operation of the current page to
// the sandbox that served the docs (same origin: the sandbox sends no CORS headers, by design). It lives in
// its own element outside Redoc's React tree, so Redoc's rendering never touches it. Everything it knows
// about the operations comes from the JSON the docs build embeds (tools/lib/docs-console.ts).
//
// The API key: typed by the reader or prefilled from the sandbox's /docs/console.json (only `npm start`'s
// demo mode puts a key there); kept in sessionStorage (this tab only), sent only as a header, never in a URL.
// A demo key the console filled in gives way to the sandbox's current one (a restarted sandbox, a new
// database: a new demo key); a key the reader typed stays, and a 401 offers the demo key instead.
//
// This file holds the console's state and what the reader's actions do; console-panel.ts draws, and
// console-request.ts builds the request and reads the answers.
import type { ConsoleData, ConsoleOperation, ConsoleScenario } from '../docs-console.ts';
import { buildPanel, explainElsewhere, markOtherRequest, markReplay, offerDemoKey, renderHistory, renderParams, renderPrerequisite, renderScenario, showBreach, showConflictHolder, showError, showResponse } from './console-panel.ts';
import { buildRequest, fieldOf, firstBreach, IDEMPOTENCY_HEADER, idFieldOf, otherRequestOf, parseBody, replayOf, requestIdentity, withRememberedIds, type ParameterBreach, type ParameterValue, type Sent } from './console-request.ts';
import { coverPageWhenNarrow, h, narrowScreen, session } from './dom.ts';
import { currentRoute, onLocationChange } from './route.ts';
import { freshTag, holderOf, rememberCreated, withFreshValues } from './console-fresh.ts';

const STORE = { apiKey: 'payments-docs.apiKey', baseUrl: 'payments-docs.baseUrl', ids: 'payments-docs.ids', demoKey: 'payments-docs.demoKey' };
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

/**
 * A guide's (or an error card's) name for the tab: its sidebar entry's label, or, when its entry is not in the
 * sidebar's DOM (an error card in the collapsed Errors group, reached by search or a linked code), its section's
 * heading. Undefined until either is rendered.
 */
function sectionLabel(route: string): string | undefined {
  // The sidebar's links are the routes themselves (`/errors`, as rendered on the server), or the same with a `#`.
  const link = [...document.querySelectorAll<HTMLAnchorElement>('[data-component-name="Menu/Menu"] a[href]')].find((a) => [route, `#${route}`].includes(a.getAttribute('href') ?? ''));
  const section = [...document.querySelectorAll<HTMLElement>('main [data-section-id]')].find((el) => el.dataset.sectionId === route);
  const heading = section?.querySelector<HTMLElement>('h1, h2, h3, h4, h5');
  const label = (link?.innerText || heading?.innerText)?.replace(/\s+/g, ' ').trim();
  return label || undefined;
}

const titled = (label: string | undefined, pageTitle: string) => (label && label !== pageTitle ? `${label} · ${pageTitle}` : pageTitle);

export function startConsole(data: ConsoleData): void {
  const ui = buildPanel(data.apiKeyHeader);
  const mode = location.protocol === 'file:' ? 'elsewhere' : 'sandbox';
  let current: ConsoleOperation | undefined;
  let scenario: ConsoleScenario | undefined;
  let sending = false;
  /** The sandbox's demo key (its /docs/console.json), when it serves one. */
  let demoApiKey: string | undefined;
  const pageTitle = document.title;
  const keys = new Map<string, string>(); // operationId → its Idempotency-Key, until "New key"
  const history = new Map<string, Sent[]>();
  const tags = new Map<string, string>(); // operationId → the tag of its fresh unique values, until "New values and key"
  /** The operation that creates what a body field refers to: createRecipient for `recipientId`. */
  const creators = new Map(data.operations.filter((o) => o.method === 'POST' && !o.path.includes('{')).map((o) => [idFieldOf(o.path), o]));

  function exampleBody(op: ConsoleOperation, index: number): unknown {
    const example = op.examples[index];
    if (!example) return undefined;
    if (!tags.has(op.operationId)) tags.set(op.operationId, freshTag());
    return withFreshValues(withRememberedIds(example.value, rememberedIds()), op, tags.get(op.operationId)!);
  }

  /** The body as the reader left it, per operation: scrolling to another operation and back keeps an edit. */
  const edited = new Map<string, string>();

  /** The reader's edit of the body when there is one (`keepEdit`), else the chosen example. */
  function fillBody(op: ConsoleOperation, keepEdit = true): void {
    const kept = keepEdit ? edited.get(op.operationId) : undefined;
    if (!keepEdit) edited.delete(op.operationId);
    const body = kept === undefined ? exampleBody(op, Number(ui.exampleSelect.value) || 0) : undefined;
    ui.body.value = kept ?? (body === undefined ? '' : JSON.stringify(body, null, 2));
    showPrerequisite(op);
  }

  /**
   * The console put another body in (another example, a recipient it created). Another request takes a new
   * key (section 7: "unique per new request"; reused only to retry the same request): the old key, sent with
   * it, would answer with the old request's result, or 409 for a transfer. The same request written another
   * way (the amount as a number: the document's identity) keeps its key, so sending it is a retry, replayed.
   */
  function refill(op: ConsoleOperation): void {
    const before = requestIdentity(op.operationId, ui.body.value);
    fillBody(op, false);
    if (before !== undefined && requestIdentity(op.operationId, ui.body.value) === before) return;
    const header = op.parameters.find((p) => p.in === 'header' && p.name.toLowerCase() === IDEMPOTENCY_HEADER);
    if (!header) return;
    keys.set(op.operationId, newIdempotencyKey());
    const input = ui.params.querySelector<HTMLInputElement>(`input[data-in="header"][data-name="${CSS.escape(header.name)}"]`);
    if (input) input.value = keys.get(op.operationId)!;
  }

  /** A body field referring to something this tab has not created yet (the spec's sample id): offer to create it. */
  function showPrerequisite(op: ConsoleOperation, unknownToSandbox = false): void {
    const body = parseBody(ui.body.value);
    const ids = rememberedIds();
    const field = body && typeof body === 'object' ? Object.keys(body).find((k) => creators.has(k) && creators.get(k) !== op && (unknownToSandbox || !ids[k])) : undefined;
    renderPrerequisite(ui.prereq, field ? creators.get(field) : undefined, field, unknownToSandbox, () => void createPrerequisite(field!));
  }

  /** Sends the creating operation's first example with fresh unique values and a new key; puts the new id in the body. */
  async function createPrerequisite(field: string): Promise<void> {
    const creator = creators.get(field);
    const base = creator && sandboxBase();
    if (!creator || !base) return;
    const body = withFreshValues(creator.examples[0]?.value, creator, freshTag());
    const values: ParameterValue[] = creator.parameters.filter((p) => p.in === 'header').map((p) => ({ name: p.name, in: p.in, value: p.name.toLowerCase() === IDEMPOTENCY_HEADER ? newIdempotencyKey() : (p.example ?? '') }));
    const request = buildRequest(creator, base, { [data.apiKeyHeader]: ui.apiKey.value.trim() }, values, JSON.stringify(body));
    try {
      const res = await fetch(request.url, request.init);
      const parsed = parseBody(await res.text());
      const id = fieldOf(parsed, 'id');
      if (!res.ok || !id) return showError(ui.response, `${creator.summary}: ${res.status} ${fieldOf(parsed, 'code') ?? res.statusText}. ${fieldOf(parsed, 'error') ?? ''}`);
      session(STORE.ids, JSON.stringify({ ...rememberedIds(), [field]: id }));
      rememberCreated(field, id, creator, body);
      if (current) refill(current);
      ui.prereq.hidden = false;
      ui.prereq.replaceChildren(h('p', { role: 'status' }, `Created ${field} ${id} (${creator.method} ${creator.path}, fresh values); it is in the body now: Send.`));
      ui.send.focus();
    } catch (err) {
      showError(ui.response, `No response: ${err instanceof Error ? err.message : String(err)}. Is the sandbox still running?`);
    }
  }

  const showScenario = () =>
    renderScenario(ui.scenarioBox, scenario && current && scenario.operationId === current.operationId ? scenario : undefined, ui.baseUrl.value || location.origin);
  const showHistory = () => renderHistory(ui.log, current ? (history.get(current.operationId) ?? []) : []);

  function renderOperation(op: ConsoleOperation): void {
    current = op;
    ui.title.textContent = `Try it: ${op.summary}`;
    ui.endpoint.replaceChildren(h('span', { class: `ti-method ti-${op.method.toLowerCase()}` }, op.method), ' ', h('code', {}, op.path));
    // "New key" changes the key only: the body stays as the reader left it (edited or not). A create whose
    // unique values are taken answers 409, and the console then offers new values and a key (leadToHolder).
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
    // Another sandbox is accepted the only way a page can use it: its own docs, at this operation.
    ui.response.append(h('p', {}, h('a', { href: `${base.origin}/docs/${location.hash}` }, `Open this operation in ${base.origin}/docs/`)));
    return undefined;
  }

  const paramInputs = () => [...ui.params.querySelectorAll<HTMLInputElement>('input[data-name]')];

  /** A value its spec rule refuses: said, its input marked and focused, nothing sent. */
  function refuse(breach: ParameterBreach): void {
    refuseInput(breach.message, paramInputs().find((i) => i.dataset.name === breach.name && i.dataset.in === breach.in));
  }

  /** An API key or a body the API is sure to refuse (none; not JSON): what to say, and the field. */
  function unfitInput(): { message: string; input: HTMLElement } | undefined {
    if (!ui.apiKey.value.trim()) return { message: `Not sent: no API key (${data.apiKeyHeader}); every request needs one, or it is answered 401 invalid_api_key.`, input: ui.apiKey };
    if (ui.bodyRow.hidden || !ui.body.value.trim()) return undefined;
    try {
      JSON.parse(ui.body.value);
      return undefined;
    } catch (err) {
      return { message: `Not sent: the body is not valid JSON (${err instanceof Error ? err.message : String(err)}); the API answers such a body 400 invalid_request.`, input: ui.body };
    }
  }

  /** A value the API is sure to refuse: said, its field marked and focused, with a button to send it anyway. */
  function refuseInput(message: string, input: HTMLElement | undefined): void {
    showBreach(ui.response, message, () => {
      ui.send.focus(); // the button goes with the answer that replaces it: focus would fall to <body>
      if (!sending) void submit(true);
    });
    input?.setAttribute('aria-invalid', 'true');
    input?.focus();
  }

  /** Sends the current operation; `anyway` skips the spec check (a reader who wants the sandbox's own 400). */
  async function submit(anyway = false): Promise<void> {
    const op = current;
    const base = op && sandboxBase();
    if (!op || !base) return;
    const inputs = paramInputs();
    [...inputs, ui.apiKey, ui.body].forEach((input) => input.removeAttribute('aria-invalid')); // a value fixed without typing ("New key")
    const values: ParameterValue[] = inputs.map((input) => ({ name: input.dataset.name ?? '', in: input.dataset.in ?? '', value: input.value }));
    const breach = anyway ? undefined : firstBreach(op.parameters, values);
    if (breach) return refuse(breach);
    const unfit = anyway ? undefined : unfitInput();
    if (unfit) return refuseInput(unfit.message, unfit.input);
    const request = buildRequest(op, base, { [data.apiKeyHeader]: ui.apiKey.value.trim() }, values, ui.bodyRow.hidden ? undefined : ui.body.value);
    // Not `disabled`: a disabled button loses focus (it falls to <body>), and a keyboard user pressing
    // Enter twice to see the replay would find themselves at the top of the page.
    sending = true;
    ui.send.setAttribute('aria-disabled', 'true');
    const started = performance.now();
    try {
      const res = await fetch(request.url, request.init);
      const text = await res.text();
      const parsed = parseBody(text);
      showResponse(ui.response, res, text, parsed, fieldOf(parsed, 'code'), Math.round(performance.now() - started), data.errorsRoute, op.edgeAnswers[String(res.status)]);
      record(op, res, request.key, parsed, typeof request.init.body === 'string' ? request.init.body : undefined);
    } catch (err) {
      showError(ui.response, `No response: ${err instanceof Error ? err.message : String(err)}. Is the sandbox still running?`);
    } finally {
      sending = false;
      ui.send.removeAttribute('aria-disabled');
    }
  }

  /** Puts the sandbox's demo key in the field, remembered as one the console filled in (it may follow a new one). */
  function useDemoKey(key: string): void {
    ui.apiKey.value = key;
    session(STORE.apiKey, key);
    session(STORE.demoKey, key);
  }

  /** Remembers a created resource's id for later requests, and the send in the operation's history. */
  function record(op: ConsoleOperation, res: Response, key: string | undefined, answer: unknown, sentText: string | undefined): void {
    const id = fieldOf(answer, 'id');
    const sentBody = parseBody(sentText ?? '');
    if (res.ok && id && op.method === 'POST') {
      session(STORE.ids, JSON.stringify({ ...rememberedIds(), [idFieldOf(op.path)]: id }));
      // Only what a 409 can point at (a taken unique value) is worth remembering beyond this tab.
      if (op.uniqueFields.length > 0) rememberCreated(idFieldOf(op.path), id, op, sentBody);
    }
    if (res.status === 409 && op.takenCodes.includes(fieldOf(answer, 'code') ?? '')) leadToHolder(op, sentBody);
    if (res.status === 404) showPrerequisite(op, true);
    if (res.status === 401 && demoApiKey && ui.apiKey.value.trim() !== demoApiKey) {
      offerDemoKey(ui.response, demoApiKey, () => {
        useDemoKey(demoApiKey!);
        ui.send.focus();
      });
    }
    const sent = history.get(op.operationId) ?? [];
    const entry: Sent = { n: sent.length + 1, status: res.status, key, id, identity: requestIdentity(op.operationId, sentText) };
    sent.push(entry);
    history.set(op.operationId, sent);
    const replay = replayOf(sent, entry);
    const other = replay ? undefined : otherRequestOf(sent, entry);
    if (replay) markReplay(ui.response, replay);
    else if (other) markOtherRequest(ui.response, other);
    showHistory();
  }

  /** A 409 for a taken nickname or PIX key: the recipient holding it, when this browser created it. */
  function leadToHolder(op: ConsoleOperation, sentBody: unknown): void {
    const holder = holderOf(op, sentBody);
    const users = data.operations.filter((o) => o.examples.some((e) => e.value && typeof e.value === 'object' && holder && holder.created.field in e.value));
    showConflictHolder(ui.response, holder, users[0], {
      use: () => {
        if (!holder || !users[0]) return;
        session(STORE.ids, JSON.stringify({ ...rememberedIds(), [holder.created.field]: holder.created.id }));
        // Paying this recipient is a new attempt: a new key (the old one may have paid another recipient).
        keys.set(users[0].operationId, newIdempotencyKey());
        history.set(users[0].operationId, []);
        edited.delete(users[0].operationId); // its body takes the recipient
      },
      fresh: () => {
        tags.set(op.operationId, freshTag());
        keys.set(op.operationId, newIdempotencyKey());
        edited.delete(op.operationId);
        renderOperation(op);
        ui.send.focus();
      },
    });
  }

  function setOpen(open: boolean): void {
    ui.panel.hidden = !open;
    ui.launcher.setAttribute('aria-expanded', String(open));
    document.documentElement.classList.toggle('try-it-open', open);
    coverWhenNarrow();
    if (open) (ui.apiKey.value ? ui.send : ui.apiKey).focus({ preventScroll: true });
  }

  /**
   * Follows the page: the operation on screen is the console's, whatever moved Redoc there. On a page
   * without an operation (a guide, a product's overview) the launcher goes; an open console says there is
   * nothing to send here and shows no form (it would otherwise send an operation the reader left), or
   * closes when it covers the page (narrow screens).
   */
  function onRoute(): void {
    const route = currentRoute();
    const op = data.operations.find((o) => o.route === route);
    if (op) document.title = `${op.summary} (${op.method} ${op.path}) · ${pageTitle}`;
    else retitle(route);
    ui.launcher.hidden = !op;
    ui.skip.hidden = !op;
    ui.form.hidden = !op;
    if (!op) {
      current = undefined;
      if (!ui.panel.hidden && narrow.matches) close();
      else showNothingToSend();
      return;
    }
    ui.launcher.textContent = `Try it: ${op.method} ${op.path}`;
    if (op !== current) renderOperation(op);
  }

  /** Names the page in the tab's title, once what names it is rendered (a few frames after the URL changed). */
  let retitling = 0;
  function retitle(route: string): void {
    const attempt = ++retitling;
    const started = performance.now();
    const tryNow = () => {
      if (attempt !== retitling || currentRoute() !== route) return; // the reader has moved on
      const label = sectionLabel(route);
      document.title = titled(label, pageTitle);
      if (!label && route && route !== '/' && performance.now() - started < 3_000) setTimeout(tryNow, 100);
    };
    tryNow();
  }

  function showNothingToSend(): void {
    ui.title.textContent = 'Try it';
    ui.endpoint.replaceChildren('This page has no operation to send. Open one (the sidebar, search, or scroll to it): the console follows the page.');
    for (const part of [ui.scenarioBox, ui.prereq]) part.hidden = true;
    ui.response.replaceChildren();
    ui.log.replaceChildren();
  }

  function close(): void {
    const hadFocus = ui.panel.contains(document.activeElement);
    setOpen(false);
    if (hadFocus) (ui.launcher.hidden ? document.querySelector<HTMLElement>('main') : ui.launcher)?.focus({ preventScroll: true });
  }

  function startScenario(name: string): void {
    const found = data.scenarios.find((s) => s.name === name);
    const op = found && data.operations.find((o) => o.operationId === found.operationId);
    if (!found || !op) return;
    scenario = found;
    keys.set(op.operationId, newIdempotencyKey()); // a scenario starts a fresh attempt
    history.delete(op.operationId);
    current = undefined;
    // A deep link (#try/<name>, loaded or typed) gives way to its operation's page in the same history entry:
    // Back then returns to the page before it (#try/… again would redirect again). A guide's link, clicked,
    // adds the operation's page to the history: Back returns to the guide.
    if (location.hash.startsWith(SCENARIO_PREFIX)) location.replace(`#${op.route}`);
    else if (location.hash !== `#${op.route}`) location.hash = op.route;
    onRoute();
    setOpen(true);
  }

  ui.launcher.addEventListener('click', () => setOpen(ui.panel.hidden));
  const narrow = narrowScreen();
  const coverWhenNarrow = () => coverPageWhenNarrow(ui.panel, narrow);
  narrow.addEventListener('change', coverWhenNarrow);

  ui.close.addEventListener('click', close);
  ui.panel.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    close();
  });
  ui.skip.addEventListener('click', (event) => {
    event.preventDefault();
    setOpen(true);
  });
  ui.exampleSelect.addEventListener('change', () => current && refill(current));
  ui.body.addEventListener('input', () => current && edited.set(current.operationId, ui.body.value));
  ui.apiKey.addEventListener('input', () => session(STORE.apiKey, ui.apiKey.value));
  ui.baseUrl.addEventListener('input', () => {
    session(STORE.baseUrl, ui.baseUrl.value);
    showScenario();
  });
  // The browser's own checks (a required Idempotency-Key, the base URL's form) stop a send before submit():
  // the last answer must not stay under the new input as if it were this one's.
  ui.form.addEventListener(
    'invalid',
    (event) => {
      const input = event.target as HTMLInputElement;
      showError(ui.response, `Not sent: ${input.labels?.[0]?.textContent ?? input.name}: ${input.validationMessage}`);
    },
    true,
  );
  ui.form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!sending) void submit();
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
  onLocationChange(() => {
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
        demoApiKey = settings.demoApiKey;
        if (demoApiKey && (!ui.apiKey.value || ui.apiKey.value === session(STORE.demoKey))) useDemoKey(demoApiKey);
      })
      .catch(() => {
        if (!session(STORE.baseUrl)) ui.baseUrl.value = '';
        explainElsewhere(ui.notice, `${location.origin} does not serve a sandbox.`);
      });
  }
  if (location.hash.startsWith(SCENARIO_PREFIX)) startScenario(location.hash.slice(SCENARIO_PREFIX.length));
  else onRoute();
}
