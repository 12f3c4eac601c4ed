import { createHash, X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { base64url, calculateJwkThumbprint, EmbeddedJWK, jwtVerify, type JWK } from 'jose';
import type { Request } from 'express';
import type { Knex } from 'knex';

/** Why a proof of possession failed, in Dutch for the problem's detail. */
export class ProofError extends Error {}

const sha256 = (data: Buffer | string) => base64url.encode(createHash('sha256').update(data).digest());

/**
 * The client certificate of the request: from the TLS connection, or (behind a TLS-terminating
 * proxy) from `trustedHeader`, a URL-encoded PEM as nginx's `$ssl_client_escaped_cert` sends it.
 */
export function clientCertificate(req: Request, trustedHeader?: string): X509Certificate | undefined {
  if (trustedHeader) {
    const value = req.headers[trustedHeader.toLowerCase()];
    if (typeof value !== 'string' || !value) return undefined;
    try {
      return new X509Certificate(decodeURIComponent(value));
    } catch {
      throw new ProofError('Het clientcertificaat in de header van de proxy is geen geldig PEM-certificaat.');
    }
  }
  const socket = req.socket as Partial<TLSSocket>;
  const peer = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate(false) : undefined;
  return peer?.raw ? new X509Certificate(peer.raw) : undefined;
}

/** RFC 8705 §3: the token's `x5t#S256` is the SHA-256 thumbprint of the certificate of this connection. */
export function checkCertificateBinding(thumbprint: string, certificate: X509Certificate | undefined): void {
  if (!certificate) throw new ProofError('Dit token is gebonden aan een clientcertificaat; maak verbinding met mutual TLS en dat certificaat.');
  if (sha256(certificate.raw) !== thumbprint) throw new ProofError('Het clientcertificaat van de verbinding is niet dat waaraan het token is gebonden.');
}

export interface DpopSettings {
  algorithms: string[];
  /** How long a proof is accepted after its `iat`, and how long its `jti` is remembered. */
  windowSeconds: number;
  leewaySeconds: number;
}

/** Remembers a DPoP proof's key and `jti` until `expiresAt` (seconds); false when it is already remembered. */
export type ProofMemory = (key: string, expiresAt: number) => Promise<boolean>;

/** How often expired proofs are deleted, at most. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * The proofs seen within the window, in the registry's database (`oauth_dpop_proof`): every instance
 * on that database refuses a proof another one accepted (RFC 9449 §11.1). The key is stored hashed.
 */
export function databaseProofMemory(knex: Knex): ProofMemory {
  let sweptAt = 0;
  return async (key, expiresAt) => {
    const now = Date.now();
    if (now - sweptAt > SWEEP_INTERVAL_MS) {
      sweptAt = now;
      await knex('oauth_dpop_proof').where('expires_at', '<=', knex.raw('now()')).delete();
    }
    // A row of an expired proof with the same key is taken over; a live one stays and refuses.
    const stored = await knex.raw(
      `insert into oauth_dpop_proof (key, expires_at) values (?, to_timestamp(?))
       on conflict (key) do update set expires_at = excluded.expires_at where oauth_dpop_proof.expires_at <= now()
       returning key`,
      [sha256(key), expiresAt],
    );
    return stored.rows.length === 1;
  };
}

export const PROOF_MIGRATION = {
  name: 'oauth/001_dpop_proof',
  async up(knex: Knex) {
    await knex.raw('create table oauth_dpop_proof (key text primary key, expires_at timestamptz not null)');
    await knex.raw('create index oauth_dpop_proof_expires_at on oauth_dpop_proof (expires_at)');
  },
};

/** The request's URI as `htu` names it: scheme, host and path, without query or fragment (RFC 9449 §4.3). */
const withoutQuery = (url: URL) => `${url.origin}${url.pathname}`;

/**
 * RFC 9449 §4.3 and §7.1: one valid `DPoP` proof of this method and URI, recent, not seen before,
 * signed with the key whose thumbprint the token's `cnf.jkt` names, carrying the token's hash in `ath`.
 */
export async function checkDpopProof(
  req: Request,
  requestUrl: URL,
  accessToken: string,
  jkt: string,
  settings: DpopSettings,
  remember: ProofMemory,
): Promise<void> {
  const header = req.headers.dpop;
  if (typeof header !== 'string' || !header) throw new ProofError('Dit token is gebonden aan een DPoP-sleutel; stuur een DPoP proof in de header DPoP.');
  let verified;
  try {
    verified = await jwtVerify(header, EmbeddedJWK, {
      typ: 'dpop+jwt',
      algorithms: settings.algorithms,
      maxTokenAge: settings.windowSeconds,
      clockTolerance: settings.leewaySeconds,
      requiredClaims: ['iat', 'jti', 'htm', 'htu', 'ath'],
    });
  } catch (error) {
    throw new ProofError(`Het DPoP proof is ongeldig: ${(error as Error).message}`);
  }
  const { payload, protectedHeader } = verified;
  if ((await calculateJwkThumbprint(protectedHeader.jwk as JWK, 'sha256')) !== jkt) throw new ProofError('Het DPoP proof is niet ondertekend met de sleutel waaraan het token is gebonden.');
  if (payload.htm !== req.method) throw new ProofError(`Het DPoP proof is voor methode ${String(payload.htm)}, niet voor ${req.method}.`);
  let htu: URL;
  try {
    htu = new URL(String(payload.htu));
  } catch {
    throw new ProofError("De claim 'htu' van het DPoP proof is geen URL.");
  }
  if (withoutQuery(htu) !== withoutQuery(requestUrl)) throw new ProofError("De claim 'htu' van het DPoP proof is niet de URL van dit verzoek.");
  if (payload.ath !== sha256(accessToken)) throw new ProofError("De claim 'ath' van het DPoP proof hoort niet bij dit token.");
  if (typeof payload.jti !== 'string' || !(await remember(`${jkt}:${payload.jti}`, payload.iat! + settings.windowSeconds + settings.leewaySeconds))) {
    throw new ProofError('Dit DPoP proof is al eerder gebruikt; maak voor elk verzoek een nieuw proof.');
  }
}
