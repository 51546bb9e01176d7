/**
 * Who is calling, as the services see it: a merchant and, for an API key, its mode. A key carries its mode (its
 * prefix); a dashboard token (JWT) may act on either mode and must say which on writes (scope.ts).
 */
export type Principal =
  | { via: 'api_key'; merchantId: string; isTest: boolean; keypairId: string; keyId: string }
  | {
      via: 'jwt';
      merchantId: string;
      isTest: undefined;
      /** When the session's password was last entered, in Unix seconds (unset: unknown, never recent). */
      authTime?: number;
    };

/** A caller that authenticated with an API key. */
export type KeyPrincipal = Extract<Principal, { via: 'api_key' }>;
