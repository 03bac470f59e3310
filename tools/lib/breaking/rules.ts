// THE rules of the breaking-change comparer: every kind of change it reports, whether it breaks existing
// clients of @payments/types and @payments/client, and why. Nothing else decides a verdict: the comparer
// only finds changes and names their kind; the verdict and the reason come from this table.
//
// The principle: a REQUEST may only accept more (anything a client sent before must still be accepted); a
// RESPONSE may only promise more (every field, status, header and error code a client relied on must still
// come). Narrowing a response's values (fewer enum values, tighter bounds) is fine. A new value of a response
// `enum` is breaking: @payments/types generates a closed union, so an exhaustive `switch` over it (e.g. over
// TransferStatus) stops compiling and classifyTransfer() would have to guess what the value means; an enum
// that says `x-extensible-enum: true` is open by contract and takes new values freely. Error codes are not
// an enum (`code` is a string; the spec tells clients to handle unknown codes), so a new code is not breaking.
// See "Policy choices" in .changeset/README.md.
//
// Three verdicts: breaking (needs a major release of @payments/types and @payments/client), non-breaking, and
// `review: true`, a change whose effect the comparer cannot prove (two different regexes): the gate passes it
// only when a pending changeset acknowledges its JSON pointer (`Reviewed: <pointer> (<id>)`), or in a major release.
//
// A change's JSON pointer is the node that changed in the NEW document, or in the OLD one when the node was
// removed. Through a `$ref` it is the referenced definition (e.g. /components/schemas/Nickname/maxLength),
// and `where` lists the operations that reach it that way.

export interface Rule {
  breaking: boolean;
  /** Not provably breaking nor provably safe: a person decides, in a changeset (see gate.ts). */
  review?: true;
  why: string;
}

export const RULES = {
  // Operations (method + path; path parameter names do not matter: /a/{id} is /a/{transferId}).
  'operation-added': { breaking: false, why: 'a new operation: existing clients never call it' },
  'operation-removed': { breaking: true, why: 'clients calling it get 404/405, and the typed client loses the method' },
  'schema-component-removed': { breaking: true, why: "@payments/types exports every schema of `components.schemas` by its name (`components['schemas']['Nickname']`, and named types such as `Transfer`): code naming a removed or renamed one stops compiling, even when the wire is unchanged" },
  'path-template-changed': { breaking: true, why: "the wire is the same, but @payments/types keys `paths` by the template and path parameters by name: a typed call `GET('/v1/banking/transfers/{transferId}', { params: { path: { transferId } } })` naming the old one stops compiling" },
  'operation-id-changed': { breaking: true, why: '@payments/types keys `operations`, `ErrorCode<Op>` and `errorCodes` by operationId, and the client\'s retry overrides and isApiError() take it: code naming the old id stops compiling' },
  'operation-id-removed': { breaking: true, why: 'the operation loses its key in `operations`, `ErrorCode<Op>` and `errorCodes`: code naming the id stops compiling' },
  'operation-id-added': { breaking: false, why: 'a new key in the generated types; nothing named it before' },
  // Tags: only the product tag (an operation's first tag) is read by a package: the sandbox derives the
  // operation's product, so which access flag and which 403 code apply. Other tags and tag descriptions only
  // group the docs.
  'operation-product-changed': { breaking: true, why: 'the operation moves to another product: keys of organizations with only the old product enabled get 403 (the sandbox reads the first tag as the product)' },

  // Security (components.securitySchemes, the root `security` and operations' own `security`). Requirements
  // are compared per operation as alternatives (OR) of schemes (AND), by scheme definition, so renaming a
  // scheme's key in components without changing it is no change.
  'security-scheme-changed': { breaking: true, why: 'clients send the credential the old scheme described (its type, header or parameter name, location or HTTP scheme): the server no longer reads it, every request is 401' },
  'security-scheme-removed': { breaking: true, why: 'operations required it: clients authenticating with it are refused' },
  'security-scheme-removed-unused': { breaking: false, why: 'no operation required it, so no client sends it' },
  'security-scheme-added': { breaking: false, why: 'a new way to authenticate; existing credentials are unaffected unless a requirement changes (reported separately)' },
  'security-requirement-tightened': { breaking: true, why: 'a way of authenticating that was accepted (a scheme, a scope, or none: `{}`) no longer satisfies any alternative: those clients are refused' },
  'security-requirement-loosened': { breaking: false, why: 'every credential accepted before still satisfies an alternative' },

  // Parameters (header, path, query, cookie; header names are case-insensitive).
  'parameter-added-required': { breaking: true, why: 'existing requests do not send it and are rejected' },
  'parameter-added-optional': { breaking: false, why: 'existing requests stay valid without it' },
  'parameter-removed': { breaking: false, why: 'a client still sending it is not rejected (unknown headers and query parameters are ignored)' },
  'parameter-became-required': { breaking: true, why: 'requests that leave it out, valid before, are rejected' },
  'parameter-became-optional': { breaking: false, why: 'every request valid before is still valid' },

  // Request bodies.
  'request-body-added-required': { breaking: true, why: 'existing requests send no body and are rejected' },
  'request-body-added-optional': { breaking: false, why: 'existing requests stay valid without a body' },
  'request-body-removed': { breaking: false, why: 'the operation no longer reads a body; clients still sending one are not rejected' },
  'request-body-became-required': { breaking: true, why: 'requests without a body, valid before, are rejected' },
  'request-body-became-optional': { breaking: false, why: 'every request valid before is still valid' },
  'request-media-type-removed': { breaking: true, why: 'clients sending that content type are rejected (415)' },
  'request-media-type-added': { breaking: false, why: 'an extra accepted content type; existing requests are unaffected' },

  // Request fields (object properties anywhere in a request body or parameter schema; readOnly ones are skipped).
  'request-field-added-required': { breaking: true, why: 'existing requests do not send the field and are rejected' },
  'request-field-added-optional': { breaking: false, why: 'existing requests stay valid without the field' },
  'request-field-removed': { breaking: false, why: 'the object still accepts unknown properties, so clients still sending it are not rejected' },
  'request-field-removed-closed': { breaking: true, why: 'the object rejects unknown properties (additionalProperties: false), so clients still sending the field are rejected' },
  'request-field-became-required': { breaking: true, why: 'requests that leave the field out, valid before, are rejected' },
  'request-field-became-optional': { breaking: false, why: 'every request valid before is still valid' },

  // Request values.
  'request-type-widened': { breaking: false, why: 'the new type accepts every value the old one did (e.g. integer → number, a type added)' },
  'request-enum-value-removed': { breaking: true, why: 'requests sending that value, valid before, are rejected' },
  'request-enum-value-added': { breaking: false, why: 'one more accepted value; existing requests are unaffected' },
  'request-pattern-added': { breaking: true, why: 'a pattern where there was none rejects values accepted before' },
  'request-pattern-widened': { breaking: false, why: 'provably accepts every value the old pattern did: the new pattern is an alternation with every alternative of the old one (patterns.ts)' },
  'request-pattern-changed': { breaking: false, review: true, why: 'two different regular expressions: whether the new one accepts everything the old one did is not decided by the comparer; acknowledge it in a changeset (`Reviewed: <pointer> (<id>)`) after checking, or release as major' },
  'request-pattern-removed': { breaking: false, why: 'no pattern: every value accepted before still is' },
  'request-bound-tightened': { breaking: true, why: 'a raised minimum, a lowered maximum, a new bound or a stricter multipleOf rejects values accepted before' },
  'request-bound-loosened': { breaking: false, why: 'a lowered minimum, a raised maximum or a removed bound accepts everything accepted before' },
  'request-constraint-changed': { breaking: true, why: 'a new or changed validation keyword (enum, format, not, uniqueItems, additionalProperties: false, …) can reject requests accepted before' },
  'request-constraint-removed': { breaking: false, why: 'a removed validation keyword accepts everything accepted before' },
  'request-variant-removed': { breaking: true, why: 'requests of that shape (a oneOf/anyOf alternative) are rejected' },
  'request-variant-added': { breaking: false, why: 'one more accepted shape; existing requests are unaffected' },

  // Responses (per status code: "201", "4XX", "default" are keys as written).
  'response-status-removed': { breaking: true, why: 'clients (types, retry rules, error handling) expect that status; a changed status is this plus response-status-added' },
  'response-status-added': { breaking: false, why: 'clients handle a status they do not know by its class (2xx/4xx/5xx)' },
  'response-media-type-removed': { breaking: true, why: 'clients parsing that content type no longer get it' },
  'response-media-type-added': { breaking: false, why: 'an extra content type; clients keep getting the one they asked for' },
  'response-header-removed': { breaking: true, why: 'clients reading the header (e.g. Retry-After) no longer get it' },
  'response-header-added': { breaking: false, why: 'clients ignore headers they do not read' },
  'response-header-became-optional': { breaking: true, why: 'clients reading the header (e.g. Retry-After before waiting) may no longer get it' },
  'response-header-became-required': { breaking: false, why: 'the header always comes now; clients that handled its absence still work' },

  // Response fields.
  'response-field-removed': { breaking: true, why: 'clients reading the field get undefined; a renamed field is a removed field plus an added one' },
  'response-field-added': { breaking: false, why: 'clients must tolerate unknown properties (the response schemas say so)' },
  'response-field-became-optional': { breaking: true, why: 'clients relying on the field being present may get undefined' },
  'response-field-became-required': { breaking: false, why: 'the field is always present now; clients that handled its absence still work' },

  // Response values.
  'response-type-narrowed': { breaking: false, why: 'every value clients may receive now was already possible (e.g. number → integer)' },
  'response-enum-value-added': { breaking: true, why: 'the generated type is a closed union: exhaustive switches over it stop compiling and code that maps every value (classifyTransfer) meets one it does not know; mark an enum `x-extensible-enum: true` to make it open by contract' },
  'response-extensible-enum-value-added': { breaking: false, why: 'the released enum already said `x-extensible-enum: true`: clients were told to expect values they do not know (the flag added in the same change tells them nothing: that is response-enum-value-added)' },
  'response-enum-value-removed': { breaking: false, why: 'clients receive a subset of the values they already handle' },
  'response-constraint-changed': { breaking: false, why: 'bounds, patterns, formats and enums of response values document them; clients do not validate responses against them (type and presence changes are separate rules)' },
  'response-variant-added': { breaking: true, why: 'like a new enum value: the generated type is a closed union of the alternatives, so code that handles each of them meets a shape it does not know' },
  'response-variant-removed': { breaking: false, why: 'clients receive a subset of the shapes they already handle' },

  // Either side.
  'type-changed': { breaking: true, why: 'requests of the old type are rejected, or clients parsing a response get values of another type' },
  'schema-composition-changed': { breaking: true, why: 'a schema switched between one shape and alternatives (oneOf/anyOf): not decided field by field, so it needs a major release or a closer look' },

  // The error catalog: the named examples of 4xx/5xx responses, one per code (packages/spec errorCatalog()).
  'error-code-removed': { breaking: true, why: 'clients branch on `code`; a code that no longer comes with that operation and status breaks that branch and the typed error-code unions' },
  'error-code-added': { breaking: false, why: 'clients handle codes they do not know by status class (the Error schema says so)' },
} as const satisfies Record<string, Rule>;

export type ChangeKind = keyof typeof RULES;

export const CHANGE_KINDS = Object.keys(RULES) as ChangeKind[];

export function rule(kind: ChangeKind): Rule {
  return RULES[kind];
}
