import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** A tiny history router under /dashboard; the server answers every such path with the app. */
const basePath = '/dashboard';

const listeners = new Set<() => void>();

function currentPath(): string {
  const path = window.location.pathname.startsWith(basePath)
    ? window.location.pathname.slice(basePath.length)
    : window.location.pathname;
  return path === '' ? '/' : path.replace(/\/+$/, '') || '/';
}

function currentQuery(): URLSearchParams {
  return new URLSearchParams(window.location.search);
}

function href(to: string): string {
  return `${basePath}${to === '/' ? '' : to}`;
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const target = href(to);
  if (options.replace) window.history.replaceState(null, '', target);
  else window.history.pushState(null, '', target);
  for (const listener of listeners) listener();
}

export function useLocation(): { path: string; query: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const update = () => setTick((tick) => tick + 1);
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return { path: currentPath(), query: currentQuery() };
}

/** Matches `/payments/:id` style patterns; returns the named parts or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const have = path.split('/').filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (const [index, part] of want.entries()) {
    const actual = have[index] ?? '';
    if (part.startsWith(':')) {
      try {
        params[part.slice(1)] = decodeURIComponent(actual);
      } catch {
        return null;
      }
    } else if (part !== actual) return null;
  }
  return params;
}

interface LinkProps {
  to: string;
  children: ComponentChildren;
  class?: string;
  title?: string;
  'aria-current'?: 'page' | undefined;
  'aria-label'?: string;
  'data-testid'?: string;
}

/** An ordinary link (middle-click and "open in new tab" work) that navigates in place on a plain click. */
export function Link({ to, children, ...rest }: LinkProps) {
  return (
    <a
      {...rest}
      href={href(to)}
      onClick={(event) => {
        if (event.defaultPrevented || event.button !== 0) return;
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
