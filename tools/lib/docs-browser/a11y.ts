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

export function applyA11yFixes(): void {
  nameExamplePickers();
  focusableTableScrollers();
  focusableCodeScrollers();
  sidebarLandmark();
}
