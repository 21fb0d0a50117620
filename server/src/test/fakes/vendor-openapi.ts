import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FakeCall } from './vendor-server';

/** An answer the vendor's document does not list, allowed with the published source that tells of it. */
export interface UndocumentedAnswer {
  /** "METHOD /template" of the document, or "*" for every operation. */
  operation: string;
  status: number;
  /** Where the answer comes from (a vendor page, an issue): said in SOURCES.md too. */
  source: string;
}

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  parameters: any[];
  operation: any;
}

/** The git blob id of a file's bytes (`git hash-object`): ties a vendored document to the vendor's commit. */
export function gitBlobId(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/**
 * A vendor's published OpenAPI 3.0 document, used to check a fake: every request a driver or
 * SDK sends (operation, path and query parameters, security scheme, JSON body) and every answer
 * the fake gives (a documented status, its media type and body schema) against the document.
 */
export class VendorOpenApi {
  private readonly routes: Route[] = [];
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly validators = new Map<object, ValidateFunction>();

  private constructor(
    readonly document: any,
    /** The path of the document's first server URL ("/api/app"): requests are matched below it. */
    readonly basePath: string,
  ) {
    (addFormats as unknown as (ajv: Ajv) => void)(this.ajv);
    for (const [template, item] of Object.entries<any>(document.paths ?? {})) {
      const pattern = new RegExp(`^${escape(basePath + template).replace(/\\\{[^}]+\\\}/g, '([^/]+)')}$`);
      for (const method of ['get', 'put', 'post', 'delete', 'patch', 'head', 'options']) {
        const operation = item[method];
        if (!operation) continue;
        const parameters = mergeParameters(item.parameters ?? [], operation.parameters ?? []);
        this.routes.push({ method: method.toUpperCase(), template, pattern, parameters, operation });
      }
    }
    // Literal paths win over templated ones.
    this.routes.sort((a, b) => Number(a.template.includes('{')) - Number(b.template.includes('{')));
  }

  /** Reads and validates the document (OpenAPI schema), then resolves its $refs. Throws when it is not a valid document. */
  static async load(file: string | URL): Promise<VendorOpenApi> {
    const text = readFileSync(file, 'utf8');
    const validator = new Validator();
    const result = await validator.validate(text);
    if (!result.valid)
      throw new Error(`${String(file)} is not a valid OpenAPI document: ${JSON.stringify(result.errors)}`);
    const document = validator.resolveRefs() as any;
    const server = String(document.servers?.[0]?.url ?? '/').replace(/\{([^}]+)\}/g, (_, name: string) =>
      String(document.servers[0].variables?.[name]?.default ?? name),
    );
    const basePath = new URL(server, 'http://server').pathname.replace(/\/$/, '');
    return new VendorOpenApi(document, basePath);
  }

  get version(): string {
    return String(this.document.info?.version ?? '');
  }

  /** "METHOD /template" of every operation the document has. */
  operations(): string[] {
    return this.routes.map((r) => `${r.method} ${r.template}`);
  }

  private route(method: string, path: string): Route | undefined {
    return this.routes.find((r) => r.method === method && r.pattern.test(path));
  }

  private validator(schema: object): ValidateFunction {
    let validate = this.validators.get(schema);
    if (!validate) {
      validate = this.ajv.compile(nullableWithoutType(schema, new Map()) as object);
      this.validators.set(schema, validate);
    }
    return validate;
  }

  private schemaProblems(schema: object, value: unknown, what: string): string[] {
    const validate = this.validator(schema);
    return validate(value) ? [] : [`${what} does not match the document: ${this.ajv.errorsText(validate.errors)}`];
  }

  /** What is wrong with one request, against the operation it addresses; empty when it conforms. */
  checkRequest(call: FakeCall): string[] {
    const route = this.route(call.method, call.path);
    if (!route)
      return [`${call.method} ${call.path}: the document has no such operation (${this.operations().join(', ')})`];
    const name = `${route.method} ${route.template}`;
    const problems: string[] = [];
    const pathValues = route.pattern.exec(call.path)!.slice(1);
    const pathNames = [...route.template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    const documentedQuery = new Set<string>();
    for (const parameter of route.parameters) {
      let value: string | null | undefined;
      if (parameter.in === 'path') value = decodeURIComponent(pathValues[pathNames.indexOf(parameter.name)] ?? '');
      else if (parameter.in === 'query') {
        documentedQuery.add(parameter.name);
        value = call.query.get(parameter.name);
      } else if (parameter.in === 'header') {
        const header = call.headers[String(parameter.name).toLowerCase()];
        value = typeof header === 'string' ? header : undefined;
      } else continue;
      if (value === null || value === undefined) {
        if (parameter.required)
          problems.push(`${name}: required ${parameter.in} parameter "${parameter.name}" is missing`);
        continue;
      }
      if (parameter.schema)
        problems.push(
          ...this.schemaProblems(
            parameter.schema,
            coerce(value, parameter.schema),
            `${name}: ${parameter.in} parameter "${parameter.name}"`,
          ),
        );
    }
    for (const key of new Set(call.query.keys()))
      if (!documentedQuery.has(key)) problems.push(`${name}: query parameter "${key}" is not in the document`);
    problems.push(...this.securityProblems(call, route, name));
    const requestBody = route.operation.requestBody;
    if (call.body === '') {
      if (requestBody?.required) problems.push(`${name}: the request body is required`);
    } else if (!requestBody) {
      problems.push(`${name}: sends a body, but the operation takes none`);
    } else {
      const type = String(call.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim();
      const media = requestBody.content?.[type];
      if (!media)
        problems.push(
          `${name}: request content-type "${type}" is not one of ${Object.keys(requestBody.content ?? {}).join(', ')}`,
        );
      else if (media.schema) problems.push(...this.bodyProblems(media.schema, call.body, type, `${name} request body`));
    }
    return problems;
  }

  private securityProblems(call: FakeCall, route: Route, name: string): string[] {
    const requirements: Record<string, string[]>[] = route.operation.security ?? this.document.security ?? [];
    if (requirements.length === 0) return [];
    const schemes = this.document.components?.securitySchemes ?? {};
    const authorization = String(call.headers.authorization ?? '');
    const satisfied = requirements.some((requirement) =>
      Object.keys(requirement).every((key) => {
        const scheme = schemes[key];
        if (scheme?.type === 'http')
          return (
            authorization.toLowerCase().startsWith(`${String(scheme.scheme).toLowerCase()} `) &&
            authorization.length > String(scheme.scheme).length + 1
          );
        if (scheme?.type === 'apiKey')
          return scheme.in === 'query'
            ? call.query.has(scheme.name)
            : scheme.in === 'header'
              ? call.headers[String(scheme.name).toLowerCase()] !== undefined
              : false;
        if (scheme?.type === 'oauth2' || scheme?.type === 'openIdConnect') return /^bearer ./i.test(authorization);
        return false;
      }),
    );
    return satisfied
      ? []
      : [
          `${name}: no security requirement of the document is met (${requirements.map((r) => Object.keys(r).join('+')).join(' or ')})`,
        ];
  }

  private bodyProblems(schema: object, body: string, type: string, what: string): string[] {
    if (!type.includes('json')) return [];
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return [`${what} is not JSON`];
    }
    return this.schemaProblems(schema, value, what);
  }

  /**
   * What is wrong with the fake's answer to one request; empty when it conforms. A status the
   * operation does not document is a problem unless `undocumented` allows it (its body is then
   * unchecked: the document says nothing of it).
   */
  checkResponse(call: FakeCall, undocumented: UndocumentedAnswer[] = []): string[] {
    const reply = call.reply;
    if (!reply) return [`${call.method} ${call.path}: no answer recorded`];
    const route = this.route(call.method, call.path);
    if (!route) return [];
    const name = `${route.method} ${route.template}`;
    const responses = route.operation.responses ?? {};
    const response = responses[String(reply.status)] ?? responses[`${String(reply.status)[0]}XX`] ?? responses.default;
    if (!response) {
      if (undocumented.some((u) => u.status === reply.status && (u.operation === '*' || u.operation === name)))
        return [];
      return [
        `${name} answered ${reply.status}, which the document does not list (${Object.keys(responses).join(', ')})`,
      ];
    }
    const body =
      reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    const content = response.content ?? {};
    if (Object.keys(content).length === 0)
      return body === '' ? [] : [`${name} ${reply.status}: the document gives this answer no body, the fake sent one`];
    const type =
      body === ''
        ? ''
        : (
            Object.entries(reply.headers ?? {}).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ??
            'application/json'
          )
            .split(';')[0]!
            .trim();
    const media = content[type];
    if (!media)
      return [
        `${name} ${reply.status}: answer content-type "${type || '(no body)'}" is not one of ${Object.keys(content).join(', ')}`,
      ];
    return media.schema ? this.bodyProblems(media.schema, body, type, `${name} ${reply.status} answer`) : [];
  }

  /** Every problem of every call (request and answer), each prefixed with the call's index. */
  checkCalls(calls: FakeCall[], undocumented: UndocumentedAnswer[] = []): string[] {
    return calls.flatMap((call, i) =>
      [...this.checkRequest(call), ...this.checkResponse(call, undocumented)].map((p) => `#${i} ${p}`),
    );
  }

  /** "METHOD /template status" of each call, to show which operations and answers a test exercised. */
  exercised(calls: FakeCall[]): Set<string> {
    const seen = new Set<string>();
    for (const call of calls) {
      const route = this.route(call.method, call.path);
      seen.add(`${call.method} ${route ? route.template : call.path} ${call.reply?.status ?? '-'}`);
    }
    return seen;
  }
}

/**
 * OpenAPI 3.0's `nullable` beside no `type` (next to a resolved $ref, as Klaviyo's documents have
 * it), which ajv refuses, written as "this or null"; a copy, the document stays as published.
 */
function nullableWithoutType(schema: unknown, seen: Map<object, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => nullableWithoutType(item, seen));
  if (!schema || typeof schema !== 'object') return schema;
  if (seen.has(schema)) return seen.get(schema);
  const copy: Record<string, unknown> = {};
  seen.set(schema, copy);
  for (const [key, value] of Object.entries(schema)) copy[key] = nullableWithoutType(value, seen);
  if (copy.nullable !== true || copy.type !== undefined) return copy;
  delete copy.nullable;
  const rest = { ...copy };
  for (const key of Object.keys(copy)) delete copy[key];
  copy.anyOf = [rest, { type: 'null' }];
  return copy;
}

function escape(text: string): string {
  return text.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
}

/** Operation parameters override path-level ones of the same name and location. */
function mergeParameters(pathLevel: any[], operationLevel: any[]): any[] {
  const key = (p: any) => `${p.in}:${p.name}`;
  const merged = new Map(pathLevel.map((p) => [key(p), p]));
  for (const p of operationLevel) merged.set(key(p), p);
  return [...merged.values()];
}

/** A query/path/header string as the type its schema asks for, so "12" is checked as an integer. */
function coerce(value: string, schema: any): unknown {
  if (schema.type === 'integer' || schema.type === 'number')
    return value.trim() !== '' && !Number.isNaN(Number(value)) ? Number(value) : value;
  if (schema.type === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  return value;
}
