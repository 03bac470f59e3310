// The console's elements and how each part of it is drawn. No state lives here: console.ts holds it (the
// keys map renderParams fills and updates is console.ts's) and decides what to show.
import type { ConsoleOperation, ConsoleScenario } from '../docs-console.ts';
import { IDEMPOTENCY_HEADER, otherRequestOf, replayOf, ruleText, type Sent } from './console-request.ts';
import type { Created } from './console-fresh.ts';
import { h } from './dom.ts';
import { focusErrorCard } from './error-links.ts';

export interface Panel {
  /** First on the page: a keyboard user reaches the console in one Tab. */
  skip: HTMLAnchorElement;
  launcher: HTMLButtonElement;
  panel: HTMLElement;
  title: HTMLHeadingElement;
  close: HTMLButtonElement;
  endpoint: HTMLParagraphElement;
  scenarioBox: HTMLDivElement;
  notice: HTMLDivElement;
  /** What the request needs first (a recipient for a transfer), with a button that creates it. */
  prereq: HTMLDivElement;
  form: HTMLFormElement;
  baseUrl: HTMLInputElement;
  apiKey: HTMLInputElement;
  params: HTMLDivElement;
  exampleSelect: HTMLSelectElement;
  exampleRow: HTMLDivElement;
  body: HTMLTextAreaElement;
  bodyRow: HTMLDivElement;
  send: HTMLButtonElement;
  response: HTMLElement;
  log: HTMLUListElement;
}

/** The launcher button and the panel (hidden), appended to the page. */
export function buildPanel(apiKeyHeader: string): Panel {
  const skip = h('a', { href: '#try-it', class: 'try-it-skip', hidden: '' }, 'Skip to the Try-it console');
  const launcher = h('button', { type: 'button', class: 'try-it-launcher', 'aria-controls': 'try-it', 'aria-expanded': 'false', hidden: '' });
  const title = h('h2', { id: 'try-it-title' }, 'Try it');
  const close = h('button', { type: 'button', class: 'ti-close', 'aria-label': 'Close the console' }, '×');
  const endpoint = h('p', { class: 'ti-endpoint' });
  // From 1000 px Redoc's samples column gives way to the open console (docs-theme.ts): say where it went.
  const samplesNote = h('p', { class: 'ti-samples-note' }, h('small', {}, 'The code samples (curl, TypeScript) and response examples are back beside the text when this console is closed (Escape or ×).'));
  const scenarioBox = h('div', { class: 'ti-scenario', hidden: '' });
  const notice = h('div', { class: 'ti-notice', role: 'note', hidden: '' });
  const baseUrl = h('input', { id: 'ti-base-url', name: 'baseUrl', type: 'url', autocomplete: 'off', spellcheck: 'false', placeholder: 'http://127.0.0.1:8080' });
  const apiKey = h('input', { id: 'ti-api-key', name: 'apiKey', type: 'text', autocomplete: 'off', spellcheck: 'false', placeholder: 'svc_live_…' });
  const params = h('div', { class: 'ti-params' });
  const prereq = h('div', { class: 'ti-prereq', 'aria-live': 'polite', hidden: '' });
  const exampleSelect = h('select', { id: 'ti-example' });
  const exampleRow = h('div', { class: 'ti-field' }, h('label', { for: 'ti-example' }, 'Example (from the spec)'), exampleSelect);
  const body = h('textarea', { id: 'ti-body', name: 'body', rows: '7', spellcheck: 'false' });
  const bodyRow = h('div', { class: 'ti-field' }, h('label', { for: 'ti-body' }, 'Body (JSON)'), body);
  const send = h('button', { type: 'submit', class: 'ti-send' }, 'Send');
  const form = h(
    'form',
    { class: 'ti-form', 'aria-label': 'Request' },
    h('div', { class: 'ti-field' }, h('label', { for: 'ti-base-url' }, 'Base URL'), baseUrl),
    h('div', { class: 'ti-field' }, h('label', { for: 'ti-api-key' }, `API key (${apiKeyHeader})`), apiKey, h('small', {}, 'Kept in this tab only (sessionStorage); sent as a header, never in a URL.')),
    params,
    exampleRow,
    bodyRow,
    prereq,
    h('div', { class: 'ti-actions' }, send),
  );
  const response = h('section', { class: 'ti-response', 'aria-live': 'polite', 'aria-label': 'Response' });
  const log = h('ul', { class: 'ti-history', 'aria-label': 'Requests sent from this page' });
  const panel = h('section', { id: 'try-it', role: 'complementary', 'aria-labelledby': 'try-it-title', hidden: '' }, h('div', { class: 'ti-head' }, title, close), endpoint, samplesNote, scenarioBox, notice, form, response, log);
  document.body.prepend(skip);
  document.body.append(launcher, panel);
  return { skip, launcher, panel, title, close, endpoint, scenarioBox, notice, prereq, form, baseUrl, apiKey, params, exampleSelect, exampleRow, body, bodyRow, send, response, log };
}

/**
 * The operation's parameter inputs (optional query parameters left out), prefilled: the Idempotency-Key
 * with the operation's key in `keys` (made when missing, kept as typed, replaced by "New key"), a path id
 * with the one the sandbox returned in this tab, anything else with the spec's example.
 */
export function renderParams(container: HTMLElement, op: ConsoleOperation, keys: Map<string, string>, ids: Record<string, string>, newKey: () => string): void {
  container.replaceChildren(
    ...op.parameters
      .filter((p) => p.in !== 'query' || p.required)
      .map((p) => {
        const id = `ti-param-${p.in}-${p.name}`;
        const isKey = p.in === 'header' && p.name.toLowerCase() === IDEMPOTENCY_HEADER;
        let value = p.example ?? '';
        if (isKey) {
          if (!keys.has(op.operationId)) keys.set(op.operationId, newKey());
          value = keys.get(op.operationId)!;
        } else if (p.in === 'path' && ids[p.name]) value = ids[p.name]!;
        // No HTML `pattern` attribute: browsers compile it with the `v` flag, which the spec's pattern may not
        // survive (then silently ignored). console.ts checks the rule before sending (firstBreach).
        const input = h('input', { id, 'data-in': p.in, 'data-name': p.name, type: 'text', autocomplete: 'off', spellcheck: 'false', value });
        if (p.required) input.required = true;
        input.addEventListener('input', () => input.removeAttribute('aria-invalid'));
        const label = h('label', { for: id }, `${p.name} (${p.in})`);
        const rule = ruleText(p);
        const hint = rule ? [h('small', { id: `${id}-rule`, class: 'ti-rule' }, `The spec: ${rule}`)] : [];
        if (rule) input.setAttribute('aria-describedby', `${id}-rule`);
        if (!isKey) return h('div', { class: 'ti-field' }, label, input, ...hint);
        input.addEventListener('input', () => keys.set(op.operationId, input.value));
        const renew = h('button', { type: 'button', class: 'ti-secondary' }, 'New key');
        renew.addEventListener('click', () => {
          keys.set(op.operationId, (input.value = newKey()));
          input.removeAttribute('aria-invalid');
        });
        return h('div', { class: 'ti-field' }, label, h('div', { class: 'ti-inline' }, input, renew), ...hint, h('small', {}, 'Generated for this page; sending again with the same key replays the original result.'));
      }),
  );
}

/** The body refers to something not created yet (or unknown to this sandbox): what to do, and a button doing it. */
export function renderPrerequisite(box: HTMLElement, creator: ConsoleOperation | undefined, field: string | undefined, unknown: boolean, create: () => void): void {
  box.hidden = !creator;
  if (!creator || !field) return box.replaceChildren();
  const button = h('button', { type: 'button', class: 'ti-secondary' }, `Create one (${creator.summary}) with fresh values`);
  button.addEventListener('click', create);
  box.replaceChildren(
    h('p', {}, unknown ? `This sandbox does not know the ${field} in the body. ` : `The ${field} in the body is the spec's sample, which no sandbox has. `, 'Create one first: '),
    button,
  );
}

/** The 409 for a taken unique value: the resource this browser created with it, or what to do when unknown. */
export function showConflictHolder(response: HTMLElement, holder: { created: Created; field: string } | undefined, user: ConsoleOperation | undefined, act: { use: () => void; fresh: () => void }): void {
  const fresh = h('button', { type: 'button', class: 'ti-secondary' }, 'New values and key');
  fresh.addEventListener('click', act.fresh);
  const lead = h('div', { class: 'ti-holder' });
  if (holder) {
    const link = h('a', { href: user ? `#${user.route}` : '#' }, user ? `Use it: ${user.summary}` : 'Use it');
    link.addEventListener('click', act.use);
    lead.append(h('p', {}, `The ${holder.field} "${holder.created.values[holder.field]}" belongs to `, h('code', {}, holder.created.id), `, created from this browser on ${holder.created.at.slice(0, 10)}. `, link), h('p', {}, 'Or create another: ', fresh));
  } else {
    lead.append(h('p', {}, 'Another recipient already holds this value. The answer carries no id, and the API has no way to look a recipient up by its nickname or PIX key, so only a recipient created from this browser can be found here. Create another: ', fresh));
  }
  response.querySelector('.ti-status')?.after(lead);
}

/** A 401 with a key that is not this sandbox's demo key (one of another sandbox, or mistyped): offer the demo key. */
export function offerDemoKey(response: HTMLElement, demoKey: string, use: () => void): void {
  const button = h('button', { type: 'button', class: 'ti-secondary' }, "Use this sandbox's demo key");
  button.addEventListener('click', use);
  response
    .querySelector('.ti-status')
    ?.after(h('p', { class: 'ti-advice' }, `This sandbox does not know the API key in the field (a key of another sandbox, or of a database since replaced, is unknown here). Its demo key is ${demoKey.slice(0, 13)}…: `, button));
}

/** Why this page cannot send (a file, another origin, a host that is not a sandbox), and what to do. */
export function explainElsewhere(notice: HTMLElement, reason: string): void {
  notice.hidden = false;
  notice.replaceChildren(
    h('p', {}, h('strong', {}, 'Open these docs from the sandbox to send requests. '), reason),
    h('p', {}, 'Enter the base URL of a running sandbox (npx payments-sandbox, or npm start in the repository, prints it), then open its docs at ', h('code', {}, '<base URL>/docs/'), '. The sandbox sends no CORS headers, by design: the API is server-to-server, so a browser page on another origin (or a file) cannot call it, and an API key never has to live in a web page of another site. The console therefore sends only to the origin that served this page.'),
  );
}

/** A request not sent, or sent without an answer: the reason, announced. */
export function showError(response: HTMLElement, message: string): void {
  response.replaceChildren(h('p', { class: 'ti-error', role: 'alert' }, message));
}

/** A value the spec refuses: the reason, and a button that sends it anyway (to see the sandbox's own 400). */
export function showBreach(response: HTMLElement, message: string, sendAnyway: () => void): void {
  showError(response, message);
  const button = h('button', { type: 'button', class: 'ti-secondary ti-send-anyway' }, 'Send anyway');
  button.addEventListener('click', sendAnyway);
  response.append(h('p', {}, button));
}

/** The answer: status and time, its error code linked to the catalog, headers, and the body (pretty when JSON). */
export function showResponse(response: HTMLElement, res: Response, text: string, parsed: unknown, code: string | undefined, ms: number, errorsRoute: string, edgeAdvice: string | undefined): void {
  const headers = [...res.headers.entries()];
  const retryAfter = res.headers.get('retry-after');
  response.replaceChildren(
    h('h3', {}, 'Response'),
    h('p', { class: `ti-status ti-status-${String(res.status)[0]}xx` }, `${res.status} ${res.statusText}`, h('span', { class: 'ti-time' }, ` in ${ms} ms`)),
    ...(code ? [h('p', {}, 'Error code ', h('code', {}, code), ': see ', cardLink(errorsRoute, code), ' for what it means and what to do.')] : []),
    // No JSON error body at a status the spec gives the edge network: its advice (treat it as a timeout, same key).
    ...(!code && edgeAdvice ? [h('p', { class: 'ti-advice' }, `No error body: an answer of the edge network. ${edgeAdvice}`)] : []),
    ...(retryAfter ? [h('p', { class: 'ti-advice' }, `Retry-After: ${retryAfter} s. Wait at least that long before sending the request again.`)] : []),
    h('details', {}, h('summary', {}, `Headers (${headers.length})`), h('dl', { class: 'ti-headers' }, ...headers.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]))),
    h('pre', { class: 'ti-body', tabindex: '0', 'aria-label': 'Response body' }, h('code', {}, parsed === undefined ? text : JSON.stringify(parsed, null, 2))),
  );
}

/** The link to a code's catalog card; followed, it leaves focus on the card. */
function cardLink(errorsRoute: string, code: string): HTMLElement {
  const link = h('a', { href: `#${errorsRoute}/${code}` }, 'its card in the error catalog');
  link.addEventListener('click', () => focusErrorCard(errorsRoute, code)); // Enter on a link is a click too
  return link;
}

/** Under the status: this answer replayed an earlier send's. */
export function markReplay(response: HTMLElement, replay: Sent): void {
  response.querySelector('.ti-status')?.after(h('p', { class: 'ti-replay' }, `Same id as send ${replay.n} with this Idempotency-Key: the sandbox replayed the original result; nothing was created twice.`));
}

/** An edited request sent under a key already used: answered with the key's first result, the new request not made. */
export function markOtherRequest(response: HTMLElement, first: Sent): void {
  response
    .querySelector('.ti-status')
    ?.after(
      h('p', { class: 'ti-replay ti-other-request' }, `Same id as send ${first.n}: this Idempotency-Key was already used for another request, so the sandbox answered with that request's original result and did not make this one. A new request takes a new key: press New key, then Send.`),
    );
}

/** The sends of the current operation, each replay marked. */
export function renderHistory(log: HTMLElement, sent: Sent[]): void {
  log.replaceChildren(
    ...sent.map((s) => {
      const replay = replayOf(sent, s);
      const other = replay ? undefined : otherRequestOf(sent, s);
      const note = replay ? `: same id as send ${replay.n}, the original result replayed` : other ? `: another request under send ${other.n}'s key, answered with its original result (not made)` : '';
      return h('li', {}, `Send ${s.n}: ${s.status}${s.id ? ` ${s.id}` : ''}${s.key ? ` (key ${s.key})` : ''}${note}`);
    }),
  );
}

/** Copies `text` (the admin command of a scenario), as every other code block of the page can be copied. */
function copyButton(text: string): HTMLElement {
  const button = h('button', { type: 'button', class: 'ti-secondary ti-copy' }, 'Copy the command');
  const status = h('span', { class: 'ti-copy-status', role: 'status' });
  button.addEventListener('click', () => {
    navigator.clipboard.writeText(text).then(
      () => (status.textContent = ' Copied.'),
      () => (status.textContent = ' Not copied (the browser refused): select the command and copy it.'),
    );
  });
  return h('p', {}, button, status);
}

/** A guide's scenario for the current operation: its steps, and the admin command with the base URL filled in. */
export function renderScenario(box: HTMLElement, active: ConsoleScenario | undefined, baseUrl: string): void {
  box.hidden = !active;
  if (!active) return box.replaceChildren();
  const command = active.command?.replaceAll('{baseUrl}', baseUrl);
  box.replaceChildren(
    h('h3', {}, active.title),
    h('ol', {}, ...active.steps.map((s) => h('li', {}, s))),
    ...(command ? [h('pre', { class: 'ti-command', tabindex: '0', 'aria-label': 'Admin command to run in a terminal' }, h('code', {}, command)), copyButton(command)] : []),
  );
}
