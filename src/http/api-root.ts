import type { CoreOperation, Operation } from '../operation.js';

/**
 * GET on the base path (`/zaken/api/v1`): where to go from here, as JSON instead of a 404 for
 * someone who opens the API in a browser: the OpenAPI document and every collection.
 */
export function apiRootOperation(operations: readonly Operation[]): CoreOperation {
  const collections = [...new Set(operations.filter((o) => o.method === 'get' && /^\/[a-z]+$/.test(o.path)).map((o) => o.path.slice(1)))].sort();
  return {
    id: 'api_root',
    method: 'get',
    path: '/',
    action: 'retrieve',
    write: false,
    authenticated: false,
    documented: false,
    async execute(ctx) {
      const link = (path: string) => ({ href: `${ctx.baseUrl}${path}` });
      ctx.response.body = {
        version: ctx.apiVersion,
        _links: {
          self: link(''),
          openapi: link('/openapi.json'),
          openapiYaml: link('/openapi.yaml'),
          ...Object.fromEntries(collections.map((name) => [name, link(`/${name}`)])),
        },
      };
    },
    openapi: { summary: 'De ingang van de API.', successStatus: 200 },
  };
}
