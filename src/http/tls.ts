import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { RequestListener } from 'node:http';

/** The certificate and key to serve HTTPS with, and the CA of client certificates to ask for (PEM). */
export interface TlsOptions {
  cert: string | Buffer;
  key: string | Buffer;
  /**
   * Ask clients for a certificate (mutual TLS, for certificate-bound tokens, RFC 8705). A client
   * without one still connects: bearer tokens need none; the `oauth` plugin decides per token.
   */
  clientCa?: string | Buffer;
}

/**
 * The NCSC's "good" cipher suites (ICT-beveiligingsrichtlijnen voor TLS, 2021): TLS 1.3's AEAD
 * suites, and for TLS 1.2 only ECDHE with AES-GCM or ChaCha20-Poly1305.
 */
export const NCSC_CIPHERS = [
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'TLS_AES_128_GCM_SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-RSA-CHACHA20-POLY1305',
  'ECDHE-RSA-AES128-GCM-SHA256',
].join(':');

/** An HTTPS server: TLS 1.2 at least (1.3 when the client can), the NCSC suites in the server's order. */
export function createTlsServer(tls: TlsOptions, listener?: RequestListener): HttpsServer {
  return createHttpsServer(
    {
      cert: tls.cert,
      key: tls.key,
      minVersion: 'TLSv1.2',
      ciphers: NCSC_CIPHERS,
      honorCipherOrder: true,
      ecdhCurve: 'X25519:prime256v1:secp384r1',
      ...(tls.clientCa ? { ca: tls.clientCa, requestCert: true, rejectUnauthorized: false } : {}),
    },
    listener,
  );
}
