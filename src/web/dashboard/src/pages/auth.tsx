import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { describedBy, ErrorNotice, Field, fieldError } from '../components/ui.tsx';
import { readSession, type Session } from '../model.ts';
import { Link, useLocation } from '../router.tsx';
import { useAction } from '../state.tsx';

export function AuthPage({
  onSession,
  reason,
}: {
  onSession: (session: Session) => void;
  reason: string | null;
}) {
  const { path } = useLocation();
  const signup = path === '/signup';
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    document.title = `${signup ? 'Create your account' : 'Log in'} · svc`;
    action.clearError();
  }, [signup]);

  const emailError = fieldError(action.error, 'email');
  const passwordError = fieldError(action.error, 'password');

  return (
    <div class="auth">
      <main class="auth-card" id="main">
        <div class="brand brand-large">
          <span class="brand-mark" aria-hidden="true">
            s
          </span>
          <span class="brand-name">svc</span>
        </div>
        <h1 ref={heading} tabIndex={-1} data-page-title>
          {signup ? 'Create your merchant account' : 'Log in to your dashboard'}
        </h1>
        <p class="muted">
          {signup
            ? 'Accept crypto payments on your own service. You start in test mode: nothing real moves until you say so.'
            : 'Manage your API keys, webhooks and payments.'}
        </p>
        {reason !== null && !signup && (
          <div class="notice notice-info" role="status">
            <p>{reason}</p>
          </div>
        )}
        <form
          noValidate
          onSubmit={async (event) => {
            event.preventDefault();
            const body = await action.run(() =>
              api(signup ? '/auth/signup' : '/auth/login', {
                method: 'POST',
                body: { email: email.trim(), password },
              }),
            );
            if (body !== undefined) onSession(readSession(body));
          }}
        >
          <Field label="Email" id="auth-email" error={emailError}>
            <input
              {...describedBy('auth-email', { error: emailError })}
              type="email"
              name="email"
              autocomplete={signup ? 'email' : 'username'}
              required
              value={email}
              onInput={(event) => setEmail(event.currentTarget.value)}
            />
          </Field>
          <Field
            label="Password"
            id="auth-password"
            error={passwordError}
            {...(signup ? { hint: 'At least 10 characters. A few words you will remember work well.' } : {})}
          >
            <input
              {...describedBy('auth-password', { hint: signup, error: passwordError })}
              type="password"
              name="password"
              autocomplete={signup ? 'new-password' : 'current-password'}
              required
              value={password}
              onInput={(event) => setPassword(event.currentTarget.value)}
            />
          </Field>
          {action.error !== null && emailError === null && passwordError === null && (
            <ErrorNotice error={action.error} compact />
          )}
          <button type="submit" class="button button-block" disabled={action.busy}>
            {action.busy
              ? signup
                ? 'Creating your account…'
                : 'Logging in…'
              : signup
                ? 'Create account'
                : 'Log in'}
          </button>
        </form>
        <p class="auth-switch">
          {signup ? (
            <>
              Already have an account? <Link to="/login">Log in</Link>
            </>
          ) : (
            <>
              New here? <Link to="/signup">Create an account</Link>
            </>
          )}
        </p>
      </main>
    </div>
  );
}
