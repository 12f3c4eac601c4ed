import { stringify } from 'yaml';
import type { CoreOperation } from '../operation.js';

const CORS = { 'Access-Control-Allow-Origin': '*' };

/**
 * GET /openapi.json and /openapi.yaml: the same document, public (no authentication) and readable
 * from any origin. `servers` names the base URL the request came in on.
 */
export function openApiOperations(document: (apiVersion: string) => Record<string, unknown>): CoreOperation[] {
  const yamlByBase = new Map<string, string>();
  const forBase = (apiVersion: string, baseUrl: string) => ({ ...document(apiVersion), servers: [{ url: baseUrl }] });
  const operation = (format: 'json' | 'yaml'): CoreOperation => ({
    id: `openapi_${format}`,
    method: 'get',
    path: `/openapi.${format}`,
    action: 'retrieve',
    write: false,
    authenticated: false,
    documented: false,
    async execute(ctx) {
      Object.assign(ctx.response.headers, CORS);
      if (format === 'json') {
        ctx.response.body = forBase(ctx.apiVersion, ctx.baseUrl);
        return;
      }
      // Each version has its own base URL: the base URL names the document.
      let yaml = yamlByBase.get(ctx.baseUrl);
      if (yaml === undefined) {
        yaml = stringify(forBase(ctx.apiVersion, ctx.baseUrl), { aliasDuplicateObjects: false });
        yamlByBase.set(ctx.baseUrl, yaml);
      }
      ctx.response.headers['content-type'] = 'application/yaml; charset=utf-8';
      ctx.response.body = yaml;
    },
    openapi: { summary: `Het OpenAPI-document (${format.toUpperCase()}).`, successStatus: 200 },
  });
  return [operation('json'), operation('yaml')];
}
