// Colour overrides for Redoc 3's light theme, so every text meets WCAG 2 AA contrast (4.5:1) on the
// backgrounds it is drawn on (white, the code panel's #fbfbfc, the active menu entry's #ededf2). Redoc 3 is
// themed by CSS variables; these replace the ones axe-core found too light (the figures are the contrast
// before → after on the lightest of those backgrounds), and the few the dark scheme has. Scoped to
// html.light / html.dark, Redoc's classes for its two schemes; they also outrank Redoc's `:root` rules.
export const themeCss = `
html.light {
  /* links and link buttons: #1f7cff 3.77 → 5.6 */
  --color-blue-6: #1655cc;
  /* search box, input placeholders, code comments: #9b9ca8 2.63 → 4.8 */
  --search-trigger-color: #666773;
  --search-input-placeholder-color: #666773;
  --input-content-placeholder-color: #666773;
  --filter-input-placeholder-color: #666773;
  --select-input-placeholder-color: #666773;
  --code-block-tokens-comment-color: #666773;
  --code-block-tokens-prolog-color: #666773;
  --code-block-tokens-doctype-color: #666773;
  --code-block-tokens-cdata-color: #666773;
  --code-panel-line-numbering-color: #666773;
  /* curl, operators, variables in code: #db7e21 2.89 → 4.6 */
  --code-block-tokens-function-color: #a95300;
  --code-block-tokens-operator-color: #a95300;
  --code-block-tokens-entity-color: #a95300;
  --code-block-tokens-url-color: #a95300;
  --code-block-tokens-variable-color: #a95300;
  --code-block-tokens-regex-color: #a95300;
  --code-block-tokens-important-color: #a95300;
  --code-block-tokens-class-name-color: #a95300;
  /* strings and booleans in code: #3072db 4.45 → 5.1, #149e53 3.35 → 5.3 */
  --code-block-tokens-string-color: #1f5fc9;
  --code-block-tokens-property-string-color: #1f5fc9;
  --code-block-tokens-boolean-color: #0e7038;
}
/* Focus rings on Redoc's own controls too: 3 px, #1655cc (6.6:1 on white) / #8ab4ff (8.1:1 on #1f2024) */
html.light :focus-visible { outline: 3px solid #1655cc !important; outline-offset: 2px; }
html.dark :focus-visible { outline: 3px solid #8ab4ff !important; outline-offset: 2px; }
/* … drawn inside the sidebar's entries: its scroll box clips what is drawn outside them (docs QA: only the top and bottom lines showed) */
.menu-content :focus-visible { outline-offset: -3px !important; }
/* The JSON samples' expand/collapse buttons are 20 px: WCAG 2.2's target size (2.5.8) asks 24 px */
button[aria-label="collapse"], button[aria-label="expand"] { min-width: 24px; min-height: 24px; }
/* … and lines of 24 px where they sit, so two buttons on consecutive lines do not overlap */
pre div:has(> button[aria-label="collapse"], > button[aria-label="expand"]) { line-height: 24px; }
/* Code samples wrap instead of running under the copy button (long curl comment lines) */
.panel-request-samples pre, .panel-request-samples pre code, .panel-request-samples pre .th-line, .panel-request-samples pre .th-token { white-space: pre-wrap !important; overflow-wrap: anywhere; }
.panel-request-samples pre { padding-right: 44px !important; }
/* Names in a guide's tables (a workflow's inputs: apiKey, runId) keep whole words: Redoc's word-break on code
   let the table shrink their column until "apiKey" broke as "apiK / ey"; they still break when nothing else fits */
table.md td code { word-break: normal; overflow-wrap: break-word; }
/* … but on a phone a long code (banking_transfer_attempt_pending_review) kept whole widened the retry-outcome
   table past the screen, and its Meaning and Client action columns fell outside it (QA, 390 px) */
@media (max-width: 600px) { table.md td code { overflow-wrap: anywhere; } }
/* On a phone a section's heading shares its row with Redoc's Copy button and was squeezed until its words broke
   ("Authenticatio / n", QA 390 px): the row wraps, so the button goes below when the heading does not fit beside
   it. Redoc's overflow-wrap: anywhere stays, for a word wider than the whole column (provider_rate_limited,) */
@media (max-width: 600px) { #redoc div:has(> div > [data-testid="page-actions"]) { flex-wrap: wrap; } }
/* Error codes linked to their catalog card (tools/lib/docs-browser/error-links.ts) */
/* … underlined below the underscores (at 2px the line ran through them: "banking transfer idempotency conflict") */
code[data-error-code] { cursor: pointer; text-decoration: underline; text-underline-offset: 0.4em; text-decoration-thickness: 1px; }
/* Redoc's search dialog (an overlay at --z-index-overlay, 1000) opens above the Try-it console (1001), not under it */
[data-testid="search-dialog"] { z-index: 1003 !important; }
/* The error catalog's cards (one section per code, routes /errors/<code>) use the page's width, not half of it */
[data-section-id^="/errors/"] [data-testid="middle-panel"] { width: 100%; max-width: 1000px; }
/* The page's visually hidden <h1> (see withPageHeading in docs.ts) */
.page-heading h1 { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
/* The dark scheme: the search box, placeholders and code comments (#555761, 1.95 on #2a2b33 → 5.7) */
html.dark {
  /* matched words in search results: #1f7cff 3.97 → #8ab4ff 7.4 on the dialog's #22242b */
  --search-highlight-text-color: #8ab4ff;
  /* keywords in code: #fe409c 4.3 → #ff7ab8 5.9 on #2a2b33 */
  --code-block-tokens-keyword-color: #ff7ab8;
  --search-trigger-color: #a3a4ae;
  --search-input-placeholder-color: #a3a4ae;
  --input-content-placeholder-color: #a3a4ae;
  --filter-input-placeholder-color: #a3a4ae;
  --select-input-placeholder-color: #a3a4ae;
  --code-block-tokens-comment-color: #a3a4ae;
  --code-block-tokens-prolog-color: #a3a4ae;
  --code-block-tokens-doctype-color: #a3a4ae;
  --code-block-tokens-cdata-color: #a3a4ae;
  --code-panel-line-numbering-color: #a3a4ae;
}
/* HTTP method badges: GET #25b869 2.21 → 5.3, POST #1e65f5 4.24 → 5.6 */
html.light .tag-get, html.light .tag-query { --tag-color: #0e7038; }
html.light .tag-post { --tag-color: #1655cc; }
html.light .tag-put, html.light .tag-patch { --tag-color: #a95300; }
html.light .tag-delete { --tag-color: #c70a3c; }
`;

/** The "Try it" console (tools/lib/docs-browser/console.ts): a panel on the right, over Redoc's samples column. */
export const consoleCss = `
#try-it, .try-it-launcher { font-family: var(--font-family-base, system-ui, sans-serif); font-size: 14px; color: #1f2024; }
#try-it[hidden], .try-it-launcher[hidden], #try-it [hidden], .try-it-open .try-it-launcher { display: none !important; }
.try-it-launcher { position: fixed; right: 20px; bottom: 20px; z-index: 1000; padding: 10px 16px; border: 0; border-radius: 8px;
  background: #1655cc; color: #fff; font-weight: 600; cursor: pointer; box-shadow: 0 2px 8px rgba(0,0,0,.25); }
.try-it-launcher:focus-visible, #try-it :focus-visible { outline: 3px solid #1655cc; outline-offset: 2px; }
#try-it { position: fixed; top: 0; right: 0; bottom: 0; z-index: 1001; width: 100vw; overflow-y: auto; box-sizing: border-box;
  padding: 16px 20px 32px; background: #fff; border-left: 1px solid #d0d1d8; box-shadow: -4px 0 16px rgba(0,0,0,.12); }
#try-it h2 { font-size: 18px; margin: 0; }
#try-it h3 { font-size: 15px; margin: 16px 0 6px; }
#try-it .ti-head { display: flex; justify-content: space-between; align-items: center; gap: 8px; }
#try-it .ti-close { border: 0; background: none; font-size: 24px; line-height: 1; cursor: pointer; color: #1f2024; padding: 4px 8px; }
#try-it .ti-endpoint { margin: 6px 0 10px; }
#try-it .ti-samples-note { display: none; margin: -4px 0 10px; }
#try-it .ti-method { font-weight: 700; font-size: 12px; text-transform: uppercase; }
#try-it .ti-post { color: #1655cc; } #try-it .ti-get { color: #0e7038; }
#try-it code, #try-it pre, #try-it input, #try-it textarea { font-family: var(--code-font-family, ui-monospace, monospace); font-size: 13px; }
#try-it .ti-field { display: flex; flex-direction: column; gap: 4px; margin: 10px 0; }
#try-it label { font-weight: 600; }
#try-it small { color: #55565f; }
#try-it input, #try-it textarea, #try-it select { box-sizing: border-box; width: 100%; padding: 6px 8px; border: 1px solid #8a8b96; border-radius: 6px; color: #1f2024; background: #fff; }
#try-it .ti-inline { display: flex; gap: 6px; }
#try-it .ti-secondary { flex: none; padding: 6px 10px; border: 1px solid #1655cc; border-radius: 6px; background: #fff; color: #1655cc; cursor: pointer; }
#try-it .ti-send { padding: 8px 20px; border: 0; border-radius: 6px; background: #1655cc; color: #fff; font-weight: 600; cursor: pointer; }
#try-it .ti-send[aria-disabled="true"] { background: #55565f; cursor: progress; }
/* From 1000 px the open console is a column of its own: Redoc's layout narrows beside it, so the panel hides
   no text and no Tab stop (console.ts's PANEL_BESIDE_MIN_WIDTH; narrower, it covers an inert page). */
@media (min-width: 1000px) {
  #try-it { width: var(--try-it-width); }
  html { --try-it-width: clamp(360px, 34vw, 520px); }
  html.try-it-open body, html.workflow-run-open body { margin-right: var(--try-it-width); }
  /* Beside the console, Redoc's text column takes the page's width and the samples column gives way to the
     console (it is back when the console closes): stacking it under the text left its sticky boxes over
     other text (axe target-size, obscured links). */
  html.try-it-open [data-testid="middle-panel"], html.workflow-run-open [data-testid="middle-panel"] { width: 100%; }
  html.try-it-open [data-testid="right-panel"], html.workflow-run-open [data-testid="right-panel"] { display: none !important; }
  #try-it .ti-samples-note { display: block; }
}
/* The skip links (to the console, to the content: docs-browser/a11y.ts), shown when focused */
.try-it-skip, .skip-to-content { position: fixed; left: 8px; top: -100px; z-index: 1002; padding: 8px 14px; border-radius: 6px; background: #1655cc; color: #fff; font-weight: 600; font-family: var(--font-family-base, system-ui, sans-serif); }
.try-it-skip:focus, .skip-to-content:focus { top: 8px; outline: 3px solid #1f2024; outline-offset: 2px; }
html.dark .try-it-skip:focus, html.dark .skip-to-content:focus { outline-color: #8ab4ff; }
#try-it .ti-notice, #try-it .ti-scenario { margin: 10px 0; padding: 8px 12px; border-radius: 6px; background: #f3f6fd; border: 1px solid #b9c9ee; }
#try-it .ti-notice { background: #fff8eb; border-color: #e3c27a; }
#try-it .ti-prereq, #try-it .ti-holder { margin: 10px 0; padding: 8px 12px; border-radius: 6px; background: #fff8eb; border: 1px solid #e3c27a; }
#try-it .ti-prereq p, #try-it .ti-holder p { margin: 4px 0 8px; }
/* Ids (rcp_…, 36 characters) and keys have no break opportunity: at 320 px they ran out of their boxes. */
#try-it p, #try-it li, #try-it dd { overflow-wrap: anywhere; }
#try-it .ti-notice p, #try-it .ti-scenario ol { margin: 6px 0; }
#try-it pre { margin: 6px 0; padding: 8px; overflow: auto; max-height: 320px; background: #f6f6f8; border: 1px solid #e0e1e6; border-radius: 6px; white-space: pre-wrap; word-break: break-all; }
#try-it .ti-status { font-weight: 700; font-size: 15px; margin: 4px 0; }
#try-it .ti-status-2xx { color: #0e7038; } #try-it .ti-status-4xx, #try-it .ti-status-5xx { color: #b00020; }
#try-it .ti-time { font-weight: 400; color: #55565f; font-size: 13px; }
#try-it .ti-headers { display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; margin: 6px 0; font-family: var(--code-font-family, ui-monospace, monospace); font-size: 12px; }
#try-it .ti-headers dt { font-weight: 600; } #try-it .ti-headers dd { margin: 0; word-break: break-all; }
#try-it .ti-error { color: #b00020; font-weight: 600; }
#try-it .ti-history { margin: 10px 0; padding-left: 20px; font-size: 13px; }
#try-it .ti-replay { margin: 4px 0; padding: 6px 10px; border-radius: 6px; background: #e6f4ea; color: #0b5a2e; font-weight: 600; }
/* What to do next (edge answers, Retry-After, a used key sent with another request): amber, not the replay's green */
#try-it .ti-advice, #try-it .ti-replay.ti-other-request { margin: 4px 0; padding: 6px 10px; border-radius: 6px; background: #fff4e5; color: #6b3e00; font-weight: 600; }
#try-it a { color: #1655cc; }
/* Narrow screens: Redoc's menu button sits bottom right; the launcher goes bottom left, clear of it */
@media (max-width: 999px) {
  .try-it-launcher { right: auto; left: 16px; max-width: calc(100vw - 112px); text-align: left; }
}
/* The dark scheme: a dark console (contrast: #e4e5ea on #1f2024 14:1, #8ab4ff 8.1:1, #a3a4ae 6.9:1) */
html.dark #try-it, html.dark .try-it-launcher { color: #e4e5ea; }
html.dark #try-it { background: #1f2024; border-left-color: #3b3d45; }
html.dark #try-it .ti-close, html.dark #try-it label { color: #e4e5ea; }
html.dark #try-it small, html.dark #try-it .ti-time { color: #a3a4ae; }
html.dark #try-it input, html.dark #try-it textarea, html.dark #try-it select { background: #2a2b33; color: #e4e5ea; border-color: #8a8b96; }
html.dark #try-it pre { background: #2a2b33; border-color: #3b3d45; }
html.dark #try-it .ti-secondary { background: #1f2024; color: #8ab4ff; border-color: #8ab4ff; }
html.dark #try-it a, html.dark #try-it .ti-post { color: #8ab4ff; }
html.dark #try-it .ti-get, html.dark #try-it .ti-status-2xx { color: #6fd69b; }
html.dark #try-it .ti-status-4xx, html.dark #try-it .ti-status-5xx, html.dark #try-it .ti-error { color: #ff8a8a; }
html.dark #try-it .ti-notice, html.dark #try-it .ti-prereq, html.dark #try-it .ti-holder { background: #33290f; border-color: #7a6426; }
html.dark #try-it .ti-scenario { background: #1c2740; border-color: #3d5488; }
html.dark #try-it .ti-replay { background: #12351f; color: #a8e6bf; }
html.dark #try-it .ti-advice, html.dark #try-it .ti-replay.ti-other-request { background: #3a2a10; color: #ffd59a; }
html.dark #try-it .ti-send { background: #2f5fcf; }
html.dark #try-it :focus-visible, html.dark .try-it-launcher:focus-visible { outline-color: #8ab4ff; }
`;
