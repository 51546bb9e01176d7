import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, onSessionEnd, setToken } from './api.ts';
import { readMerchant, readSession, type Session } from './model.ts';
import { AuthPage } from './pages/auth.tsx';
import { BrandingPage } from './pages/branding.tsx';
import { EventsPage } from './pages/events.tsx';
import { KeysPage } from './pages/keys.tsx';
import { PaymentLinkPage, PaymentLinksPage } from './pages/links.tsx';
import { NewPaymentPage } from './pages/new-payment.tsx';
import { PaymentDetailPage } from './pages/payment-detail.tsx';
import { PaymentsPage } from './pages/payments.tsx';
import { ReportsPage } from './pages/reports.tsx';
import { SettingsPage } from './pages/settings.tsx';
import { SetupPage } from './pages/setup.tsx';
import { WebhookDetailPage } from './pages/webhook-detail.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { Link, match, navigate, useLocation } from './router.tsx';
import { AppContext, type AppState, type Mode } from './state.tsx';

const sessionKey = 'svc.dashboard.session';
const modeKey = 'svc.dashboard.mode';

function storedSession(): Session | null {
  try {
    const raw = window.sessionStorage.getItem(sessionKey);
    if (raw === null) return null;
    const session = readSession(JSON.parse(raw));
    if (session.token === '') return null;
    if (session.expiresAt !== null && new Date(session.expiresAt).getTime() <= Date.now()) return null;
    return session;
  } catch {
    return null;
  }
}

function storeSession(session: Session | null): void {
  try {
    if (session === null) window.sessionStorage.removeItem(sessionKey);
    else
      window.sessionStorage.setItem(
        sessionKey,
        JSON.stringify({
          token: session.token,
          expires_at: session.expiresAt,
          merchant: {
            id: session.merchant.id,
            email: session.merchant.email,
            created_at: session.merchant.createdAt,
          },
        }),
      );
  } catch {
    // Storage can be unavailable (private windows); the session then lives in memory only.
  }
}

function storedMode(): Mode {
  try {
    return window.sessionStorage.getItem(modeKey) === 'live' ? 'live' : 'test';
  } catch {
    return 'test';
  }
}

interface NavItem {
  to: string;
  label: string;
  /** Paths that count as this section. */
  section: RegExp;
}

const navItems: NavItem[] = [
  { to: '/payments', label: 'Payments', section: /^\/payments(?!\/new)/ },
  { to: '/payments/new', label: 'Create payment', section: /^\/payments\/new/ },
  { to: '/links', label: 'Payment links', section: /^\/links/ },
  { to: '/events', label: 'Events', section: /^\/events/ },
  { to: '/reports', label: 'Reports', section: /^\/reports/ },
  { to: '/webhooks', label: 'Webhooks', section: /^\/webhooks/ },
  { to: '/keys', label: 'API keys', section: /^\/keys/ },
  { to: '/settings', label: 'Settings', section: /^\/settings/ },
  { to: '/branding', label: 'Checkout branding', section: /^\/branding/ },
  { to: '/setup', label: 'Setup checklist', section: /^\/setup/ },
];

function Page({ path }: { path: string }) {
  if (path === '/payments') return <PaymentsPage />;
  if (path === '/payments/new') return <NewPaymentPage />;
  const payment = match('/payments/:id', path);
  if (payment !== null) return <PaymentDetailPage id={payment.id ?? ''} />;
  if (path === '/links') return <PaymentLinksPage />;
  const link = match('/links/:id', path);
  if (link !== null) return <PaymentLinkPage id={link.id ?? ''} />;
  if (path === '/events') return <EventsPage />;
  if (path === '/reports') return <ReportsPage />;
  if (path === '/webhooks') return <WebhooksPage />;
  const endpoint = match('/webhooks/:id', path);
  if (endpoint !== null) return <WebhookDetailPage id={endpoint.id ?? ''} />;
  if (path === '/keys') return <KeysPage />;
  if (path === '/settings') return <SettingsPage />;
  if (path === '/setup') return <SetupPage />;
  if (path === '/branding') return <BrandingPage />;
  return (
    <section>
      <h1 tabIndex={-1} data-page-title>
        Page not found
      </h1>
      <p>
        There is no page at this address. <Link to="/payments">Go to payments</Link>.
      </p>
    </section>
  );
}

function ModeSwitch({ mode, setMode }: { mode: Mode; setMode: (mode: Mode) => void }) {
  return (
    <fieldset class="mode-switch">
      <legend class="visually-hidden">Show data for</legend>
      {(['test', 'live'] as const).map((value) => (
        <label key={value} class={`mode-option mode-${value}${mode === value ? ' mode-selected' : ''}`}>
          <input
            type="radio"
            name="mode"
            value={value}
            checked={mode === value}
            onChange={() => setMode(value)}
          />
          {value === 'test' ? 'Test mode' : 'Live mode'}
        </label>
      ))}
    </fieldset>
  );
}

function Shell({ state }: { state: AppState }) {
  const { path } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);

  useEffect(() => {
    if (path === '/' || path === '/login' || path === '/signup') navigate('/payments', { replace: true });
  }, [path]);

  // After each navigation: a fitting title, the top of the page, and focus on the new page's heading so screen
  // readers announce it and the keyboard continues from there. The first load keeps the browser's own focus.
  const firstRender = useRef(true);
  useEffect(() => {
    setMenuOpen(false);
    const initial = firstRender.current;
    firstRender.current = false;
    const timer = window.setTimeout(() => {
      const heading = document.querySelector<HTMLElement>('[data-page-title]');
      document.title = `${heading?.textContent ?? 'Dashboard'} · svc`;
      if (initial || heading === null) return;
      window.scrollTo(0, 0);
      heading.focus({ preventScroll: true });
    }, 0);
    return () => window.clearTimeout(timer);
  }, [path]);

  return (
    <div class={`shell mode-is-${state.mode}`}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <div class="brand">
          <span class="brand-mark" aria-hidden="true">
            s
          </span>
          <span class="brand-name">svc</span>
          <span class="brand-sub">Dashboard</span>
        </div>
        <ModeSwitch mode={state.mode} setMode={state.setMode} />
        <div class="account">
          <span class="account-email" title={state.session.merchant.email}>
            {state.session.merchant.email}
          </span>
          <button
            type="button"
            class="button button-small button-secondary"
            onClick={() => {
              state.logout();
              navigate('/login', { replace: true });
            }}
          >
            Log out
          </button>
        </div>
        <button
          type="button"
          class="button button-small button-secondary menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
      </header>
      <aside class="mode-banner-region" aria-label="Mode">
        {state.mode === 'test' ? (
          <p class="mode-banner mode-banner-test" data-testid="mode-banner">
            <strong>Test mode.</strong> You are looking at test data: test payments run on a simulated chain
            and no real funds move.
          </p>
        ) : (
          <p class="mode-banner mode-banner-live" data-testid="mode-banner">
            <strong>Live mode.</strong> Real payments and real funds.
          </p>
        )}
      </aside>
      <div class="layout">
        <nav id="main-nav" class={`sidenav${menuOpen ? ' sidenav-open' : ''}`} aria-label="Main">
          <ul>
            {navItems.map((item) => (
              <li key={item.to}>
                <Link to={item.to} aria-current={item.section.test(path) ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" class="content" tabIndex={-1}>
          <Page key={`${path}:${state.mode}`} path={path} />
        </main>
      </div>
    </div>
  );
}

export function App() {
  const [session, setSession] = useState<Session | null>(() => {
    const stored = storedSession();
    setToken(stored?.token ?? null);
    return stored;
  });
  const [mode, setModeState] = useState<Mode>(storedMode);
  const [signedOutReason, setSignedOutReason] = useState<string | null>(null);
  const [toast, setToast] = useState<string | null>(null);

  const logout = useCallback((reason?: string) => {
    setToken(null);
    storeSession(null);
    setSession(null);
    setSignedOutReason(reason ?? null);
  }, []);

  const login = useCallback((next: Session) => {
    setToken(next.token);
    storeSession(next);
    setSignedOutReason(null);
    setSession(next);
  }, []);

  useEffect(() => {
    onSessionEnd(() => logout('Your session has ended. Please log in again.'));
    return () => onSessionEnd(null);
  }, [logout]);

  // Check a stored session once: the token may have expired or the server's secret changed.
  const token = session?.token;
  useEffect(() => {
    if (token === undefined) return;
    api('/me')
      .then((body) =>
        setSession((current) => (current === null ? null : { ...current, merchant: readMerchant(body) })),
      )
      .catch(() => {});
  }, [token]);

  // The session ends on its own when the token expires.
  useEffect(() => {
    if (session?.expiresAt === null || session?.expiresAt === undefined) return;
    const left = new Date(session.expiresAt).getTime() - Date.now();
    const timer = window.setTimeout(
      () => logout('Your session has ended. Please log in again.'),
      Math.max(0, Math.min(left, 2 ** 31 - 1)),
    );
    return () => window.clearTimeout(timer);
  }, [session?.expiresAt, logout]);

  useEffect(() => {
    if (toast === null) return;
    const timer = window.setTimeout(() => setToast(null), 5000);
    return () => window.clearTimeout(timer);
  }, [toast]);

  const state = useMemo<AppState | null>(
    () =>
      session === null
        ? null
        : {
            session,
            mode,
            setMode: (next) => {
              setModeState(next);
              try {
                window.sessionStorage.setItem(modeKey, next);
              } catch {
                // Memory only.
              }
            },
            logout,
            renew: login,
            notify: setToast,
          },
    [session, mode, logout],
  );

  return (
    <>
      {state === null ? (
        <AuthPage onSession={login} reason={signedOutReason} />
      ) : (
        <AppContext.Provider value={state}>
          <Shell state={state} />
        </AppContext.Provider>
      )}
      <div class="toast-region" role="status" aria-live="polite">
        {toast !== null && (
          <div class="toast" data-testid="toast">
            {toast}
          </div>
        )}
      </div>
    </>
  );
}
