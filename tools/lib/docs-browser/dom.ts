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
