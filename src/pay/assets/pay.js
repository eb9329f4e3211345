// The payer's page, enhanced: copy buttons, the countdown and live status (server-sent
// events). Without this script the page still shows everything and refreshes itself.
(function () {
  'use strict';
  for (const button of document.querySelectorAll('button.copy')) {
    button.addEventListener('click', async () => {
      const source = document.getElementById(button.dataset.copy);
      if (!source) return;
      const text = source.textContent.trim();
      try {
        await navigator.clipboard.writeText(text);
        button.textContent = 'Copied';
      } catch {
        // No clipboard (an insecure context): select the text for a manual copy.
        const range = document.createRange();
        range.selectNodeContents(source);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        button.textContent = 'Selected';
      }
      setTimeout(() => (button.textContent = 'Copy'), 2000);
    });
  }

  const session = document.getElementById('session');
  if (!session) return;
  const countdown = document.getElementById('countdown');
  const deadline = Date.now() + Number(session.dataset.remainingMs || 0);
  const tick = () => {
    if (!countdown) return;
    const left = Math.max(0, Math.floor((deadline - Date.now()) / 1000));
    countdown.textContent = Math.floor(left / 60) + ':' + String(left % 60).padStart(2, '0');
  };
  tick();
  const timer = setInterval(tick, 1000);

  const status = document.getElementById('status');
  const instructions = document.getElementById('instructions');
  const success = document.getElementById('success');
  const events = new EventSource(session.dataset.events);
  // Refused (429: too many open from this network) or gone for good: the page itself shows
  // the status, so read it again now and then instead.
  events.addEventListener('error', () => {
    if (events.readyState === EventSource.CLOSED) setTimeout(() => window.location.reload(), 30000);
  });
  events.addEventListener('status', (message) => {
    const s = JSON.parse(message.data);
    if (status.dataset.status !== s.state) {
      status.textContent = s.text;
      status.dataset.status = s.state;
      status.className = 'status status-' + s.state;
    }
    for (const [id, value] of [
      ['due', s.amountDue],
      ['amount', s.amountDue],
      ['paid', s.amountPaid],
    ]) {
      const el = document.getElementById(id);
      if (el && el.textContent !== value) el.textContent = value;
    }
    const open = s.status === 'new' || s.status === 'processing';
    // Only while something is due: paid in full, it waits for confirmations, asking nothing more.
    if (instructions) instructions.hidden = !s.owing;
    if (!open) clearInterval(timer);
    if (s.status === 'settled') {
      // The message comes with the settled status only (an unpaid page does not carry it).
      if (s.message) success.textContent = s.message;
      success.hidden = false;
      events.close();
      if (s.redirect) setTimeout(() => window.location.assign(s.redirect), 3000);
    }
    if (s.status === 'invalid') events.close();
  });
})();
