/**
 * A vendor's Swagger 2.0 document written as OpenAPI 3.0, so `VendorOpenApi` can check calls
 * against vendors that publish only 2.0 (Fullstory): parameters get a `schema`, body parameters
 * become a JSON `requestBody`, response schemas a JSON `content`, `definitions` the components'
 * schemas (and every `$ref` to them follows), `host` + `basePath` the server. Nothing is added
 * or dropped: what the vendor wrote stays what is checked.
 */
export function swagger2ToOpenApi3(swagger: any): any {
  const refs = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(refs);
    if (!value || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        key === '$ref' && typeof inner === 'string'
          ? inner.replace('#/definitions/', '#/components/schemas/')
          : refs(inner),
      ]),
    );
  };
  const consumes: string[] = swagger.consumes ?? ['application/json'];
  const produces: string[] = swagger.produces ?? ['application/json'];
  const parameter = ({ type, format, items, enum: values, default: fallback, ...rest }: any) => ({
    ...rest,
    schema: Object.fromEntries(
      Object.entries({ type, format, items, enum: values, default: fallback }).filter(([, v]) => v !== undefined),
    ),
  });
  const operation = (op: any) => {
    const { parameters = [], responses = {}, consumes: _c, produces: _p, ...rest } = op;
    const body = parameters.find((p: any) => p.in === 'body');
    return {
      ...rest,
      parameters: parameters.filter((p: any) => p.in !== 'body').map(parameter),
      ...(body
        ? {
            requestBody: {
              required: Boolean(body.required),
              content: Object.fromEntries(consumes.map((type) => [type, { schema: body.schema }])),
            },
          }
        : {}),
      responses: Object.fromEntries(
        Object.entries<any>(responses).map(([status, { schema, ...response }]) => [
          status,
          schema ? { ...response, content: Object.fromEntries(produces.map((type) => [type, { schema }])) } : response,
        ]),
      ),
    };
  };
  const paths = Object.fromEntries(
    Object.entries<any>(swagger.paths ?? {}).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries<any>(item).map(([key, value]) =>
          key === 'parameters'
            ? [key, value.map(parameter)]
            : key.startsWith('x-')
              ? [key, value]
              : [key, operation(value)],
        ),
      ),
    ]),
  );
  return refs({
    openapi: '3.0.3',
    info: swagger.info,
    servers: [{ url: `${(swagger.schemes ?? ['https'])[0]}://${swagger.host}${swagger.basePath ?? ''}` }],
    ...(swagger.security ? { security: swagger.security } : {}),
    paths,
    components: { schemas: swagger.definitions ?? {}, securitySchemes: swagger.securityDefinitions ?? {} },
  });
}
