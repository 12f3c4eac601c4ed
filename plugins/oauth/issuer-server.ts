/**
 * Test support: a minimal authorization server on HTTPS at 127.0.0.1, with RFC 8414 metadata, a key
 * set, an introspection endpoint whose answer the test sets, and tokens it signs. Not a test file.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

export interface IssuerServer {
  issuer: string;
  server: Server;
  /** What `/introspect` answers (JSON). */
  introspection: Record<string, unknown>;
  /** A JWT access token of this issuer for `audience`. */
  token(audience: string, claims?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

/** Listens on `port` (0: any free one) with this certificate. */
export async function issuerServer(tls: { cert: Buffer; key: Buffer }, port = 0): Promise<IssuerServer> {
  const { privateKey, publicKey } = await generateKeyPair('PS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'issuer-key', alg: 'PS256', use: 'sig' };
  const state = { introspection: { active: false } as Record<string, unknown> };
  let issuer = '';
  const server = createServer(tls, (req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/oauth-authorization-server') {
      res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks`, introspection_endpoint: `${issuer}/introspect`, authorization_endpoint: `${issuer}/auth`, token_endpoint: `${issuer}/token` }));
    } else if (req.url === '/jwks') {
      res.end(JSON.stringify({ keys: [jwk] }));
    } else if (req.url === '/introspect') {
      req.resume();
      req.on('end', () => res.end(JSON.stringify(state.introspection)));
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    server,
    get introspection() {
      return state.introspection;
    },
    set introspection(answer) {
      state.introspection = answer;
    },
    token: (audience, claims = {}) =>
      new SignJWT({ client_id: 'zaaksysteem', scope: 'zaken.lezen', ...claims })
        .setProtectedHeader({ alg: 'PS256', typ: 'at+jwt', kid: jwk.kid })
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey as CryptoKey),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
