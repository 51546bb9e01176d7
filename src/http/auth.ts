import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { AppError } from '../lib/errors.ts';
import type { KeyPrincipal, Principal } from '../modules/tenancy/caller.ts';
import type { RateLimitCheck } from './rate-limit.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling, set by the auth hook of routes that need it (undefined before and elsewhere). */
    principal: Principal | undefined;
  }
}

/**
 * Declares `request.principal` on the app, as Fastify asks of request properties: every request object then has the
 * same shape from its creation (a property added later would change V8's hidden class on the hot path).
 */
export function decoratePrincipal(app: FastifyInstance): void {
  app.decorateRequest('principal', undefined);
}

export interface Authenticators {
  /** Resolves a full API key to its principal, or null when unknown, malformed or revoked. */
  authenticateKey(fullKey: string): Promise<KeyPrincipal | null>;
  /** Resolves a dashboard bearer token to its merchant and password time, or null when invalid or expired. */
  verifyToken(token: string): Promise<{ merchantId: string; authTime: number } | null>;
}

export type AuthScheme = 'api_key' | 'jwt' | 'either';

const invalidKey = () =>
  new AppError('invalid_api_key', 'The API key is invalid or has been revoked.', { param: 'x-api-key' });

export function makeAuth(authenticators: Authenticators, perCaller: RateLimitCheck) {
  return function requireAuth(scheme: AuthScheme): preHandlerAsyncHookHandler {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const apiKey = request.headers['x-api-key'];
      const authorization = request.headers.authorization;
      const bearer =
        typeof authorization === 'string' ? /^Bearer\s+(\S+)$/i.exec(authorization)?.[1] : undefined;

      if (apiKey !== undefined && scheme !== 'jwt') {
        if (typeof apiKey !== 'string' || apiKey.length > 200) throw invalidKey();
        const principal = await authenticators.authenticateKey(apiKey);
        if (principal === null) throw invalidKey();
        request.principal = principal;
      } else if (bearer !== undefined && scheme !== 'api_key') {
        const verified = await authenticators.verifyToken(bearer);
        if (verified === null) {
          throw new AppError('invalid_token', 'The bearer token is invalid or has expired.', {
            param: 'authorization',
          });
        }
        request.principal = {
          via: 'jwt',
          merchantId: verified.merchantId,
          isTest: undefined,
          authTime: verified.authTime,
        };
      } else if (scheme === 'jwt') {
        throw new AppError(
          'authentication_required',
          'This operation needs a dashboard session: send Authorization: Bearer <token> from POST /v1/auth/login.',
        );
      } else {
        throw new AppError(
          'authentication_required',
          scheme === 'api_key'
            ? 'Send your API key in the x-api-key header.'
            : 'Send your API key in the x-api-key header, or a dashboard token as Authorization: Bearer <token>.',
        );
      }
      // Counted per API key or dashboard session, now that the caller is known.
      await perCaller(request, reply);
    };
  };
}

/** The mode a request acts in: the key's, or for a dashboard token the explicit `is_test` it passed. */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === undefined)
    throw new AppError('authentication_required', 'Authentication required.');
  return request.principal;
}
