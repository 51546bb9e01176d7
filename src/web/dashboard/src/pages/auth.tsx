import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { describedBy, ErrorNotice, Field, fieldError } from '../components/ui.tsx';
import { readSession, type Session } from '../model.ts';
import { Link, useLocation } from '../router.tsx';
import { useAction } from '../state.tsx';

/**
 * The page of a reset link (`svc reset-password EMAIL` prints one; with SMTP, it is mailed): a new password with the
 * link's token. Without a token it asks for the email to mail a link to, and says the same whatever the email.
 */
function ResetPassword({ token }: { token: string | null }) {
  const [value, setValue] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const action = useAction();
  const error = fieldError(action.error, token === null ? 'email' : 'password');
  const id = token === null ? 'reset-email' : 'reset-password';
  return (
    <div class="auth">
      <main class="auth-card" id="main">
        <h1 tabIndex={-1} data-page-title>
          {token === null ? 'Reset your password' : 'Choose a new password'}
        </h1>
        {done !== null ? (
          <div class="notice notice-info" role="status">
            <p>{done}</p>
          </div>
        ) : (
          <form
            noValidate
            onSubmit={async (event) => {
              event.preventDefault();
              const body = await action.run(() =>
                token === null
                  ? api('/auth/password-reset-request', { method: 'POST', body: { email: value.trim() } })
                  : api('/auth/password-reset', { method: 'POST', body: { token, password: value } }),
              );
              if (body !== undefined) {
                const message = (body as { message?: unknown }).message;
                setDone(typeof message === 'string' ? message : 'Done.');
              }
            }}
          >
            <Field label={token === null ? 'Email' : 'New password'} id={id} error={error}>
              {token === null ? (
                <input
                  {...describedBy(id, { error })}
                  type="email"
                  autocomplete="email"
                  required
                  value={value}
                  onInput={(event) => setValue(event.currentTarget.value)}
                />
              ) : (
                <input
                  {...describedBy(id, { error })}
                  type="password"
                  autocomplete="new-password"
                  required
                  value={value}
                  onInput={(event) => setValue(event.currentTarget.value)}
                />
              )}
            </Field>
            {action.error !== null && error === null && <ErrorNotice error={action.error} compact />}
            <button type="submit" class="button button-block" disabled={action.busy}>
              {token === null ? 'Send me a reset link' : 'Set the new password'}
            </button>
          </form>
        )}
        <p class="auth-switch">
          <Link to="/login">Back to log in</Link>
        </p>
      </main>
    </div>
  );
}

export function AuthPage(props: { onSession: (session: Session) => void; reason: string | null }) {
  const { path, query } = useLocation();
  if (path === '/reset-password') return <ResetPassword token={query.get('token')} />;
  return <SignInPage {...props} />;
}

function SignInPage({ onSession, reason }: { onSession: (session: Session) => void; reason: string | null }) {
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
              New here? <Link to="/signup">Create an account</Link> ·{' '}
              <Link to="/reset-password">Forgot your password?</Link>
            </>
          )}
        </p>
      </main>
    </div>
  );
}
