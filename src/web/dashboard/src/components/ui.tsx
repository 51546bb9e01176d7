import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { explain } from '../errors.ts';
import { formatDateTime, relativeTime, statusLabel, statusTone } from '../format.ts';

export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description?: ComponentChildren;
  actions?: ComponentChildren;
}) {
  return (
    <header class="page-header">
      <div>
        <h1 tabIndex={-1} data-page-title>
          {title}
        </h1>
        {description !== undefined && <p class="page-description">{description}</p>}
      </div>
      {actions !== undefined && <div class="page-actions">{actions}</div>}
    </header>
  );
}

export function Loading({ label }: { label: string }) {
  return (
    <div class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      {children !== undefined && <div class="empty-body">{children}</div>}
    </div>
  );
}

/** An API or network failure, in plain words, with the request id for support. */
export function ErrorNotice({
  error,
  onRetry,
  compact = false,
}: {
  error: unknown;
  onRetry?: () => void;
  compact?: boolean;
}) {
  const explained = explain(error);
  return (
    <div
      class={`notice ${explained.unavailable ? 'notice-unavailable' : 'notice-error'}${compact ? ' notice-compact' : ''}`}
      role="alert"
    >
      <p class="notice-title">{explained.title}</p>
      <p>{explained.detail}</p>
      {explained.reference !== null && !explained.unavailable && (
        <p class="notice-reference">
          Reference: <code>{explained.reference}</code>
        </p>
      )}
      {onRetry !== undefined && !explained.unavailable && (
        <button type="button" class="button button-small" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Notice({
  tone = 'info',
  title,
  children,
}: {
  tone?: 'info' | 'warn' | 'success';
  title?: string;
  children: ComponentChildren;
}) {
  return (
    <div class={`notice notice-${tone}`}>
      {title !== undefined && <p class="notice-title">{title}</p>}
      {children}
    </div>
  );
}

export function StatusBadge({
  status,
  kind = 'payment',
}: {
  status: string | null;
  kind?: 'payment' | 'delivery';
}) {
  return (
    <span class={`badge badge-${statusTone(status)}`} data-status={status ?? undefined}>
      {statusLabel(status, kind)}
    </span>
  );
}

export function Time({ iso, relative = false }: { iso: string | null; relative?: boolean }) {
  if (iso === null) return <span class="muted">—</span>;
  const when = relativeTime(iso);
  return (
    <time dateTime={iso} title={iso}>
      {formatDateTime(iso)}
      {relative && when !== '' && <span class="muted"> ({when})</span>}
    </time>
  );
}

async function copyText(value: string, fallbackInput: HTMLInputElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(value);
    return true;
  } catch {
    // Clipboard API needs a secure context; select the text and use the older command instead.
    if (fallbackInput === null) return false;
    fallbackInput.focus();
    fallbackInput.select();
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    }
  }
}

export function CopyButton({
  value,
  label = 'Copy',
  what,
  input,
}: {
  value: string;
  label?: string;
  what: string;
  input?: { current: HTMLInputElement | null };
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = window.setTimeout(() => setState('idle'), 2500);
    return () => window.clearTimeout(timer);
  }, [state]);
  return (
    <>
      <button
        type="button"
        class="button button-small button-secondary copy-button"
        aria-label={`${label} ${what}`}
        onClick={async () => setState((await copyText(value, input?.current ?? null)) ? 'copied' : 'failed')}
      >
        {state === 'copied' ? 'Copied' : label}
      </button>
      <span class="visually-hidden" role="status" aria-live="polite">
        {state === 'copied'
          ? `${what} copied to the clipboard`
          : state === 'failed'
            ? `Select and copy the ${what} by hand`
            : ''}
      </span>
    </>
  );
}

/** A read-only value with a copy button, e.g. a key shown once. */
export function CopyField({ label, value, testId }: { label: string; value: string; testId?: string }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  return (
    <div class="copy-field">
      <label for={id}>{label}</label>
      <div class="copy-row">
        <input
          id={id}
          ref={input}
          class="mono"
          readOnly
          value={value}
          spellcheck={false}
          autocomplete="off"
          data-testid={testId}
          onFocus={(event) => event.currentTarget.select()}
        />
        <CopyButton value={value} what={label} input={input} />
      </div>
    </div>
  );
}

/** A short value (id, hash) shown shortened with its full text on hover and a copy button. */
export function CopyInline({ value, what, display }: { value: string; what: string; display?: string }) {
  return (
    <span class="copy-inline">
      <code title={value}>{display ?? value}</code>
      <CopyButton value={value} what={what} />
    </span>
  );
}

/** Secrets returned once by the API: a clear warning, copy buttons, and an explicit "I saved them". */
export function ShownOnce({
  title,
  children,
  onDone,
  doneLabel = 'I have saved it',
}: {
  title: string;
  children: ComponentChildren;
  onDone: () => void;
  doneLabel?: string;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section class="shown-once" aria-labelledby="shown-once-title" data-testid="shown-once">
      <h2 id="shown-once-title" ref={heading} tabIndex={-1}>
        {title}
      </h2>
      <p class="shown-once-warning">
        <strong>Copy this now: it will not be shown again.</strong> The service keeps only a fingerprint of
        it. If you lose it, you will have to create a new one.
      </p>
      {children}
      <div class="shown-once-actions">
        <button type="button" class="button" onClick={onDone}>
          {doneLabel}
        </button>
      </div>
    </section>
  );
}

/**
 * A modal confirmation built on <dialog>: focus moves into it, Escape cancels, and focus returns to the button that
 * opened it. `onConfirm` may fail; its error is shown in the dialog.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  danger = false,
  onConfirm,
  onClose,
}: {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const element = dialog.current;
    if (element !== null && !element.open) element.showModal();
    return () => opener?.focus();
  }, []);
  return (
    <dialog
      ref={dialog}
      class="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onClose();
      }}
    >
      <form
        method="dialog"
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          setError(null);
          try {
            await onConfirm();
            onClose();
          } catch (failure) {
            setError(failure);
            setBusy(false);
          }
        }}
      >
        <h2 id={titleId}>{title}</h2>
        <div class="dialog-body">{children}</div>
        {error !== null && <ErrorNotice error={error} compact />}
        <div class="dialog-actions">
          <button
            type="button"
            class="button button-secondary"
            onClick={onClose}
            disabled={busy}
            autofocus={danger}
          >
            Cancel
          </button>
          <button
            type="submit"
            class={`button${danger ? ' button-danger' : ''}`}
            disabled={busy}
            autofocus={!danger}
          >
            {busy ? 'Working…' : confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}

/** A form field with its label, hint and the API's complaint about it, wired for screen readers. */
export function Field({
  label,
  hint,
  error,
  children,
  id,
}: {
  label: string;
  hint?: ComponentChildren;
  error?: string | null;
  id: string;
  children: ComponentChildren;
}) {
  return (
    <div class={`field${error ? ' field-invalid' : ''}`}>
      <label for={id}>{label}</label>
      {children}
      {hint !== undefined && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error ? (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** aria attributes for an input inside <Field>. */
export function describedBy(id: string, options: { hint?: boolean; error?: string | null }) {
  const ids = [options.hint ? `${id}-hint` : null, options.error ? `${id}-error` : null].filter(Boolean);
  return {
    id,
    'aria-invalid': options.error ? true : undefined,
    'aria-describedby': ids.length > 0 ? ids.join(' ') : undefined,
  };
}

/** The API's error message for one form field, when the last failure named it. */
export function fieldError(error: unknown, ...params: string[]): string | null {
  if (error === null) return null;
  const explained = explain(error);
  if (explained.param === null || !params.includes(explained.param)) return null;
  // The API's messages may start with the parameter's name in lower case ("url must be …").
  return explained.detail.charAt(0).toUpperCase() + explained.detail.slice(1);
}

export function ExternalLink({ href, children }: { href: string; children: ComponentChildren }) {
  return (
    <a href={href} target="_blank" rel="noopener noreferrer" class="external">
      {children}
      <span class="visually-hidden"> (opens in a new tab)</span>
    </a>
  );
}
