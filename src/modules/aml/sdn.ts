/**
 * Reads an offline sanctions list file (docs/aml.md, "The OFAC list"):
 *
 * - OFAC's SDN list as XML, either format OFAC publishes: the classic `SDN.XML`
 *   (`<sdnEntry>` ... `<id><idType>Digital Currency Address - XBT</idType><idNumber>…`) or
 *   the advanced `SDN_ADVANCED.XML` (`<FeatureType ID="344">Digital Currency Address - XBT`
 *   in the reference values, and `<Feature FeatureTypeID="344">` ... `<VersionDetail>…` in
 *   each party's profile). Only those "Digital Currency Address - <TICKER>" entries are
 *   kept, with their ticker and the party they belong to; the file is streamed (the
 *   advanced file is over 100 MB), never held whole.
 * - A plain list: one address a line; blank lines and `#` comments ignored.
 *
 * Anything else is refused with the line (or element) at fault: an import replaces the
 * whole list, so a half-read file must never become the list.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { SaxesParser } from 'saxes';
import { ValidationError } from '../../lib/errors.js';

export type ListFormat = 'sdn-xml' | 'sdn-advanced-xml' | 'plain';

export interface ListEntry {
  address: string;
  /** The list's tag for the address's currency (XBT, ETH, TRX, USDT, ...); '' in a plain list. */
  ticker: string;
  /** The party the list names for it, when it says. */
  entity: string | null;
}

export interface ParsedList {
  fileName: string;
  sha256: string;
  format: ListFormat;
  /** The list's own publication date, when it carries one. */
  publishedAt: Date | null;
  entries: ListEntry[];
}

/** What OFAC calls a digital currency address feature: "Digital Currency Address - XBT". */
const FEATURE = /^Digital Currency Address - ([A-Za-z0-9.]{1,16})$/;
/** Addresses of every currency the SDN list names: base58, bech32, hex, Monero's and others. */
const ADDRESS = /^[A-Za-z0-9]{20,128}$/;
const MAX_ENTRIES = 1_000_000;

export async function parseListFile(path: string): Promise<ParsedList> {
  const hash = createHash('sha256');
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 });
  let kind: 'xml' | 'plain' | null = null;
  let xml: XmlReader | null = null;
  const plain = new PlainReader();
  for await (const chunk of stream as AsyncIterable<string>) {
    hash.update(chunk);
    if (kind === null) {
      const start = chunk.replace(/^\uFEFF/, '').trimStart();
      if (start.length === 0) continue;
      kind = start.startsWith('<') ? 'xml' : 'plain';
      if (kind === 'xml') xml = new XmlReader();
    }
    if (kind === 'xml') xml!.write(chunk);
    else plain.write(chunk);
  }
  const result = kind === 'xml' ? xml!.finish() : plain.finish();
  return { fileName: basename(path), sha256: hash.digest('hex'), ...result };
}

function refuse(message: string): never {
  throw new ValidationError(message, [{ field: 'file', message }]);
}

class PlainReader {
  #rest = '';
  #line = 0;
  readonly #entries: ListEntry[] = [];

  write(chunk: string): void {
    const text = this.#rest + chunk;
    const lines = text.split(/\r?\n/);
    this.#rest = lines.pop()!;
    for (const line of lines) this.#take(line);
  }

  finish(): Omit<ParsedList, 'fileName' | 'sha256'> {
    this.#take(this.#rest);
    return { format: 'plain', publishedAt: null, entries: this.#entries };
  }

  #take(raw: string): void {
    this.#line += 1;
    const line = raw
      .replace(/^\uFEFF/, '')
      .replace(/#.*$/, '')
      .trim();
    if (!line) return;
    if (!ADDRESS.test(line)) refuse(`line ${this.#line}: not an address (one address a line; # starts a comment)`);
    if (this.#entries.length >= MAX_ENTRIES) refuse(`more than ${MAX_ENTRIES} addresses`);
    this.#entries.push({ address: line, ticker: '', entity: null });
  }
}

/** Both SDN XML formats, told apart by their root element. */
class XmlReader {
  readonly #parser = new SaxesParser({ xmlns: false });
  #format: ListFormat | null = null;
  readonly #path: string[] = [];
  #text = '';
  #error: Error | null = null;
  // Classic: the current entry's name and uid, and the current id's type and number.
  #first = '';
  #last = '';
  #uid = '';
  #idType = '';
  #idNumber = '';
  #publishDate: string | null = null;
  // Advanced: feature type names by id; per party, its first name part and its features.
  readonly #featureTypes = new Map<string, string>();
  #featureTypeOpen: string | null = null;
  #party = '';
  #partyName: string | null = null;
  #featureType: string | null = null;
  readonly #raw: { typeId: string; address: string; entity: string | null }[] = [];
  readonly #issue: { Year?: string; Month?: string; Day?: string } = {};
  readonly #entries: ListEntry[] = [];

  constructor() {
    const p = this.#parser;
    p.on('error', (err) => {
      this.#error ??= err;
    });
    p.on('opentag', (tag) => {
      const name = localName(tag.name);
      if (this.#path.length === 0) {
        if (name === 'sdnList') this.#format = 'sdn-xml';
        else if (name === 'Sanctions') this.#format = 'sdn-advanced-xml';
        else this.#error ??= new Error(`<${name}> is not the root of OFAC's SDN XML (sdnList) or advanced XML (Sanctions)`);
      }
      this.#path.push(name);
      this.#text = '';
      const attr = (k: string) => {
        const v = tag.attributes[k];
        return typeof v === 'string' ? v : undefined;
      };
      if (name === 'sdnEntry') {
        this.#first = '';
        this.#last = '';
        this.#uid = '';
      } else if (name === 'id') {
        this.#idType = '';
        this.#idNumber = '';
      } else if (name === 'FeatureType') this.#featureTypeOpen = attr('ID') ?? null;
      else if (name === 'DistinctParty') {
        this.#party = attr('FixedRef') ?? '';
        this.#partyName = null;
      } else if (name === 'Feature') this.#featureType = attr('FeatureTypeID') ?? null;
    });
    p.on('text', (t) => {
      this.#text += t;
    });
    p.on('cdata', (t) => {
      this.#text += t;
    });
    p.on('closetag', (tag) => {
      const name = localName(tag.name);
      const text = this.#text.trim();
      const parent = this.#path[this.#path.length - 2];
      this.#path.pop();
      this.#text = '';
      if (this.#format === 'sdn-xml') this.#classic(name, parent, text);
      else if (this.#format === 'sdn-advanced-xml') this.#advanced(name, parent, text);
    });
  }

  write(chunk: string): void {
    if (this.#error) return;
    try {
      this.#parser.write(chunk);
    } catch (err) {
      this.#error ??= err as Error;
    }
  }

  finish(): Omit<ParsedList, 'fileName' | 'sha256'> {
    if (!this.#error) {
      try {
        this.#parser.close();
      } catch (err) {
        this.#error ??= err as Error;
      }
    }
    if (this.#error) refuse(`not a readable SDN XML file: ${this.#error.message.split('\n')[0]!.slice(0, 200)}`);
    if (this.#format === 'sdn-advanced-xml') {
      for (const f of this.#raw) {
        const ticker = FEATURE.exec(this.#featureTypes.get(f.typeId) ?? '')?.[1];
        if (ticker) this.#add(f.address, ticker, f.entity);
      }
    }
    if (this.#entries.length === 0)
      refuse('no "Digital Currency Address" entries in this XML: is it the SDN list (SDN.XML or SDN_ADVANCED.XML)?');
    return { format: this.#format!, publishedAt: this.#published(), entries: this.#entries };
  }

  #classic(name: string, parent: string | undefined, text: string): void {
    if (name === 'Publish_Date') this.#publishDate = text;
    else if (parent === 'sdnEntry' && name === 'uid') this.#uid = text;
    else if (parent === 'sdnEntry' && name === 'firstName') this.#first = text;
    else if (parent === 'sdnEntry' && name === 'lastName') this.#last = text;
    else if (parent === 'id' && name === 'idType') this.#idType = text;
    else if (parent === 'id' && name === 'idNumber') this.#idNumber = text;
    else if (name === 'id') {
      const ticker = FEATURE.exec(this.#idType)?.[1];
      if (ticker) this.#add(this.#idNumber, ticker, this.#name(this.#uid, [this.#first, this.#last].filter(Boolean).join(' ') || null));
    }
  }

  #advanced(name: string, parent: string | undefined, text: string): void {
    if (parent === 'DateOfIssue' && (name === 'Year' || name === 'Month' || name === 'Day')) this.#issue[name] = text;
    else if (name === 'FeatureType' && this.#featureTypeOpen) {
      this.#featureTypes.set(this.#featureTypeOpen, text);
      this.#featureTypeOpen = null;
    } else if (name === 'NamePartValue' && this.#partyName === null) this.#partyName = text;
    else if (name === 'VersionDetail' && this.#featureType !== null)
      this.#raw.push({ typeId: this.#featureType, address: text, entity: this.#name(this.#party, this.#partyName) });
    else if (name === 'Feature') this.#featureType = null;
  }

  #name(uid: string, name: string | null): string | null {
    if (!uid && !name) return null;
    return `SDN ${uid}${name ? `: ${name}` : ''}`.slice(0, 300);
  }

  #add(address: string, ticker: string, entity: string | null): void {
    if (!ADDRESS.test(address)) refuse(`a Digital Currency Address - ${ticker} entry is not an address: ${address.slice(0, 80)}`);
    if (this.#entries.length >= MAX_ENTRIES) refuse(`more than ${MAX_ENTRIES} addresses`);
    this.#entries.push({ address, ticker: ticker.toUpperCase(), entity });
  }

  #published(): Date | null {
    if (this.#format === 'sdn-xml') {
      const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(this.#publishDate ?? '');
      return m ? new Date(Date.UTC(Number(m[3]), Number(m[1]) - 1, Number(m[2]))) : null;
    }
    const { Year, Month, Day } = this.#issue;
    return Year && Month && Day ? new Date(Date.UTC(Number(Year), Number(Month) - 1, Number(Day))) : null;
  }
}

function localName(name: string): string {
  const i = name.indexOf(':');
  return i >= 0 ? name.slice(i + 1) : name;
}
