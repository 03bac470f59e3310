// The docs page's own script (bundled by tools/lib/docs-console.ts, inlined at the end of the page): the
// accessibility fixes on Redoc's DOM, error codes linked to their catalog cards, and the "Try it" console.
// All wait until Redoc has hydrated its server-rendered HTML (the page has loaded and the main thread is
// idle): changing that DOM earlier would make React's hydration see a mismatch.
import type { ConsoleData } from '../docs-console.ts';
import type { WorkflowPageData } from '../docs-workflows.ts';
import { addSkipToContent, applyA11yFixes } from './a11y.ts';
import { explainSpecDownloads } from './file-page.ts';
import { startConsole } from './console.ts';
import { startWorkflowConsole } from './console-workflow.ts';
import { followErrorCodeLinks, linkErrorCodes } from './error-links.ts';

// Outside Redoc's root, so at once: a keyboard user's first Tab must not wait for hydration (docs QA: ~4 s
// on a loaded machine, the Tab going to the sidebar meanwhile). The console's own skip link, prepended to
// the body later, still comes first on an operation's page.
addSkipToContent();

function afterHydration(run: () => void): void {
  const idle = () => requestIdleCallback(run, { timeout: 2_000 });
  if (document.readyState === 'complete') idle();
  else window.addEventListener('load', idle, { once: true });
}

afterHydration(() => {
  const json = document.getElementById('try-it-data')?.textContent;
  const data = json ? (JSON.parse(json) as ConsoleData) : undefined;
  const codes = new Set(data?.errorCodes ?? []);
  const fixPage = () => {
    applyA11yFixes();
    if (data) linkErrorCodes(codes);
    if (location.protocol === 'file:') explainSpecDownloads();
  };
  fixPage();
  let scheduled = false;
  // The whole body: Redoc renders its search dialog outside #redoc.
  new MutationObserver(() => {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      fixPage();
    });
  }).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['aria-label'] });

  if (data) {
    followErrorCodeLinks(data.errorsRoute);
    startConsole(data);
  }
  const workflows = document.getElementById('workflow-data')?.textContent;
  if (workflows) startWorkflowConsole(JSON.parse(workflows) as WorkflowPageData);
});
