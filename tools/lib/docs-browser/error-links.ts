// Error codes named on the page (`409 recipient_nickname_already_exists` in an operation's description, a
// response example's "code") lead to their card in the error catalog. Redoc owns these elements (React
// renders them), so they are not moved into an <a>: the <code> itself becomes a link (role, Tab stop,
// Enter/click), which React leaves alone on later renders.

const CODE_TEXT = /^(?:\d{3} )?([a-z][a-z0-9]*(?:_[a-z0-9]+)+)$/;

export function linkErrorCodes(codes: ReadonlySet<string>): void {
  for (const el of document.querySelectorAll<HTMLElement>('main code:not([data-error-code])')) {
    if (el.closest('a, pre, button, h1, h2, h3, h4')) continue;
    const code = CODE_TEXT.exec(el.textContent?.trim() ?? '')?.[1];
    if (!code || !codes.has(code)) continue;
    el.dataset.errorCode = code;
    el.setAttribute('role', 'link');
    el.tabIndex = 0;
    el.setAttribute('aria-label', `${el.textContent?.trim()}: its card in the error catalog`);
  }
}

/** One listener for every linked code (click, or Enter as on a link). */
export function followErrorCodeLinks(errorsRoute: string): void {
  const follow = (event: Event) => {
    const target = event.target instanceof Element ? event.target.closest<HTMLElement>('code[data-error-code]') : null;
    if (!target) return;
    if (event instanceof KeyboardEvent && event.key !== 'Enter') return;
    event.preventDefault();
    location.hash = `${errorsRoute}/${target.dataset.errorCode}`;
  };
  document.addEventListener('click', follow);
  document.addEventListener('keydown', follow);
}
