// Every rule of tools/lib/breaking/rules.ts on a fixture pair: the base document (fixtures/base.yaml) and a
// copy with one change. Each case asserts the comparer's whole output: kind, exact JSON pointer, which
// document the pointer is in, and the verdict.
import { describe, expect, it } from 'vitest';
import { compareDocuments } from '../../tools/lib/breaking/compare.ts';
import type { JsonObject } from '../../tools/lib/breaking/json.ts';
import { CHANGE_KINDS, RULES } from '../../tools/lib/breaking/rules.ts';
import { base, diff, rows, type Editable, type Row } from './fixtures.ts';

const S = '/components/schemas';
const P = '/paths/~1v1~1things/post'; // createThing
const G = '/paths/~1v1~1things~1{thingId}/get'; // getThing
const A = '/paths/~1v1~1things~1{thingId}~1archive/post'; // archiveThing (no body)

interface Case {
  name: string;
  given?: (d: Editable) => void;
  change: (d: Editable) => void;
  expected: Row[];
}

const post = (d: Editable) => d.paths['/v1/things'].post;
const thingCreate = (d: Editable) => d.components.schemas.ThingCreate;
const thing = (d: Editable) => d.components.schemas.Thing;
const errorExamples = (d: Editable, status: string) => post(d).responses[status].content['application/json'].examples;

const groups: Record<string, Case[]> = {
  operations: [
    {
      name: 'an added operation is not breaking',
      change: (d) => (d.paths['/v1/things/{thingId}'].delete = { operationId: 'deleteThing', responses: { '204': { description: 'Deleted.' } } }),
      expected: [['operation-added', '/paths/~1v1~1things~1{thingId}/delete', 'new', false]],
    },
    {
      name: 'a removed operation is breaking',
      change: (d) => delete d.paths['/v1/things/{thingId}'].get,
      expected: [['operation-removed', G, 'old', true]],
    },
    {
      name: 'a removed path removes its operations',
      change: (d) => delete d.paths['/v1/things/{thingId}/archive'],
      expected: [['operation-removed', A, 'old', true]],
    },
    {
      name: 'a renamed schema component is the same wire, and breaks the types that export it by name',
      change: (d) => {
        d.components.schemas.NewThingCreate = d.components.schemas.ThingCreate;
        delete d.components.schemas.ThingCreate;
        post(d).requestBody.content['application/json'].schema.$ref = '#/components/schemas/NewThingCreate';
      },
      expected: [['schema-component-removed', `${S}/ThingCreate`, 'old', true]],
    },
    {
      name: 'a renamed path parameter is the same operation on the wire, and breaks the typed client (paths keyed by template)',
      change: (d) => {
        const item = d.paths['/v1/things/{thingId}'];
        delete d.paths['/v1/things/{thingId}'];
        item.parameters[0].name = 'id';
        d.paths['/v1/things/{id}'] = item;
      },
      expected: [['path-template-changed', '/paths/~1v1~1things~1{id}/get', 'new', true]],
    },
  ],
  parameters: [
    {
      name: 'a new required header is breaking',
      change: (d) => post(d).parameters.push({ name: 'X-Org', in: 'header', required: true, schema: { type: 'string' } }),
      expected: [['parameter-added-required', `${P}/parameters/2`, 'new', true]],
    },
    {
      name: 'a new optional query parameter is not breaking',
      change: (d) => post(d).parameters.push({ name: 'dryRun', in: 'query', schema: { type: 'boolean' } }),
      expected: [['parameter-added-optional', `${P}/parameters/2`, 'new', false]],
    },
    {
      name: 'a removed query parameter is not breaking',
      change: (d) => post(d).parameters.splice(1, 1),
      expected: [['parameter-removed', `${P}/parameters/1`, 'old', false]],
    },
    {
      name: 'an optional parameter becoming required is breaking',
      change: (d) => (post(d).parameters[1].required = true),
      expected: [['parameter-became-required', `${P}/parameters/1/required`, 'new', true]],
    },
    {
      name: 'a required parameter becoming optional is not breaking (required: false)',
      change: (d) => (d.components.parameters.IdempotencyKey.required = false),
      expected: [['parameter-became-optional', '/components/parameters/IdempotencyKey/required', 'new', false]],
    },
    {
      name: 'a required parameter becoming optional is not breaking (required removed: old pointer)',
      change: (d) => delete d.components.parameters.IdempotencyKey.required,
      expected: [['parameter-became-optional', '/components/parameters/IdempotencyKey/required', 'old', false]],
    },
    {
      name: 'header names are case-insensitive',
      change: (d) => (d.components.parameters.IdempotencyKey.name = 'idempotency-key'),
      expected: [],
    },
    {
      name: 'a parameter moved from the operation to its path item is unchanged',
      change: (d) => (d.paths['/v1/things'].parameters = post(d).parameters.splice(1, 1)),
      expected: [],
    },
    {
      name: "a parameter's changed pattern needs review (not provably wider)",
      change: (d) => (d.components.parameters.IdempotencyKey.schema.pattern = '^[A-Za-z0-9]+$'),
      expected: [['request-pattern-changed', '/components/parameters/IdempotencyKey/schema/pattern', 'new', false]],
    },
    {
      name: "a parameter's raised maxLength is not breaking",
      change: (d) => (post(d).parameters[1].schema.maxLength = 40),
      expected: [['request-bound-loosened', `${P}/parameters/1/schema/maxLength`, 'new', false]],
    },
    {
      name: "a parameter's new enum is breaking",
      change: (d) => (post(d).parameters[1].schema.enum = ['owner']),
      expected: [['request-constraint-changed', `${P}/parameters/1/schema/enum`, 'new', true]],
    },
  ],
  'request bodies': [
    {
      name: 'a new required body is breaking',
      change: (d) => (d.paths['/v1/things/{thingId}/archive'].post.requestBody = { required: true, content: { 'application/json': { schema: { type: 'object' } } } }),
      expected: [['request-body-added-required', `${A}/requestBody`, 'new', true]],
    },
    {
      name: 'a new optional body is not breaking',
      change: (d) => (d.paths['/v1/things/{thingId}/archive'].post.requestBody = { content: { 'application/json': { schema: { type: 'object' } } } }),
      expected: [['request-body-added-optional', `${A}/requestBody`, 'new', false]],
    },
    {
      name: 'a removed body is not breaking',
      change: (d) => delete post(d).requestBody,
      expected: [['request-body-removed', `${P}/requestBody`, 'old', false]],
    },
    {
      name: 'an optional body becoming required is breaking',
      given: (d) => (post(d).requestBody.required = false),
      change: (d) => (post(d).requestBody.required = true),
      expected: [['request-body-became-required', `${P}/requestBody/required`, 'new', true]],
    },
    {
      name: 'a required body becoming optional is not breaking',
      change: (d) => (post(d).requestBody.required = false),
      expected: [['request-body-became-optional', `${P}/requestBody/required`, 'new', false]],
    },
    {
      name: 'an added request media type is not breaking',
      change: (d) => (post(d).requestBody.content['application/x-www-form-urlencoded'] = { schema: { type: 'object' } }),
      expected: [['request-media-type-added', `${P}/requestBody/content/application~1x-www-form-urlencoded`, 'new', false]],
    },
    {
      name: 'a removed request media type is breaking',
      given: (d) => (post(d).requestBody.content['application/x-www-form-urlencoded'] = { schema: { type: 'object' } }),
      change: (d) => delete post(d).requestBody.content['application/x-www-form-urlencoded'],
      expected: [['request-media-type-removed', `${P}/requestBody/content/application~1x-www-form-urlencoded`, 'old', true]],
    },
  ],
  'request fields': [
    {
      name: 'a new required request field is breaking',
      change: (d) => {
        thingCreate(d).properties.note = { type: 'string' };
        thingCreate(d).required.push('note');
      },
      expected: [['request-field-added-required', `${S}/ThingCreate/properties/note`, 'new', true]],
    },
    {
      name: 'a new optional request field is not breaking',
      change: (d) => (thingCreate(d).properties.note = { type: 'string' }),
      expected: [['request-field-added-optional', `${S}/ThingCreate/properties/note`, 'new', false]],
    },
    {
      name: 'a removed request field is not breaking when unknown properties are accepted',
      change: (d) => delete thingCreate(d).properties.email,
      expected: [['request-field-removed', `${S}/ThingCreate/properties/email`, 'old', false]],
    },
    {
      name: 'a removed request field is breaking when the object is closed (additionalProperties: false)',
      given: (d) => (thingCreate(d).additionalProperties = false),
      change: (d) => delete thingCreate(d).properties.email,
      expected: [['request-field-removed-closed', `${S}/ThingCreate/properties/email`, 'old', true]],
    },
    {
      name: 'a renamed optional request field is a removal and an addition',
      change: (d) => {
        thingCreate(d).properties.mail = thingCreate(d).properties.email;
        delete thingCreate(d).properties.email;
      },
      expected: [
        ['request-field-removed', `${S}/ThingCreate/properties/email`, 'old', false],
        ['request-field-added-optional', `${S}/ThingCreate/properties/mail`, 'new', false],
      ],
    },
    {
      name: 'an optional request field becoming required is breaking',
      change: (d) => thingCreate(d).required.push('count'),
      expected: [['request-field-became-required', `${S}/ThingCreate/required/1`, 'new', true]],
    },
    {
      name: 'a required request field becoming optional is not breaking',
      change: (d) => (thingCreate(d).required = []),
      expected: [['request-field-became-optional', `${S}/ThingCreate/required/0`, 'old', false]],
    },
    {
      name: 'readOnly properties are not part of a request',
      change: (d) => thingCreate(d).required.push('id'),
      expected: [],
    },
  ],
  'request values': [
    {
      name: 'integer → number in a request is a widening',
      change: (d) => (thingCreate(d).properties.count.type = 'number'),
      expected: [['request-type-widened', `${S}/ThingCreate/properties/count/type`, 'new', false]],
    },
    {
      name: 'a type added (null) in a request is a widening',
      change: (d) => (thingCreate(d).properties.count.type = ['integer', 'null']),
      expected: [['request-type-widened', `${S}/ThingCreate/properties/count/type`, 'new', false]],
    },
    {
      name: 'a changed request type is breaking',
      change: (d) => (thingCreate(d).properties.count.type = 'string'),
      expected: [['type-changed', `${S}/ThingCreate/properties/count/type`, 'new', true]],
    },
    {
      name: 'a removed enum value breaks requests, not responses (one shared schema, two verdicts)',
      change: (d) => (d.components.schemas.Kind.enum = ['small']),
      expected: [
        ['request-enum-value-removed', `${S}/Kind/enum/1`, 'old', true],
        ['response-enum-value-removed', `${S}/Kind/enum/1`, 'old', false],
      ],
    },
    {
      name: 'an added enum value widens a request and breaks a response (closed union in the types)',
      change: (d) => d.components.schemas.Kind.enum.push('huge'),
      expected: [
        ['request-enum-value-added', `${S}/Kind/enum/2`, 'new', false],
        ['response-enum-value-added', `${S}/Kind/enum/2`, 'new', true],
      ],
    },
    {
      name: 'an added value of an x-extensible-enum breaks neither',
      given: (d) => (d.components.schemas.Kind['x-extensible-enum'] = true),
      change: (d) => d.components.schemas.Kind.enum.push('huge'),
      expected: [
        ['request-enum-value-added', `${S}/Kind/enum/2`, 'new', false],
        ['response-extensible-enum-value-added', `${S}/Kind/enum/2`, 'new', false],
      ],
    },
    {
      name: 'a value added while the enum is made x-extensible-enum breaks the response: the released contract promised a closed set',
      change: (d) => {
        d.components.schemas.Kind['x-extensible-enum'] = true;
        d.components.schemas.Kind.enum.push('huge');
      },
      expected: [
        ['request-enum-value-added', `${S}/Kind/enum/2`, 'new', false],
        ['response-enum-value-added', `${S}/Kind/enum/2`, 'new', true],
      ],
    },
    {
      name: 'a changed const is a removed value and an added one',
      change: (d) => (d.components.schemas.UrlSource.properties.type.const = 'link'),
      expected: [
        ['request-enum-value-removed', `${S}/UrlSource/properties/type/const`, 'old', true],
        ['request-enum-value-added', `${S}/UrlSource/properties/type/const`, 'new', false],
      ],
    },
    {
      name: 'const x and enum [x] are the same',
      change: (d) => (d.components.schemas.UrlSource.properties.type = { enum: ['url'] }),
      expected: [],
    },
    {
      name: 'a removed enum loosens a request',
      change: (d) => delete d.components.schemas.Kind.enum,
      expected: [
        ['request-constraint-removed', `${S}/Kind/enum`, 'old', false],
        ['response-constraint-changed', `${S}/Kind/enum`, 'old', false],
      ],
    },
    {
      name: 'a changed request pattern that is not provably wider needs review, even a wider one',
      change: (d) => (thingCreate(d).properties.name.pattern = '^[a-z0-9]+$'),
      expected: [['request-pattern-changed', `${S}/ThingCreate/properties/name/pattern`, 'new', false]],
    },
    {
      name: 'a request pattern with an alternative added is provably wider',
      change: (d) => (thingCreate(d).properties.name.pattern = '^(?:[a-z]+|[0-9]+)$'),
      expected: [['request-pattern-widened', `${S}/ThingCreate/properties/name/pattern`, 'new', false]],
    },
    {
      name: 'a new request pattern (through an allOf wrapper) is breaking',
      change: (d) => (d.components.schemas.Label.pattern = '^[a-z]+$'),
      expected: [['request-pattern-added', `${S}/Label/pattern`, 'new', true]],
    },
    {
      name: 'a removed request pattern is not breaking',
      change: (d) => delete thingCreate(d).properties.name.pattern,
      expected: [['request-pattern-removed', `${S}/ThingCreate/properties/name/pattern`, 'old', false]],
    },
    {
      name: 'tightened request bounds are breaking',
      change: (d) => {
        const p = thingCreate(d).properties;
        p.name.maxLength = 40;
        p.count.minimum = 2;
        p.count.maximum = 5;
        p.price.multipleOf = 0.05;
        p.tags.maxItems = 3;
        p.tags.items.maxLength = 10;
        p.email.maxLength = 100;
      },
      expected: [
        ['request-bound-tightened', `${S}/ThingCreate/properties/name/maxLength`, 'new', true],
        ['request-bound-tightened', `${S}/ThingCreate/properties/count/minimum`, 'new', true],
        ['request-bound-tightened', `${S}/ThingCreate/properties/count/maximum`, 'new', true],
        ['request-bound-tightened', `${S}/ThingCreate/properties/price/multipleOf`, 'new', true],
        ['request-bound-tightened', `${S}/ThingCreate/properties/email/maxLength`, 'new', true],
        ['request-bound-tightened', `${S}/ThingCreate/properties/tags/maxItems`, 'new', true],
        ['request-bound-tightened', `${S}/ThingCreate/properties/tags/items/maxLength`, 'new', true],
      ],
    },
    {
      name: 'loosened request bounds are not breaking',
      change: (d) => {
        const p = thingCreate(d).properties;
        delete p.count.minimum;
        p.count.maximum = 20;
        p.price.multipleOf = 0.001;
      },
      expected: [
        ['request-bound-loosened', `${S}/ThingCreate/properties/count/minimum`, 'old', false],
        ['request-bound-loosened', `${S}/ThingCreate/properties/count/maximum`, 'new', false],
        ['request-bound-loosened', `${S}/ThingCreate/properties/price/multipleOf`, 'new', false],
      ],
    },
    {
      name: 'minimum → exclusiveMinimum is a removed bound and a new one',
      change: (d) => {
        delete thingCreate(d).properties.count.minimum;
        thingCreate(d).properties.count.exclusiveMinimum = 1;
      },
      expected: [
        ['request-bound-loosened', `${S}/ThingCreate/properties/count/minimum`, 'old', false],
        ['request-bound-tightened', `${S}/ThingCreate/properties/count/exclusiveMinimum`, 'new', true],
      ],
    },
    {
      name: 'new or changed validation keywords in a request are breaking',
      change: (d) => {
        thingCreate(d).additionalProperties = false;
        thingCreate(d).properties.email.format = 'uri';
        thingCreate(d).properties.tags.uniqueItems = true;
      },
      expected: [
        ['request-constraint-changed', `${S}/ThingCreate/additionalProperties`, 'new', true],
        ['request-constraint-changed', `${S}/ThingCreate/properties/email/format`, 'new', true],
        ['request-constraint-changed', `${S}/ThingCreate/properties/tags/uniqueItems`, 'new', true],
      ],
    },
    {
      name: 'an additionalProperties schema of annotations only (a description, an x-assumed mark) is as open as true',
      change: (d) => (thingCreate(d).additionalProperties = { description: 'Fields not shown.', 'x-assumed': true, 'x-assumed-reason': 'not shown' }),
      expected: [],
    },
    {
      name: 'removed validation keywords in a request are not breaking',
      change: (d) => delete thingCreate(d).properties.email.format,
      expected: [['request-constraint-removed', `${S}/ThingCreate/properties/email/format`, 'old', false]],
    },
    {
      name: 'a removed request alternative (oneOf) is breaking',
      change: (d) => thingCreate(d).properties.source.oneOf.pop(),
      expected: [['request-variant-removed', `${S}/ThingCreate/properties/source/oneOf/1`, 'old', true]],
    },
    {
      name: 'an added request alternative is not breaking',
      change: (d) => {
        d.components.schemas.TextSource = { type: 'object', properties: { type: { const: 'text' } } };
        thingCreate(d).properties.source.oneOf.push({ $ref: '#/components/schemas/TextSource' });
      },
      expected: [['request-variant-added', `${S}/ThingCreate/properties/source/oneOf/2`, 'new', false]],
    },
    {
      name: 'alternatives are matched, not compared by position: reordered or inlined ones are unchanged',
      change: (d) => {
        const [url, file] = thingCreate(d).properties.source.oneOf;
        thingCreate(d).properties.source.oneOf = [file, url];
        thingCreate(d).properties.source.oneOf[1] = structuredClone(d.components.schemas.UrlSource);
      },
      expected: [],
    },
    {
      name: 'a change inside a matched alternative is reported at its definition',
      change: (d) => (d.components.schemas.FileSource.properties.fileId.maxLength = 32),
      expected: [['request-bound-tightened', `${S}/FileSource/properties/fileId/maxLength`, 'new', true]],
    },
  ],
  responses: [
    {
      name: 'a removed status is breaking',
      change: (d) => delete post(d).responses['409'],
      expected: [['response-status-removed', `${P}/responses/409`, 'old', true]],
    },
    {
      name: 'a changed status (201 → 200) is a removed status and an added one',
      change: (d) => {
        post(d).responses['200'] = post(d).responses['201'];
        delete post(d).responses['201'];
      },
      expected: [
        ['response-status-removed', `${P}/responses/201`, 'old', true],
        ['response-status-added', `${P}/responses/200`, 'new', false],
      ],
    },
    {
      name: 'an added status is not breaking',
      change: (d) => (post(d).responses['422'] = { description: 'Unprocessable.' }),
      expected: [['response-status-added', `${P}/responses/422`, 'new', false]],
    },
    {
      name: 'a removed response media type is breaking',
      given: (d) => (post(d).responses['201'].content['application/xml'] = { schema: { type: 'object' } }),
      change: (d) => delete post(d).responses['201'].content['application/xml'],
      expected: [['response-media-type-removed', `${P}/responses/201/content/application~1xml`, 'old', true]],
    },
    {
      name: 'an added response media type is not breaking',
      change: (d) => (post(d).responses['201'].content['text/csv'] = { schema: { type: 'string' } }),
      expected: [['response-media-type-added', `${P}/responses/201/content/text~1csv`, 'new', false]],
    },
    {
      name: 'a removed response header is breaking',
      change: (d) => delete post(d).responses['201'].headers['X-Request-Id'],
      expected: [['response-header-removed', `${P}/responses/201/headers/X-Request-Id`, 'old', true]],
    },
    {
      name: 'an added response header is not breaking',
      change: (d) => (post(d).responses['201'].headers['Retry-After'] = { schema: { type: 'integer' } }),
      expected: [['response-header-added', `${P}/responses/201/headers/Retry-After`, 'new', false]],
    },
    {
      name: 'a required response header becoming optional is breaking',
      given: (d) => (post(d).responses['201'].headers['X-Request-Id'].required = true),
      change: (d) => (post(d).responses['201'].headers['X-Request-Id'].required = false),
      expected: [['response-header-became-optional', `${P}/responses/201/headers/X-Request-Id/required`, 'new', true]],
    },
    {
      name: 'an optional response header becoming required is not breaking',
      change: (d) => (post(d).responses['201'].headers['X-Request-Id'].required = true),
      expected: [['response-header-became-required', `${P}/responses/201/headers/X-Request-Id/required`, 'new', false]],
    },
  ],
  'operation ids and tags': [
    {
      name: 'a renamed operationId is breaking',
      change: (d) => (post(d).operationId = 'makeThing'),
      expected: [['operation-id-changed', `${P}/operationId`, 'new', true]],
    },
    {
      name: 'a removed operationId is breaking',
      change: (d) => delete post(d).operationId,
      expected: [['operation-id-removed', `${P}/operationId`, 'old', true]],
    },
    {
      name: 'an added operationId is not breaking',
      given: (d) => delete post(d).operationId,
      change: (d) => (post(d).operationId = 'createThing'),
      expected: [['operation-id-added', `${P}/operationId`, 'new', false]],
    },
    {
      name: 'a changed product tag (the first tag) is breaking; other tags are documentation',
      change: (d) => (post(d).tags = ['Widgets', 'Guides']),
      expected: [['operation-product-changed', `${P}/tags/0`, 'new', true]],
    },
    {
      name: 'a tag after the product tag is not compared',
      change: (d) => post(d).tags.push('Guides'),
      expected: [],
    },
  ],
  security: [
    {
      name: 'a renamed API-key header is breaking',
      change: (d) => (d.components.securitySchemes.ApiKeyAuth.name = 'x-payments-key'),
      expected: [['security-scheme-changed', '/components/securitySchemes/ApiKeyAuth/name', 'new', true]],
    },
    {
      name: 'the API-key header in other letter case is the same header',
      change: (d) => (d.components.securitySchemes.ApiKeyAuth.name = 'X-Api-Key'),
      expected: [],
    },
    {
      name: 'an API key moved from a header to a query parameter is breaking',
      change: (d) => (d.components.securitySchemes.ApiKeyAuth.in = 'query'),
      expected: [['security-scheme-changed', '/components/securitySchemes/ApiKeyAuth/in', 'new', true]],
    },
    {
      name: 'a changed scheme type is breaking (each field the client sends is named)',
      change: (d) => (d.components.securitySchemes.ApiKeyAuth = { type: 'http', scheme: 'bearer' }),
      expected: [
        ['security-scheme-changed', '/components/securitySchemes/ApiKeyAuth/type', 'new', true],
        ['security-scheme-changed', '/components/securitySchemes/ApiKeyAuth/in', 'old', true],
        ['security-scheme-changed', '/components/securitySchemes/ApiKeyAuth/name', 'old', true],
        ['security-scheme-changed', '/components/securitySchemes/ApiKeyAuth/scheme', 'new', true],
      ],
    },
    {
      name: 'the global requirement switched to a new bearer scheme is breaking',
      change: (d) => {
        d.components.securitySchemes.BearerAuth = { type: 'http', scheme: 'bearer' };
        d.security = [{ BearerAuth: [] }];
      },
      expected: [
        ['security-scheme-added', '/components/securitySchemes/BearerAuth', 'new', false],
        ['security-requirement-tightened', '/security', 'new', true],
      ],
    },
    {
      name: 'a second accepted scheme is not breaking',
      change: (d) => {
        d.components.securitySchemes.BearerAuth = { type: 'http', scheme: 'bearer' };
        d.security.push({ BearerAuth: [] });
      },
      expected: [
        ['security-scheme-added', '/components/securitySchemes/BearerAuth', 'new', false],
        ['security-requirement-loosened', '/security', 'new', false],
      ],
    },
    {
      name: 'a requirement added to an open operation is breaking',
      change: (d) => (d.paths['/v1/things/{thingId}'].get.security = [{ ApiKeyAuth: [] }]),
      given: (d) => delete d.security,
      expected: [['security-requirement-tightened', `${G}/security`, 'new', true]],
    },
    {
      name: 'an optional credential ({}) removed is breaking',
      given: (d) => d.security.push({}),
      change: (d) => d.security.pop(),
      expected: [['security-requirement-tightened', '/security', 'new', true]],
    },
    {
      name: 'a removed scheme that operations required is breaking',
      change: (d) => {
        delete d.components.securitySchemes.ApiKeyAuth;
        d.security = [];
      },
      expected: [
        ['security-scheme-removed', '/components/securitySchemes/ApiKeyAuth', 'old', true],
        ['security-requirement-loosened', '/security', 'new', false],
      ],
    },
    {
      name: 'a removed scheme that nothing required is not breaking',
      given: (d) => (d.components.securitySchemes.Legacy = { type: 'apiKey', in: 'header', name: 'x-legacy' }),
      change: (d) => delete d.components.securitySchemes.Legacy,
      expected: [['security-scheme-removed-unused', '/components/securitySchemes/Legacy', 'old', false]],
    },
    {
      name: 'a scheme whose key is renamed, sending the same header, is not breaking',
      change: (d) => {
        d.components.securitySchemes.ApiKey = d.components.securitySchemes.ApiKeyAuth;
        delete d.components.securitySchemes.ApiKeyAuth;
        d.security = [{ ApiKey: [] }];
      },
      expected: [['security-scheme-added', '/components/securitySchemes/ApiKey', 'new', false]],
    },
  ],
  'response fields': [
    {
      name: 'a removed response field is breaking (listed once, reached from two operations)',
      change: (d) => delete thing(d).properties.score,
      expected: [['response-field-removed', `${S}/Thing/properties/score`, 'old', true]],
    },
    {
      name: 'a renamed response field is a removal (breaking) and an addition',
      change: (d) => {
        thing(d).properties.title = thing(d).properties.name;
        delete thing(d).properties.name;
        thing(d).required = ['id', 'title'];
      },
      expected: [
        ['response-field-removed', `${S}/Thing/properties/name`, 'old', true],
        ['response-field-added', `${S}/Thing/properties/title`, 'new', false],
      ],
    },
    {
      name: 'an added response field is not breaking (also through a recursive $ref)',
      change: (d) => (thing(d).properties.createdAt = { type: 'string' }),
      expected: [['response-field-added', `${S}/Thing/properties/createdAt`, 'new', false]],
    },
    {
      name: 'a required response field becoming optional is breaking',
      change: (d) => (thing(d).required = ['id']),
      expected: [['response-field-became-optional', `${S}/Thing/required/1`, 'old', true]],
    },
    {
      name: 'an optional response field becoming required is not breaking',
      change: (d) => thing(d).required.push('kind'),
      expected: [['response-field-became-required', `${S}/Thing/required/2`, 'new', false]],
    },
    {
      name: 'writeOnly properties are not part of a response',
      change: (d) => (thing(d).properties.secret = { type: 'string', writeOnly: true }),
      expected: [],
    },
    {
      name: 'a changed response type is breaking',
      change: (d) => (thing(d).properties.id.type = 'integer'),
      expected: [['type-changed', `${S}/Thing/properties/id/type`, 'new', true]],
    },
    {
      name: 'number → integer in a response is a narrowing',
      change: (d) => (thing(d).properties.score.type = 'integer'),
      expected: [['response-type-narrowed', `${S}/Thing/properties/score/type`, 'new', false]],
    },
    {
      name: 'changed bounds, patterns and formats of response values are not breaking',
      change: (d) => {
        thing(d).properties.name.maxLength = 100;
        thing(d).properties.name.pattern = '^[a-z]+$';
        thing(d).properties.id.format = 'uuid';
      },
      expected: [
        ['response-constraint-changed', `${S}/Thing/properties/id/format`, 'new', false],
        ['response-constraint-changed', `${S}/Thing/properties/name/pattern`, 'new', false],
        ['response-constraint-changed', `${S}/Thing/properties/name/maxLength`, 'new', false],
      ],
    },
    {
      name: 'an added response alternative is breaking (closed union in the types)',
      change: (d) => thing(d).properties.shape.oneOf.push({ type: 'boolean' }),
      expected: [['response-variant-added', `${S}/Thing/properties/shape/oneOf/2`, 'new', true]],
    },
    {
      name: 'a removed response alternative is not breaking',
      change: (d) => thing(d).properties.shape.oneOf.pop(),
      expected: [['response-variant-removed', `${S}/Thing/properties/shape/oneOf/1`, 'old', false]],
    },
    {
      name: 'a schema becoming a oneOf is breaking (composition), with its type change',
      change: (d) => (thing(d).properties.score = { oneOf: [{ type: 'number' }, { type: 'string' }] }),
      expected: [
        ['schema-composition-changed', `${S}/Thing/properties/score`, 'new', true],
        ['type-changed', `${S}/Thing/properties/score/type`, 'old', true],
      ],
    },
  ],
  'error codes': [
    {
      name: 'a removed error code is breaking',
      change: (d) => delete errorExamples(d, '409').thing_conflict,
      expected: [['error-code-removed', `${P}/responses/409/content/application~1json/examples/thing_conflict`, 'old', true]],
    },
    {
      name: 'an added error code is not breaking',
      change: (d) => (errorExamples(d, '409').thing_locked = { summary: 'Locked.', value: { error: 'Locked.', code: 'thing_locked' } }),
      expected: [['error-code-added', `${P}/responses/409/content/application~1json/examples/thing_locked`, 'new', false]],
    },
    {
      name: 'a code removed from a shared response is one change, reached from every operation using it',
      change: (d) => delete d.components.responses.Unauthorized.content['application/json'].examples.invalid_api_key,
      expected: [['error-code-removed', '/components/responses/Unauthorized/content/application~1json/examples/invalid_api_key', 'old', true]],
    },
    {
      name: 'a code moved to another status is removed from one (breaking) and added to the other',
      change: (d) => {
        errorExamples(d, '400').thing_conflict = errorExamples(d, '409').thing_conflict;
        delete errorExamples(d, '409').thing_conflict;
      },
      expected: [
        ['error-code-added', `${P}/responses/400/content/application~1json/examples/thing_conflict`, 'new', false],
        ['error-code-removed', `${P}/responses/409/content/application~1json/examples/thing_conflict`, 'old', true],
      ],
    },
    {
      name: 'a renamed or inlined example with the same code is unchanged',
      change: (d) => {
        const examples = errorExamples(d, '400');
        examples.conflicting_name = examples.thing_name_invalid;
        delete examples.thing_name_invalid;
        examples.invalid_request = structuredClone(d.components.examples.invalid_request);
      },
      expected: [],
    },
  ],
  '$ref and allOf': [
    {
      name: 'a change inside an allOf member is reported at the member',
      change: (d) => (d.components.schemas.Label.maxLength = 20),
      expected: [['request-bound-tightened', `${S}/Label/maxLength`, 'new', true]],
    },
    {
      name: 'an allOf wrapper replaced by its $ref is unchanged',
      change: (d) => (thingCreate(d).properties.label = { $ref: '#/components/schemas/Label' }),
      expected: [],
    },
    {
      name: 'a $ref replaced by an inline copy is unchanged',
      change: (d) => (post(d).requestBody.content['application/json'].schema = structuredClone(d.components.schemas.ThingCreate)),
      expected: [],
    },
    {
      name: 'descriptions, examples and x- extensions are not changes',
      change: (d) => {
        thingCreate(d).description = 'Changed.';
        thingCreate(d).properties.name.examples = ['abc'];
        thing(d)['x-assumed'] = true;
      },
      expected: [],
    },
  ],
};

describe('the comparer on fixture pairs', () => {
  it('finds no change between a document and itself', () => {
    expect(compareDocuments(base() as JsonObject, base() as JsonObject)).toEqual([]);
  });

  for (const [group, cases] of Object.entries(groups)) {
    describe(group, () => {
      for (const c of cases) {
        it(c.name, () => {
          expect(rows(diff(c.change, c.given))).toEqual(c.expected);
        });
      }
    });
  }

  it('has a fixture pair for every rule, with the rule table’s verdict', () => {
    const all = Object.values(groups).flatMap((cases) => cases.flatMap((c) => c.expected));
    const covered = new Set(all.map(([kind]) => kind));
    expect(CHANGE_KINDS.filter((kind) => !covered.has(kind))).toEqual([]);
    for (const [kind, , , breaking] of all) expect(RULES[kind as keyof typeof RULES].breaking, kind).toBe(breaking);
  });

  it('lists every place that reaches a shared change', () => {
    const changes = diff((d) => delete d.components.responses.Unauthorized.content['application/json'].examples.invalid_api_key);
    expect(changes.map((c) => c.where)).toEqual([['POST /v1/things response 401', 'GET /v1/things/{thingId} response 401']]);
    const parameter = diff((d) => (d.components.parameters.IdempotencyKey.required = false));
    expect(parameter.map((c) => c.where)).toEqual([
      ['POST /v1/things header parameter Idempotency-Key', 'POST /v1/things/{thingId}/archive header parameter Idempotency-Key'],
    ]);
  });

  it('says what changed and why', () => {
    const [change] = diff((d) => {
      thingCreate(d).properties.note = { type: 'string' };
      thingCreate(d).required.push('note');
    });
    expect(change).toMatchObject({
      message: 'request field "note" added (required)',
      why: RULES['request-field-added-required'].why,
      where: ['POST /v1/things request body'],
    });
  });

  it('rejects a $ref it cannot resolve with the pointer that holds it', () => {
    const broken = base();
    thingCreate(broken).properties.kind = { $ref: '#/components/schemas/Missing' };
    expect(() => compareDocuments(base() as JsonObject, broken as JsonObject)).toThrow(
      'new document: unresolved $ref #/components/schemas/Missing at /components/schemas/ThingCreate/properties/kind',
    );
  });
});
