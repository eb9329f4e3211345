/**
 * A tagged template that escapes every interpolated value unless it is already Html (the
 * result of another `html` template or of `raw`). Arrays are concatenated, null,
 * undefined and false render as nothing. Every page is built from this, so escaping is
 * the default and opting out is visible.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Part = Html | string | number | bigint | boolean | null | undefined | Part[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return escape(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/** Trusted markup (a constant of ours, never user data). */
export function raw(markup: string): Html {
  return new Html(markup);
}

/** Groups the whole part of a decimal string in thousands ("1234567.5" -> "1,234,567.5"); no float involved. */
export function groupDigits(amount: string): string {
  const match = /^(-?)(\d+)(\.\d+)?$/.exec(amount);
  if (!match) return amount;
  return `${match[1]}${match[2]!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${match[3] ?? ''}`;
}

/** "2026-11-21T02:25:37.123Z" -> "2026-11-21 02:25:37 UTC": readable and unambiguous. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** A long hex string cut to its ends, with the whole in the title attribute. */
export function short(hex: string | null | undefined, keep = 8): Html {
  if (!hex) return html`—`;
  if (hex.length <= keep * 2 + 3) return html`<code>${hex}</code>`;
  return html`<code title="${hex}">${hex.slice(0, keep + 2)}…${hex.slice(-keep)}</code>`;
}
