// Progressive enhancement only: every page works without this file.
// - forms with data-confirm ask before submitting (regenerating a key revokes the old one);
// - buttons with data-copy copy the text of the element they name;
// - a page with a pending webhook delivery (data-refresh) reloads itself until it settles
//   (only GET pages carry it, so a reload never repeats a change).
document.addEventListener('submit', (event) => {
  const form = event.target;
  const question = form instanceof HTMLFormElement ? form.dataset.confirm : '';
  if (question && !window.confirm(question)) event.preventDefault();
});
document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  if (!button) return;
  const source = document.getElementById(button.dataset.copy || '');
  if (!source || !navigator.clipboard) return;
  try {
    await navigator.clipboard.writeText(source.textContent.trim());
    button.textContent = 'Copied';
  } catch {
    button.textContent = 'Select and copy';
  }
});
const refresh = document.querySelector('[data-refresh]');
if (refresh) setTimeout(() => window.location.reload(), Number(refresh.getAttribute('data-refresh')) || 2000);
