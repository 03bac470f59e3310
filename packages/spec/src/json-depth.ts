// How deep a JSON request body may nest, for every reader of the API's bodies (the sandbox, the mock and its
// proxy): deeper values ran them out of stack (edge QA: a 4.5 KB body of 2,275 levels was the sandbox's 500,
// one of 5,000 levels ended the mock's process). The document gives no bound; the spec's bodies nest two
// levels, and 100 is Ruby's JSON default. A reader refuses a deeper body before it parses it.

/** Arrays and objects a request body may open inside each other. */
export const MAX_JSON_DEPTH = 100;

/** Whether JSON `text` opens more than MAX_JSON_DEPTH arrays or objects inside each other (strings skipped). */
export function nestedTooDeep(text: string): boolean {
  if (text.length <= 2 * MAX_JSON_DEPTH) return false; // too short to open that many levels: most bodies
  let depth = 0;
  for (let i = 0, inString = false; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
