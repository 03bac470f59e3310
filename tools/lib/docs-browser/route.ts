// Where the reader is on the page. Redoc 3 moves with history.pushState (sidebar, search results) and
// rewrites the URL with replaceState while the reader scrolls: neither fires an event, and no `hashchange`
// follows. The console learns of every move by wrapping both methods (after Redoc's router has taken its
// references, the wrappers call the originals) and by listening to popstate (back/forward) and hashchange
// (a link or a typed URL).

/** The route of the current URL: Redoc's `#/banking/createtransfer` as `/banking/createtransfer`. */
export const currentRoute = () => decodeURIComponent(location.hash.replace(/^#/, ''));

/** Calls `listener` once per animation frame in which the URL changed, whatever changed it. */
export function onLocationChange(listener: () => void): void {
  let last = location.href;
  let scheduled = false;
  const check = () => {
    scheduled = false;
    if (location.href === last) return;
    last = location.href;
    listener();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(check);
  };
  for (const method of ['pushState', 'replaceState'] as const) {
    const original = history[method];
    history[method] = function (this: History, ...args: Parameters<History['pushState']>) {
      const result = original.apply(this, args);
      schedule();
      return result;
    };
  }
  window.addEventListener('popstate', schedule);
  window.addEventListener('hashchange', schedule);
}
