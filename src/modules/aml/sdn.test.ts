import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseListFile } from './sdn.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../../test/aml/fixtures');
// One directory for the run's files, removed after it (tests must not leave files behind).
const dir = mkdtempSync(path.join(tmpdir(), 'aml-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const tmp = (name: string, text: string) => {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
};

describe('offline list files', () => {
  it("reads the classic SDN.XML's Digital Currency Address ids, with ticker, party and publication date", async () => {
    const list = await parseListFile(path.join(FIXTURES, 'sdn.xml'));
    expect(list.format).toBe('sdn-xml');
    expect(list.publishedAt?.toISOString()).toBe('2026-03-14T00:00:00.000Z');
    expect(list.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(list.entries.map((e) => `${e.ticker} ${e.address}`)).toEqual([
      'ETH 0xd9e97aEEd4Cf0CBDBA3e9874E7A06c922c45209f',
      'USDT 0xd9e97aEEd4Cf0CBDBA3e9874E7A06c922c45209f',
      'TRX TVqRLB8Bnnsve8BJ2DvtdUTxJcmz6zyGxW',
      'SOL 6wNCxWrdpjRrFwiLpDXjhrbu8ShGjuKqDjLTFzApXRFw',
      'ETH 0x79603c1C7Fa5a3BaB106d389047c60f06Ba4f7F9',
      'TRX TM2z3nKt5VyVXR6iNrmqP9yduCWzE2ZGvo',
      'SOL HYXvD9zgYG9zF6KooJ1aMDYdaq8FmBqBBHqdgQhwxUf5',
      'XBT bc1qexamp1e0000000000000000000000000000sdn',
    ]);
    expect(list.entries[0]!.entity).toBe('SDN 90001: EXAMPLE MIXER SERVICES LTD.');
    expect(list.entries[4]!.entity).toBe('SDN 90002: Jane SAMPLE');
  });

  it('reads SDN_ADVANCED.XML: features whose type is a Digital Currency Address, resolved through the reference values', async () => {
    const list = await parseListFile(path.join(FIXTURES, 'sdn_advanced.xml'));
    expect(list.format).toBe('sdn-advanced-xml');
    expect(list.publishedAt?.toISOString()).toBe('2026-03-14T00:00:00.000Z');
    expect(list.entries.map((e) => `${e.ticker} ${e.address}`)).toEqual([
      'ETH 0xd9e97aEEd4Cf0CBDBA3e9874E7A06c922c45209f',
      'USDT 0xd9e97aEEd4Cf0CBDBA3e9874E7A06c922c45209f',
      'TRX TVqRLB8Bnnsve8BJ2DvtdUTxJcmz6zyGxW',
      'SOL HYXvD9zgYG9zF6KooJ1aMDYdaq8FmBqBBHqdgQhwxUf5',
      'XBT bc1qexamp1e0000000000000000000000000000sdn',
    ]);
    // The Location feature (Examplestan) is no address.
    expect(list.entries.some((e) => e.address === 'Examplestan')).toBe(false);
    expect(list.entries[0]!.entity).toBe('SDN 90001: EXAMPLE MIXER SERVICES LTD.');
  });

  it('reads a plain list: one address a line, comments and blank lines ignored', async () => {
    const list = await parseListFile(path.join(FIXTURES, 'plain.txt'));
    expect(list.format).toBe('plain');
    expect(list.publishedAt).toBeNull();
    expect(list.entries.map((e) => e.address)).toEqual([
      '0xd9e97aEEd4Cf0CBDBA3e9874E7A06c922c45209f',
      'TVqRLB8Bnnsve8BJ2DvtdUTxJcmz6zyGxW',
      '6wNCxWrdpjRrFwiLpDXjhrbu8ShGjuKqDjLTFzApXRFw',
    ]);
  });

  it('refuses a file it cannot take whole, naming where', async () => {
    await expect(parseListFile(tmp('bad.txt', '0xd9e97aEEd4Cf0CBDBA3e9874E7A06c922c45209f\nnot an address\n'))).rejects.toThrow(/line 2/);
    await expect(parseListFile(tmp('other.xml', '<consolidated><entry/></consolidated>'))).rejects.toThrow(/not the root/);
    await expect(parseListFile(tmp('torn.xml', '<sdnList><sdnEntry><uid>1</uid>'))).rejects.toThrow(/not a readable SDN XML/);
    await expect(parseListFile(tmp('empty.xml', '<sdnList><sdnEntry><uid>1</uid></sdnEntry></sdnList>'))).rejects.toThrow(
      /no "Digital Currency Address"/,
    );
    await expect(
      parseListFile(
        tmp(
          'odd.xml',
          '<sdnList><sdnEntry><uid>1</uid><idList><id><idType>Digital Currency Address - ETH</idType><idNumber>see annex</idNumber></id></idList></sdnEntry></sdnList>',
        ),
      ),
    ).rejects.toThrow(/not an address/);
    // An empty plain list empties the list (an operator's way to clear one).
    expect((await parseListFile(tmp('empty.txt', '# nothing listed\n'))).entries).toEqual([]);
  });
});
