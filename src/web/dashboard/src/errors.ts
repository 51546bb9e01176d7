import { ApiError, NetworkError } from './api.ts';

export interface Explained {
  title: string;
  detail: string;
  /** The API's request id, for the operator's logs. */
  reference: string | null;
  /** The request field the problem is about, when the API named one. */
  param: string | null;
  /** The feature is not offered by this server (yet). */
  unavailable: boolean;
}

/** `/payments/0193…/simulate` → `/payments/{id}/simulate`: the route, not the resource. */
export function genericPath(path: string): string {
  return (path.split('?')[0] ?? path)
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '{id}')
    .replace(/\b(kp|we|del|evt|mer)_[A-Za-z0-9]+/g, '{id}');
}

/** Turns any failure into words a merchant understands, keeping the API's own message where it is helpful. */
export function explain(error: unknown): Explained {
  if (error instanceof NetworkError) {
    return {
      title: 'Could not reach the service',
      detail: 'Check that the service is running and that you are online, then try again.',
      reference: null,
      param: null,
      unavailable: false,
    };
  }
  if (!(error instanceof ApiError)) {
    return {
      title: 'Something went wrong in the dashboard',
      detail: error instanceof Error ? error.message : String(error),
      reference: null,
      param: null,
      unavailable: false,
    };
  }
  const base = { reference: error.requestId ?? null, param: error.param ?? null, unavailable: false };
  switch (error.code) {
    case 'route_not_found':
    case 'method_not_allowed':
      return {
        ...base,
        unavailable: true,
        title: 'Not available on this server yet',
        detail: `This version of the service does not offer this feature yet (the API has no ${genericPath(error.path)}). Everything else keeps working.`,
      };
    case 'not_found':
      return {
        ...base,
        title: 'Not found',
        detail: `${error.message} It may have been deleted, or it belongs to the other mode (test or live).`,
      };
    case 'invalid_token':
    case 'authentication_required':
      return { ...base, title: 'Your session has ended', detail: 'Please log in again.' };
    case 'invalid_api_key':
      return {
        ...base,
        title: 'The API key was refused',
        detail: 'The key is wrong or has been revoked. Generate a new keypair on the API keys page.',
      };
    case 'invalid_credentials':
      return { ...base, title: 'Wrong email or password', detail: 'Check both and try again.' };
    case 'email_taken':
      return { ...base, title: 'This email already has an account', detail: 'Log in instead.' };
    case 'rate_limited':
      return {
        ...base,
        title: 'Too many requests',
        detail: 'You are going faster than the service allows. Wait a few seconds and try again.',
      };
    case 'rate_unavailable':
      return {
        ...base,
        title: 'Exchange rates are unavailable',
        detail: 'No price source answered just now, so the amount could not be priced. Try again shortly.',
      };
    case 'service_unavailable':
      return { ...base, title: 'The service is busy or restarting', detail: 'Try again in a moment.' };
    case 'internal_error':
      return {
        ...base,
        title: 'Something went wrong on the server',
        detail:
          'It is not something you did. Try again; if it keeps happening, give the reference below to whoever runs the service.',
      };
    default:
      break;
  }
  if (error.status >= 500) {
    return {
      ...base,
      title: 'The service had a problem',
      detail: `${error.message} Try again in a moment.`,
    };
  }
  return {
    ...base,
    title: error.param !== undefined ? 'Please check this field' : 'The service could not do this',
    detail: error.message,
  };
}
