// The page opened from a file (file://): what only a server gives it is said, not left to fail. The "Download the
// spec" links are relative (../openapi.yaml: the sandbox's /openapi.yaml, or the file next to dist/docs/ in the
// repository); next to a copy of the page elsewhere there is no such file, so the links get a note saying where
// the spec is. (The consoles ask no sandbox for their settings from a file: console.ts, console-workflow.ts.)
import { h } from './dom.ts';

const NOTE = 'spec-downloads-note';

export function explainSpecDownloads(): void {
  for (const link of document.querySelectorAll<HTMLAnchorElement>('main a[href="../openapi.yaml"]')) {
    const paragraph = link.closest('p');
    if (!paragraph || paragraph.querySelector(`.${NOTE}`)) continue;
    paragraph.append(
      ' ',
      h(
        'small',
        { class: NOTE },
        '(This page was opened from a file: these links work only where openapi.yaml and openapi.json sit next to its folder, as in the repository\'s dist/. A running sandbox serves them at /openapi.yaml and /openapi.json, and the @payments/spec package ships them as @payments/spec/openapi.yaml and @payments/spec/openapi.json.)',
      ),
    );
  }
}
