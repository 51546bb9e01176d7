import { commonJsExports } from './commonjs.ts';

/**
 * undici, loaded at its first use rather than at start-up: it is about 1 MB of the bundle's JavaScript, and a process
 * compiles what it imports before it can answer. Its users (price sources, the webhook sender, Bitcoin-family and
 * Tron nodes) all send later, from background work.
 */
let loading: Promise<typeof import('undici')> | undefined;

export function loadUndici(): Promise<typeof import('undici')> {
  loading ??= import('undici').then(commonJsExports);
  return loading;
}
