// The docs' workflow runner: a workflow guide's "run this workflow" link (#workflow/<id>) opens a panel that runs
// the workflow's steps against the sandbox that served the page, one at a time ("Run next step") or the rest at
// once, showing each step's request, answer and success criteria as it comes. Same origin only (the sandbox
// sends no CORS headers), the reader's API key shared with the Try-it console (sessionStorage, this tab). Only
// workflows of the public API run here: the admin token never enters the page.
import type { ConsoleWorkflow, ConsoleWorkflowStep, WorkflowPageData } from '../docs-workflows.ts';
import { coverPageWhenNarrow, h, narrowScreen, session } from './dom.ts';
import { evaluate, interpolate, meets, type EvalContext } from './workflow-eval.ts';

const PREFIX = '#workflow/';
const API_KEY_STORE = 'payments-docs.apiKey'; // the Try-it console's key (console.ts)

const STYLE = `
#workflow-run { position: fixed; top: 0; right: 0; bottom: 0; width: min(560px, 100vw); overflow: auto; z-index: 1001; box-sizing: border-box;
  padding: 16px 20px; background: #fff; color: #1f2024; border-left: 1px solid #c4c7cf; box-shadow: -4px 0 16px rgba(0,0,0,.12);
  font-family: var(--font-family-base, system-ui, sans-serif); font-size: 14px; }
#workflow-run[hidden] { display: none !important; }
@media (min-width: 1000px) { #workflow-run { width: var(--try-it-width); } }
#workflow-run .wr-head { display: flex; justify-content: space-between; align-items: center; gap: 8px; }
#workflow-run h2 { font-size: 18px; margin: 0; }
#workflow-run .wr-close { border: 0; background: none; font-size: 24px; cursor: pointer; color: #1f2024; padding: 4px 8px; }
#workflow-run label { display: block; font-weight: 600; margin: 10px 0 4px; }
#workflow-run input { width: 100%; box-sizing: border-box; padding: 6px; font-family: var(--code-font-family, ui-monospace, monospace); font-size: 13px; line-height: 20px; border: 1px solid #6b6f7a; border-radius: 4px; }
#workflow-run .wr-actions { display: flex; gap: 8px; margin: 12px 0; flex-wrap: wrap; }
#workflow-run button.wr-btn { padding: 8px 12px; border-radius: 6px; border: 1px solid #1655cc; background: #1655cc; color: #fff; cursor: pointer; }
#workflow-run button.wr-btn.wr-secondary { background: #fff; color: #1655cc; }
#workflow-run button:disabled { opacity: .55; cursor: not-allowed; }
#workflow-run button[aria-disabled="true"]:not(:disabled) { cursor: progress; }
#workflow-run :focus-visible { outline: 3px solid #1655cc; outline-offset: 2px; }
#workflow-run ol { padding-left: 20px; }
#workflow-run li { margin: 8px 0; }
#workflow-run .wr-status { font-weight: 700; }
#workflow-run .wr-passed { color: #0e7038; } #workflow-run .wr-failed { color: #b3261e; } #workflow-run .wr-pending { color: #50535c; }
#workflow-run pre { background: #f4f5f7; padding: 8px; overflow: auto; max-height: 220px; font-size: 12px; white-space: pre-wrap; word-break: break-all; }
#workflow-run .wr-notice { background: #fff4d6; border: 1px solid #b38600; padding: 8px; border-radius: 4px; }
`;

interface Ui {
  panel: HTMLElement;
  title: HTMLElement;
  summary: HTMLElement;
  notice: HTMLElement;
  apiKey: HTMLInputElement;
  runId: HTMLInputElement;
  close: HTMLButtonElement;
  next: HTMLButtonElement;
  rest: HTMLButtonElement;
  reset: HTMLButtonElement;
  steps: HTMLOListElement;
}

function buildUi(): Ui {
  document.head.append(h('style', {}, STYLE));
  const title = h('h2', { id: 'workflow-run-title' }, 'Run a workflow');
  const close = h('button', { type: 'button', class: 'wr-close', 'aria-label': 'Close the workflow runner' }, '×');
  const summary = h('p', {});
  const notice = h('p', { class: 'wr-notice', role: 'note', hidden: '' });
  const apiKey = h('input', { id: 'wr-api-key', type: 'text', autocomplete: 'off', spellcheck: 'false', placeholder: 'svc_live_…' });
  const runId = h('input', { id: 'wr-run-id', type: 'text', autocomplete: 'off', spellcheck: 'false' });
  const next = h('button', { type: 'button', class: 'wr-btn' }, 'Run next step');
  const rest = h('button', { type: 'button', class: 'wr-btn wr-secondary' }, 'Run the rest');
  const reset = h('button', { type: 'button', class: 'wr-btn wr-secondary' }, 'Start over');
  const steps = h('ol', { 'aria-live': 'polite', 'aria-label': 'Steps' });
  const panel = h(
    'aside',
    { id: 'workflow-run', 'aria-labelledby': 'workflow-run-title', hidden: '' },
    h('div', { class: 'wr-head' }, title, close),
    summary,
    notice,
    h('label', { for: 'wr-api-key' }, 'API key (x-api-key), kept in this tab only'),
    apiKey,
    h('label', { for: 'wr-run-id' }, 'Run id (makes Idempotency-Keys and names new)'),
    runId,
    h('div', { class: 'wr-actions' }, next, rest, reset),
    steps,
  );
  document.body.append(panel);
  return { panel, title, summary, notice, apiKey, runId, close, next, rest, reset, steps };
}

const newRunId = () => `docs${Date.now().toString(36)}`;

/** The request a step sends, its expressions evaluated with what the earlier steps gave. */
function requestOf(step: ConsoleWorkflowStep, ctx: EvalContext): { url: string; init: RequestInit; headers: Record<string, string>; body?: unknown } {
  let path = step.path;
  const headers: Record<string, string> = {};
  for (const p of step.parameters) {
    const value = String(interpolate(p.value, ctx));
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(value));
    else if (p.in === 'header') headers[p.name] = value;
  }
  const body = step.payload === undefined ? undefined : interpolate(step.payload, ctx);
  if (body !== undefined) headers['content-type'] = 'application/json';
  return { url: `${location.origin}${path}`, headers, ...(body !== undefined ? { body } : {}), init: { method: step.method, headers, credentials: 'omit', ...(body !== undefined ? { body: JSON.stringify(body) } : {}) } };
}

function stepItem(step: ConsoleWorkflowStep): HTMLLIElement {
  return h('li', { 'data-step': step.stepId }, h('strong', {}, step.stepId), ` ${step.method} `, h('code', {}, step.path), ' ', h('span', { class: 'wr-status wr-pending' }, 'not run'), h('div', { class: 'wr-detail' }));
}

export function startWorkflowConsole(data: WorkflowPageData): void {
  const ui = buildUi();
  let workflow: ConsoleWorkflow | undefined;
  let index = 0;
  let ctx: EvalContext = { inputs: {}, steps: {} };
  let busy = false;

  const refreshButtons = () => {
    const done = !workflow || !workflow.runnable || index >= workflow.steps.length || ui.steps.querySelector('.wr-failed') !== null;
    // While a step runs the buttons say so (aria-disabled) but stay enabled: a disabled button drops the
    // keyboard's focus to <body>. Once nothing is left to run they are disabled, and focus goes to Start over.
    const hadFocus = ui.panel.contains(document.activeElement);
    for (const button of [ui.next, ui.rest]) {
      button.disabled = done;
      button.setAttribute('aria-disabled', String(busy || done));
    }
    if (hadFocus && done && (document.activeElement === ui.next || document.activeElement === ui.rest)) ui.reset.focus({ preventScroll: true });
  };

  function reset(): void {
    if (!workflow) return;
    index = 0;
    ui.runId.value = newRunId();
    ctx = { inputs: { ...workflow.inputs }, steps: {} };
    ui.steps.replaceChildren(...workflow.steps.map(stepItem));
    refreshButtons();
  }

  // Opened, the runner sits beside the page as the Try-it console does (its column from 1000 px; narrower, it
  // covers an inert page as a dialog); Escape or × closes it and gives focus back to what opened it.
  const narrow = narrowScreen();
  let opener: HTMLElement | null = null;
  function setOpen(isOpen: boolean): void {
    ui.panel.hidden = !isOpen;
    document.documentElement.classList.toggle('workflow-run-open', isOpen);
    coverPageWhenNarrow(ui.panel, narrow);
  }
  function close(): void {
    setOpen(false);
    (opener?.isConnected ? opener : document.querySelector<HTMLElement>('main'))?.focus({ preventScroll: true });
  }
  narrow.addEventListener('change', () => coverPageWhenNarrow(ui.panel, narrow));
  ui.close.addEventListener('click', close);
  ui.panel.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    close();
  });

  function open(id: string): void {
    workflow = data.workflows.find((w) => w.workflowId === id);
    opener = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
    setOpen(true);
    ui.title.textContent = workflow ? `Run: ${workflow.summary}` : 'Run a workflow';
    ui.summary.replaceChildren(workflow ? h('code', {}, workflow.workflowId) : `No workflow "${id}".`);
    ui.notice.hidden = true;
    if (workflow && !workflow.runnable) {
      ui.notice.hidden = false;
      ui.notice.textContent = `This workflow sets a provider state through the sandbox's admin API, whose token never enters this page. Run it with: npx payments-contract-kit workflows --workflow ${workflow.workflowId} (in the repository: npm run workflows -- --workflow ${workflow.workflowId})`;
    }
    ui.apiKey.value = session(API_KEY_STORE) ?? ui.apiKey.value;
    reset();
    ui.next.focus();
  }

  async function runStep(): Promise<boolean> {
    if (!workflow || index >= workflow.steps.length) return false;
    const step = workflow.steps[index]!;
    const item = ui.steps.children[index] as HTMLElement;
    const status = item.querySelector('.wr-status')!;
    const detail = item.querySelector('.wr-detail')!;
    ctx.inputs = { ...workflow.inputs, runId: ui.runId.value, apiKey: ui.apiKey.value };
    if (ui.apiKey.value) session(API_KEY_STORE, ui.apiKey.value);
    status.textContent = 'sending…';
    let passed = false;
    try {
      const req = requestOf(step, ctx);
      const res = await fetch(req.url, req.init);
      const text = await res.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON: shown as text */
      }
      const answer: EvalContext = { ...ctx, statusCode: res.status, body, requestHeaders: req.headers, responseHeaders: Object.fromEntries(res.headers.entries()) };
      const results = step.criteria.map((c) => ({ c, ok: meets(c, answer) }));
      passed = results.every((r) => r.ok);
      ctx.steps[step.stepId] = Object.fromEntries(Object.entries(step.outputs).map(([k, e]) => [k, evaluate(e, answer)]));
      detail.replaceChildren(
        h('pre', {}, `${step.method} ${req.url}\n${Object.entries(req.headers).map(([k, v]) => `${k}: ${k === 'x-api-key' ? `${v.slice(0, 13)}…` : v}`).join('\n')}${req.body !== undefined ? `\n\n${JSON.stringify(req.body, null, 2)}` : ''}`),
        h('pre', {}, `${res.status}\n${typeof body === 'string' ? body : JSON.stringify(body, null, 2)}`),
        h('ul', {}, ...results.map((r) => h('li', { class: r.ok ? 'wr-passed' : 'wr-failed' }, `${r.ok ? '✓' : '✗'} `, h('code', {}, r.c.condition)))),
      );
    } catch (err) {
      detail.replaceChildren(h('p', { class: 'wr-failed' }, `Not completed: ${err instanceof Error ? err.message : String(err)}`));
    }
    status.textContent = passed ? 'passed' : 'failed';
    status.className = `wr-status ${passed ? 'wr-passed' : 'wr-failed'}`;
    index++;
    return passed;
  }

  const run = async (all: boolean) => {
    if (busy) return;
    busy = true;
    refreshButtons();
    try {
      while ((await runStep()) && all && workflow && index < workflow.steps.length) {
        /* next step */
      }
    } finally {
      busy = false;
      refreshButtons();
    }
  };
  ui.next.addEventListener('click', () => void run(false));
  ui.rest.addEventListener('click', () => void run(true));
  ui.reset.addEventListener('click', reset);

  // Guides link to #workflow/<id>: taken before Redoc's router sees the click (as the console's #try/ links).
  window.addEventListener(
    'click',
    (event) => {
      const link = event.target instanceof Element ? event.target.closest(`a[href^="${PREFIX}"]`) : null;
      if (!link) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      open(link.getAttribute('href')!.slice(PREFIX.length));
    },
    true,
  );
  // A deep link (#workflow/<id>, loaded or typed) opens the runner on the workflow's own page, which replaces
  // the link in the history: Back then leaves the page instead of landing on the link again.
  const openDeepLink = () => {
    if (!location.hash.startsWith(PREFIX)) return;
    const id = decodeURIComponent(location.hash.slice(PREFIX.length));
    const route = data.workflows.find((w) => w.workflowId === id)?.route;
    if (route) location.replace(`#${route}`);
    open(id);
  };
  openDeepLink();
  window.addEventListener('hashchange', openDeepLink);
  // Only a sandbox serves the settings; a page opened from a file asks nothing (file:///docs/console.json fails).
  if (!session(API_KEY_STORE) && location.protocol !== 'file:') {
    fetch(data.settingsPath, { cache: 'no-store', credentials: 'omit' })
      .then(async (res) => (res.ok ? ((await res.json()) as { demoApiKey?: string }) : undefined))
      .then((settings) => {
        if (settings?.demoApiKey && !ui.apiKey.value) ui.apiKey.value = settings.demoApiKey;
      })
      .catch(() => undefined);
  }
}
