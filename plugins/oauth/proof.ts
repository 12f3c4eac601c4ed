import { createHash, X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { base64url, calculateJwkThumbprint, EmbeddedJWK, jwtVerify, type JWK } from 'jose';
import type { Request } from 'express';

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

/** The `jti` values of DPoP proofs seen within the window: a proof is accepted once (RFC 9449 §11.1). */
export class ReplayCache {
  private readonly seen = new Map<string, number>();
  constructor(private readonly max = 100_000) {}

  /** False when `key` was seen before and has not expired. */
  remember(key: string, expiresAt: number): boolean {
    const now = Date.now() / 1000;
    const known = this.seen.get(key);
    if (known !== undefined && known > now) return false;
    if (this.seen.size >= this.max) {
      for (const [k, until] of this.seen) if (until <= now) this.seen.delete(k);
      // Still full of live proofs: drop the oldest rather than grow without bound.
      if (this.seen.size >= this.max) this.seen.delete(this.seen.keys().next().value!);
    }
    this.seen.set(key, expiresAt);
    return true;
  }
}

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
  replays: ReplayCache,
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
  if (typeof payload.jti !== 'string' || !replays.remember(`${jkt}:${payload.jti}`, payload.iat! + settings.windowSeconds + settings.leewaySeconds)) {
    throw new ProofError('Dit DPoP proof is al eerder gebruikt; maak voor elk verzoek een nieuw proof.');
  }
}
