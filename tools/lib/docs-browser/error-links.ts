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
    focusErrorCard(errorsRoute, target.dataset.errorCode!);
  };
  document.addEventListener('click', follow);
  document.addEventListener('keydown', follow);
}

/**
 * Moves focus to a code's card once a link to it was followed: a keyboard user goes on from the card, not from
 * the top of the page (QA: focus fell to <body>). Its heading (id = the route) gets focus once it is rendered, a
 * few frames later, after the console has reacted to the new route (on a phone it closes, moving focus itself).
 */
export function focusErrorCard(errorsRoute: string, code: string): void {
  let frames = 0;
  const attempt = () => {
    frames++;
    const heading = document.getElementById(`${errorsRoute}/${code}`);
    if ((!heading || frames < 3) && frames < 60) return void requestAnimationFrame(attempt); // at most a second
    if (!heading) return;
    if (heading.tabIndex < 0 && !heading.hasAttribute('tabindex')) heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
  };
  requestAnimationFrame(attempt);
}
