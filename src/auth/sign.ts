import { SignJWT } from 'jose';

/** Claims of a ZGW JWT; anything given here overrides the defaults (`iat: undefined` leaves it out). */
export interface ZgwClaims {
  iss?: string;
  iat?: number;
  exp?: number;
  user_id?: string;
  user_representation?: string;
  [claim: string]: unknown;
}

/**
 * Signs a ZGW JWT (HS256) the way existing ZGW clients do: `iss` and `client_id` are the client id,
 * `iat` is now, no `exp` (the receiving API decides how long a token lives).
 */
export function signZgwJwt(clientId: string, secret: string, claims: ZgwClaims = {}): Promise<string> {
  const payload = {
    iss: clientId,
    iat: Math.floor(Date.now() / 1000),
    client_id: clientId,
    user_id: '',
    user_representation: '',
    ...claims,
  };
  return new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(secret));
}
