// The hosted checkout's script: copy buttons, the countdown, the test banner's buttons, and live updates. It polls
// the public checkout view every 2 s and, when the payment changed, swaps in a fresh server rendering of the page, so
// the page without this script shows exactly the same thing (it refreshes itself through <noscript>).
(() => {
  const doc = document;
  doc.documentElement.classList.replace('no-js', 'js');

  // The receipt's print button.
  doc.addEventListener('click', (event) => {
    if (event.target instanceof Element && event.target.closest('[data-print]')) window.print();
  });

  const announcer = () => doc.getElementById('announce');
  const pageEl = () => doc.getElementById('page');
  const first = pageEl();
  const paymentId = first?.dataset.paymentId;
  if (!paymentId) return;

  const viewUrl = `/v1/payments/checkout/${paymentId}`;
  // The same page, in the language the payer chose (?locale=), if any.
  const pageUrl = `/pay/${paymentId}${window.location.search}`;
  // The page's words, in its language (the server renders them; this script has no catalog of its own).
  const text = (key) => {
    try {
      return JSON.parse(pageEl()?.dataset.messages ?? '{}')[key] ?? '';
    } catch {
      return '';
    }
  };
  let message = null;
  let delay = 2000;
  let timer = null;
  let busy = false;

  const announce = (text) => {
    const region = announcer();
    if (!region) return;
    region.textContent = '';
    setTimeout(() => {
      region.textContent = text;
    }, 50);
  };

  const showMessage = () => {
    const slot = doc.querySelector('.js-message');
    if (!slot) return;
    slot.hidden = message === null;
    slot.textContent = message?.text ?? '';
    slot.className = `notice js-message${message?.error ? ' notice-error' : ''}`;
  };

  // As render.ts fingerprintOf: what makes the page out of date.
  const fingerprintOf = (view) =>
    [
      view.status,
      view.chain ?? '',
      view.received_amount_native,
      view.confirmations.seen,
      view.confirmations.required,
      view.expires_at,
      view.quote_expires_at ?? '',
    ].join('|');

  // Replaces #page with the server's fresh rendering, keeping keyboard focus where it was when it can.
  const swap = async () => {
    const response = await fetch(pageUrl, { cache: 'no-store', headers: { accept: 'text/html' } });
    if (!response.ok) throw new Error(`page ${response.status}`);
    const fresh = new DOMParser().parseFromString(await response.text(), 'text/html').getElementById('page');
    const current = pageEl();
    if (!fresh || !current) return;
    const statusChanged = fresh.dataset.status !== current.dataset.status;
    const active = doc.activeElement;
    const focusKey =
      active && current.contains(active)
        ? active.getAttribute('data-copy') !== null
          ? `[aria-label="${active.getAttribute('aria-label')}"]`
          : active.id
            ? `#${active.id}`
            : null
        : null;
    current.replaceWith(doc.adoptNode(fresh));
    showMessage();
    tick();
    if (focusKey) {
      const again = fresh.querySelector(focusKey);
      if (again) again.focus();
      else doc.getElementById('status-title')?.focus();
    }
    if (statusChanged || fresh.dataset.state !== current.dataset.state) {
      doc.title = `${fresh.querySelector('h1')?.textContent ?? ''} · ${text('checkout')}`;
      announce(fresh.dataset.announce ?? '');
    }
  };

  const schedule = (ms) => {
    clearTimeout(timer);
    if (pageEl()?.dataset.final === 'true') return;
    timer = setTimeout(poll, ms);
  };

  const poll = async () => {
    if (busy) return;
    if (doc.hidden) return schedule(delay);
    busy = true;
    try {
      const response = await fetch(viewUrl, { cache: 'no-store', headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`view ${response.status}`);
      const view = await response.json();
      if (fingerprintOf(view) !== pageEl()?.dataset.fingerprint) await swap();
      delay = 2000;
    } catch {
      // Offline or busy: try again, less often.
      delay = Math.min(delay * 2, 30000);
    } finally {
      busy = false;
    }
    schedule(delay);
  };

  // The countdown: every second, from the server's expiry time.
  const tick = () => {
    for (const el of doc.querySelectorAll('time[data-countdown]')) {
      const left = Math.max(0, Date.parse(el.getAttribute('datetime') ?? '') - Date.now());
      const total = Math.floor(left / 1000);
      const hours = Math.floor(total / 3600);
      const minutes = Math.floor((total % 3600) / 60);
      const seconds = String(total % 60).padStart(2, '0');
      el.textContent =
        hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
      el.parentElement?.classList.toggle('ending', total < 120);
      if (total === 0 && !el.dataset.done) {
        el.dataset.done = '1';
        // A lapsed quote changes the page though the payment did not change: render it afresh.
        if (el.closest('.quote')) swap().catch(() => schedule(delay));
        else schedule(0);
      }
    }
  };
  setInterval(tick, 1000);
  tick();

  doc.addEventListener('visibilitychange', () => {
    if (!doc.hidden) schedule(0);
  });

  // Copy buttons.
  doc.addEventListener('click', async (event) => {
    const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
    if (!button) return;
    const value = button.getAttribute('data-copy') ?? '';
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      const area = doc.createElement('textarea');
      area.value = value;
      area.setAttribute('readonly', '');
      area.className = 'sr-only';
      doc.body.append(area);
      area.select();
      doc.execCommand('copy');
      area.remove();
    }
    const label = button.querySelector('.copy-label');
    if (label) label.textContent = text('copied');
    button.classList.add('copied');
    announce(button.closest('.address-block') ? text('copiedAddress') : text('copiedAmount'));
    setTimeout(() => {
      if (label) label.textContent = text('copy');
      button.classList.remove('copied');
    }, 2000);
  });

  // The test banner: simulate through the public API instead of posting the form, so the page never reloads.
  doc.addEventListener('submit', async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains('simulate')) return;
    event.preventDefault();
    const submitter = event.submitter;
    const outcome = submitter?.value;
    const buttons = form.querySelectorAll('button');
    for (const b of buttons) b.disabled = true;
    try {
      const response = await fetch(`${viewUrl}/simulate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ outcome }),
      });
      const answer = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(answer?.error?.message ?? text('failed'));
      message = {
        text:
          outcome === 'expired'
            ? text('expired')
            : text('sent')
                .replace('{amount}', answer.deposit?.amount_native ?? '')
                .replace('{asset}', answer.deposit?.asset ?? ''),
        error: false,
      };
    } catch (error) {
      message = { text: error instanceof Error ? error.message : text('failed'), error: true };
    }
    for (const b of buttons) b.disabled = false;
    showMessage();
    announce(message.text);
    schedule(0);
  });

  schedule(delay);
})();
