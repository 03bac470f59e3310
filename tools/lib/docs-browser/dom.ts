// The browser helpers the docs console is built with: an element factory, this tab's storage and this browser's.

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  el.append(...children);
  return el;
}

/** Reads (and first writes, when `value` is given) a sessionStorage entry: this tab only. */
export function session(key: string, value?: string): string | null {
  try {
    if (value !== undefined) sessionStorage.setItem(key, value);
    return sessionStorage.getItem(key);
  } catch {
    return null; // storage disabled: the console still works, it just forgets on reload
  }
}

/** Reads (and first writes) a localStorage entry: this browser, across tabs and days. Never the API key. */
export function local(key: string, value?: string): string | null {
  try {
    if (value !== undefined) localStorage.setItem(key, value);
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** From this width an open side panel (the console, the workflow runner) takes a column of its own (docs-theme.ts). */
export const PANEL_BESIDE_MIN_WIDTH = 1000;
export const narrowScreen = (): MediaQueryList => window.matchMedia(`(max-width: ${PANEL_BESIDE_MIN_WIDTH - 1}px)`);

/**
 * Wide enough, an open side panel takes its own column (the page's CSS narrows Redoc's layout beside it), so
 * nothing is behind it. Narrower, it covers the page: then the page is inert while it is open, so no Tab stop
 * hides behind the panel (WCAG 2.4.11) and the panel acts as a dialog.
 */
export function coverPageWhenNarrow(panel: HTMLElement, narrow: MediaQueryList): void {
  const covers = !panel.hidden && narrow.matches;
  for (const el of document.body.children) if (el !== panel && el instanceof HTMLElement && el.tagName !== 'SCRIPT') el.inert = covers;
  panel.setAttribute('role', covers ? 'dialog' : 'complementary');
  if (covers) panel.setAttribute('aria-modal', 'true');
  else panel.removeAttribute('aria-modal');
}
