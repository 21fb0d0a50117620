import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { OpenAPIObject } from 'trpc-to-openapi';
import type { OperationObject, ResponseObject } from 'openapi3-ts/oas31';
import { buildOpenApiDocument, PUBLIC_API_PREFIX } from '../http/openapi';

interface Route {
  method: string;
  pattern: RegExp;
  template: string;
  operation: OperationObject;
}

/**
 * Holds the REST tests to the OpenAPI document: every response a test receives from the
 * public API must have a status its operation documents and a body matching that
 * response's schema. Used through `contractFetch`, so no test can forget it.
 */
export class OpenApiContract {
  private readonly routes: Route[] = [];
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<object, ValidateFunction>();
  /** "METHOD template status" of every response checked, to tell which were exercised. */
  readonly seen = new Set<string>();

  constructor(readonly document: OpenAPIObject = buildOpenApiDocument()) {
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    // Responses refer to "#/components/schemas/X": one schema holding the components resolves them.
    this.ajv.addSchema({ $id: 'openapi.json', components: document.components } as object);
    for (const [template, item] of Object.entries(document.paths ?? {})) {
      const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const [method, operation] of Object.entries(item as Record<string, OperationObject>)) {
        this.routes.push({ method: method.toUpperCase(), pattern, template, operation });
      }
    }
    // Literal paths win over templated ones, as in the server.
    this.routes.sort((a, b) => (a.template.includes('{') ? 1 : 0) - (b.template.includes('{') ? 1 : 0));
  }

  private validator(schema: object): ValidateFunction {
    let validate = this.validators.get(schema);
    if (!validate) {
      const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/'));
      validate = this.ajv.compile(rewritten);
      this.validators.set(schema, validate);
    }
    return validate;
  }

  /** Throws, naming the operation, when the status is not documented or the body does not match. */
  check(method: string, url: string, status: number, body: unknown): void {
    const path = new URL(url, 'http://x').pathname;
    if (!path.startsWith(PUBLIC_API_PREFIX + '/')) return;
    const relative = path.slice(PUBLIC_API_PREFIX.length);
    const route = this.routes.find((r) => r.method === method.toUpperCase() && r.pattern.test(relative));
    if (!route) {
      // An unknown path is a 404 with the one error body; anything else must be documented.
      if (status === 404 && this.validator({ $ref: '#/components/schemas/Error' })(body)) return;
      throw new Error(`${method} ${relative} answered ${status}, but the OpenAPI document has no such operation`);
    }
    const name = `${route.method} ${route.template}`;
    const response = route.operation.responses?.[String(status)] as ResponseObject | undefined;
    if (!response)
      throw new Error(
        `${name} answered ${status}, which its OpenAPI operation does not document (${Object.keys(route.operation.responses ?? {}).join(', ')})`,
      );
    this.seen.add(`${name} ${status}`);
    const schema = response.content?.['application/json']?.schema;
    if (!schema) return;
    const validate = this.validator(schema as object);
    if (!validate(body)) {
      throw new Error(
        `${name} ${status}: the body does not match the documented schema: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
      );
    }
  }
}

let shared: OpenApiContract | undefined;

/** `fetch` against the running app, with every public API response checked against the document. */
export function contractFetch(baseUrl: string, contract: OpenApiContract = (shared ??= new OpenApiContract())) {
  return async (path: string, init: RequestInit = {}): Promise<Response> => {
    const response = await fetch(baseUrl + path, init);
    const text = await response.clone().text();
    let body: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text);
    contract.check(init.method ?? 'GET', path, response.status, body);
    return response;
  };
}
