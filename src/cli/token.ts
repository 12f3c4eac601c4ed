import { signZgwJwt } from '../auth/sign.js';
import { readConfig } from '../config.js';
import { UsageError } from './usage.js';

export const TOKEN_HELP = `Usage: zaakregister token --client-id <id> [--secret <secret>] [options]

Prints a ZGW JWT (HS256) for the client on stdout, for curl:
  curl -H "Authorization: Bearer $(zaakregister token --client-id zac --secret "$SECRET")" \\
    http://localhost:8000/zaken/api/v1/zaken

Options:
  --client-id <id>              the client id (iss and client_id of the token)
  --secret <secret>             the client's secret (env ZAAKREGISTER_SECRET keeps it out of the shell
                                history; or the client's secret in "clients" of --config)
  --user-id <id>                user_id: the person the application acts for (audit trail)
  --user-representation <text>  user_representation: that person's name as the audit trail shows it
  --expires-in <seconds>        add exp, this many seconds from now (the registry also limits a
                                token's age: "jwt": { "maxAgeSeconds" } in the configuration)
  --config <file.json>          read the secret from this configuration's "clients"
  -h, --help                    this help`;

export interface TokenFlags {
  'client-id'?: string;
  secret?: string;
  'user-id'?: string;
  'user-representation'?: string;
  'expires-in'?: string;
  config?: string;
}

/** `zaakregister token`: the same token `signZgwJwt` makes, printed for a shell. */
export async function tokenCommand(flags: TokenFlags, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const clientId = flags['client-id'];
  if (!clientId) throw new UsageError('token', 'token needs --client-id');
  const secret = flags.secret || env.ZAAKREGISTER_SECRET || (flags.config ? readConfig(flags.config, {}).clients?.[clientId] : undefined);
  if (!secret) {
    throw new UsageError('token', `token needs --secret (or env ZAAKREGISTER_SECRET${flags.config ? `; "clients" of ${flags.config} has no secret for "${clientId}"` : ', or --config with the client in "clients"'})`);
  }
  const expiresIn = flags['expires-in'];
  if (expiresIn !== undefined && !/^[1-9]\d*$/.test(expiresIn)) throw new UsageError('token', '--expires-in is a number of seconds (1 or more)');
  const iat = Math.floor(Date.now() / 1000);
  const token = await signZgwJwt(clientId, secret, {
    iat,
    user_id: flags['user-id'] ?? '',
    user_representation: flags['user-representation'] ?? '',
    ...(expiresIn ? { exp: iat + Number(expiresIn) } : {}),
  });
  process.stdout.write(`${token}\n`);
  return 0;
}
