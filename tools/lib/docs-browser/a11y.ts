// Accessibility fixes on Redoc's rendered DOM that no theme option reaches (found by axe-core, see
// test/docs). Applied after Redoc has hydrated, and again whenever it renders more.

/** The example picker is a button labelled "Example" showing the example's summary: name it by both. */
function nameExamplePickers(): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[aria-label="Example"]')) {
    const text = button.textContent?.trim();
    if (text) button.setAttribute('aria-label', `Example: ${text}`);
  }
}

/** Wide Markdown tables scroll sideways: keyboard users must be able to focus the scrolling box. */
function focusableTableScrollers(): void {
  for (const wrapper of document.querySelectorAll<HTMLElement>('.md-table-wrapper:not([tabindex])')) {
    wrapper.tabIndex = 0;
    wrapper.setAttribute('role', 'region');
    const caption = wrapper.closest('[data-section-id]')?.querySelector('h1, h2, h3')?.textContent?.trim();
    wrapper.setAttribute('aria-label', caption ? `Table: ${caption}` : 'Table');
  }
}

/** Code blocks that scroll (a guide's CI job in YAML) must be reachable by keyboard too: focusable, named by their section. */
function focusableCodeScrollers(): void {
  for (const pre of document.querySelectorAll<HTMLElement>('#redoc pre:not([tabindex])')) {
    if (pre.scrollWidth <= pre.clientWidth && pre.scrollHeight <= pre.clientHeight) continue; // nothing to scroll: no extra Tab stop
    pre.tabIndex = 0;
    pre.setAttribute('role', 'region');
    const caption = pre.closest('[data-section-id]')?.querySelector('h1, h2, h3')?.textContent?.trim();
    pre.setAttribute('aria-label', caption ? `Code: ${caption}` : 'Code');
  }
}

/** The sidebar is the page's navigation landmark. */
function sidebarLandmark(): void {
  const menu = document.querySelector<HTMLElement>('.menu-content');
  if (menu && !menu.hasAttribute('role')) {
    menu.setAttribute('role', 'navigation');
    menu.setAttribute('aria-label', 'Sidebar');
  }
}

/**
 * Redoc's router links rendered on the server (the sidebar's guides, groups and workflows, links in the first
 * view's text) keep the server's `href="/limits"` after hydration (React does not patch attributes then), while
 * the links rendered in the browser say `#/limits`. A plain click works either way (the router takes it), but
 * "open in a new tab", a middle click or "copy link" got `/limits`, outside /docs/: the sandbox's 404. Each such
 * link gets the route as the browser would render it. React leaves the attribute alone on later renders: its
 * prop has not changed.
 */
function routeLinks(): void {
  for (const link of document.querySelectorAll<HTMLAnchorElement>('#redoc a[href^="/"]:not([href^="//"])')) {
    link.setAttribute('href', `#${link.getAttribute('href')}`);
  }
}

/**
 * The sidebar's search box is a <div> that opens the search dialog on a click: no Tab stop, no role, no name.
 * It becomes a button for the keyboard and screen readers (Enter or Space opens the dialog; Ctrl+K still does).
 */
function searchTriggerByKeyboard(): void {
  for (const trigger of document.querySelectorAll<HTMLElement>('[data-testid="search-trigger"]:not([tabindex])')) {
    trigger.tabIndex = 0;
    trigger.setAttribute('role', 'button');
    // Named by its visible text ("Search Ctrl+K"); a label of its own would have to repeat it (WCAG 2.5.3).
    if (!trigger.textContent?.trim()) trigger.setAttribute('aria-label', 'Search the docs');
    trigger.setAttribute('aria-haspopup', 'dialog');
    trigger.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter' && event.key !== ' ') return;
      event.preventDefault();
      trigger.click();
    });
  }
}

/** The search dialog's clear button (an icon, × in a circle) has no text: it gets a name. */
function nameSearchClearButton(): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-testid="search-dialog"] [data-component-name="Search/SearchInput"] button:not([aria-label])')) {
    button.setAttribute('aria-label', 'Clear the search');
  }
}

/**
 * Heading levels that skip (axe's heading-order), corrected for assistive technology: Redoc renders an
 * operation's "Request" and "Responses" as <h4> (their "Headers" <h5>) right under the operation's <h2>, and
 * the overview's first subsection (a ### in overview.md, which Redoc gives its own route) as <h3> under the
 * API title's <h1>; no theme option changes Redoc's levels. A heading deeper than one below its parent heading
 * gets role="heading" (older WebKit ignores aria-level on h1–h6 without it) and the parent's level + 1; the
 * headings under it move up with it, siblings stay siblings. Recomputed on every render, since Redoc adds and
 * removes sections as the reader moves: only the levels this pass set are changed or taken back.
 */
function headingLevels(): void {
  const parents: { tag: number; level: number }[] = [];
  for (const heading of document.querySelectorAll<HTMLElement>('#redoc :is(h1, h2, h3, h4, h5, h6)')) {
    const ours = heading.hasAttribute('data-level-fixed');
    const given = !ours && heading.hasAttribute('aria-level'); // Redoc's own level: kept as it is
    const tag = given ? Number(heading.getAttribute('aria-level')) : Number(heading.tagName[1]);
    while (parents.length > 0 && parents.at(-1)!.tag >= tag) parents.pop();
    const level = given ? tag : Math.min(tag, (parents.at(-1)?.level ?? tag - 1) + 1);
    parents.push({ tag, level });
    if (level < tag) setLevel(heading, level);
    else if (ours) clearLevel(heading);
  }
}

function setLevel(heading: HTMLElement, level: number): void {
  if (heading.getAttribute('aria-level') === String(level)) return;
  heading.setAttribute('role', 'heading');
  heading.setAttribute('aria-level', String(level));
  heading.setAttribute('data-level-fixed', '');
}

function clearLevel(heading: HTMLElement): void {
  for (const name of ['role', 'aria-level', 'data-level-fixed']) heading.removeAttribute(name);
}

/** The section of the current route in <main>, once Redoc has rendered it. */
function routeSection(): HTMLElement | undefined {
  const route = decodeURIComponent(location.hash.replace(/^#/, ''));
  return route ? [...document.querySelectorAll<HTMLElement>('main [data-section-id]')].find((el) => el.dataset.sectionId === route) : undefined;
}

/** Focus to `target` (made focusable), where it is on screen unless `scroll`. */
function focusHere(target: HTMLElement, scroll: boolean): void {
  if (!target.hasAttribute('tabindex')) target.tabIndex = -1;
  target.focus({ preventScroll: !scroll });
}

/** How long after the search dialog closed a move to another route counts as its result's. */
const SEARCH_RESULT_MS = 3_000;
/** The route the search dialog was opened on; once closed, that route and when it closed. */
const search: { openedOn?: string | undefined; closedOn?: string | undefined; closedAt: number } = { closedAt: 0 };

/**
 * Redoc's search dialog, closed on a chosen result, leaves focus on <body>: the next Tab started again from
 * the top of the page (docs QA). Focus goes to the result's section instead, where Redoc scrolled it, unless
 * the reader has already put it somewhere.
 */
function focusAfterSearch(): void {
  if (document.querySelector('[data-testid="search-dialog"]')) {
    search.openedOn ??= location.hash;
    return;
  }
  if (search.openedOn !== undefined) Object.assign(search, { closedOn: search.openedOn, closedAt: performance.now(), openedOn: undefined });
  if (search.closedOn === undefined || location.hash === search.closedOn) return; // no result chosen (yet)
  const focusFree = !document.activeElement || document.activeElement === document.body;
  if (!focusFree || performance.now() - search.closedAt > SEARCH_RESULT_MS) return void (search.closedOn = undefined);
  const section = routeSection();
  if (!section) return; // not rendered yet: the next pass
  search.closedOn = undefined;
  focusHere(section, false);
}

export function applyA11yFixes(): void {
  nameExamplePickers();
  focusableTableScrollers();
  focusableCodeScrollers();
  sidebarLandmark();
  routeLinks();
  searchTriggerByKeyboard();
  nameSearchClearButton();
  headingLevels();
  focusAfterSearch();
}

/**
 * A skip link at the top of the page (after the Try-it console's, on an operation's page): keyboard users reach
 * the text without tabbing through the sidebar's ~30 links. It is no route (Redoc's router owns the hash): it
 * moves focus to the section on screen, or to <main>.
 */
export function addSkipToContent(): void {
  const skip = document.createElement('a');
  skip.href = '#';
  skip.className = 'skip-to-content';
  skip.textContent = 'Skip to content';
  skip.addEventListener('click', (event) => {
    event.preventDefault();
    const section = routeSection();
    const target = section ?? document.querySelector<HTMLElement>('main');
    if (!target) return;
    // The section on screen keeps its place; one out of view (the page scrolled elsewhere) is brought in.
    const box = section?.getBoundingClientRect();
    focusHere(target, !(box !== undefined && box.bottom > 0 && box.top < innerHeight));
  });
  // In the page's <header> (a landmark: axe's `region` wants all content in one), which follows the console's
  // skip link; without it, first on the page.
  const header = document.querySelector('body > header.page-heading');
  if (header) header.prepend(skip);
  else document.body.prepend(skip);
}
