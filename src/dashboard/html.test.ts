import { describe, expect, it } from 'vitest';
import { groupDigits, html, raw } from './html.js';

describe('html', () => {
  it('escapes interpolated text and attributes, keeps nested templates', () => {
    const name = `<script>alert("x")</script>'&`;
    const out = html`<p title="${name}">${name}${html`<b>${1n}</b>`}${[html`<i>a</i>`, '<']}${null}${false}</p>`;
    expect(out.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&amp;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&amp;<b>1</b><i>a</i>&lt;</p>',
    );
    expect(html`${raw('<br>')}`.value).toBe('<br>');
  });

  it('groups digits of decimal strings without touching the fraction', () => {
    expect(groupDigits('1234567.123456789012345678')).toBe('1,234,567.123456789012345678');
    expect(groupDigits('999')).toBe('999');
    expect(groupDigits('0.5')).toBe('0.5');
    expect(groupDigits('1000000000000000000000000000001')).toBe('1,000,000,000,000,000,000,000,000,000,001');
  });
});
