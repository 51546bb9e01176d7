import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import type { Session } from './model.ts';

export type Mode = 'test' | 'live';

export interface AppState {
  session: Session;
  mode: Mode;
  setMode(mode: Mode): void;
  logout(reason?: string): void;
  /** Replaces the session's token with a fresh one (after the password was entered again). */
  renew(session: Session): void;
  /** Announces a short success message to everyone, screen readers included. */
  notify(message: string): void;
}

export const AppContext = createContext<AppState | null>(null);

export function useApp(): AppState {
  const state = useContext(AppContext);
  if (state === null) throw new Error('useApp outside the signed-in app');
  return state;
}

export type Resource<T> =
  | { state: 'loading'; data: T | null; error: null }
  | { state: 'ready'; data: T; error: null }
  | { state: 'error'; data: T | null; error: unknown };

/**
 * Loads data for a page and reloads it when `deps` change. A slower earlier answer never overwrites a later one:
 * neither here nor in state the loader sets itself, which it must do only while `isCurrent()` (a page list's first
 * page, say: filters changed twice quickly, and the first answer came last).
 * `reload()` keeps the current data on screen while fetching again.
 */
export function useResource<T>(
  load: (isCurrent: () => boolean) => Promise<T>,
  deps: unknown[],
): Resource<T> & { reload(): Promise<void> } {
  const [resource, setResource] = useState<Resource<T>>({ state: 'loading', data: null, error: null });
  const generation = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  const run = useCallback(async (keep: boolean) => {
    generation.current += 1;
    const mine = generation.current;
    if (!keep) setResource({ state: 'loading', data: null, error: null });
    try {
      const data = await loadRef.current(() => mine === generation.current);
      if (mine === generation.current) setResource({ state: 'ready', data, error: null });
    } catch (error) {
      if (mine === generation.current)
        setResource((previous) => ({ state: 'error', data: previous.data, error }));
    }
  }, []);

  useEffect(() => {
    void run(false);
    return () => {
      generation.current += 1;
    };
  }, deps);

  return { ...resource, reload: () => run(true) };
}

/** Tracks one user action (a button press): busy while it runs, its error if it failed. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );
  const run = useCallback(async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await action();
    } catch (failure) {
      if (mounted.current) setError(failure);
      return undefined;
    } finally {
      if (mounted.current) setBusy(false);
    }
  }, []);
  return { busy, error, run, clearError: () => setError(null) };
}
