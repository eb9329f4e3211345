/**
 * An incremental parser of `text/event-stream` (the WHATWG HTML "server-sent events"
 * format): feed it text as it arrives, get back the messages completed by it.
 */
export interface SseMessage {
  /** `message` when the server named none. */
  event: string;
  data: string;
  /** The last event id seen so far (what a reconnect sends as Last-Event-ID). */
  lastEventId: string;
}

export interface SseParsed {
  messages: SseMessage[];
  /** Comment lines (`: keep-alive`), without the colon. */
  comments: string[];
  /** A `retry:` the server asked for, in ms. */
  retry?: number;
  /**
   * The last event id as of the last block completed in this text, messages or not (an
   * `id:` alone moves it, as for EventSource): where a reconnect resumes.
   */
  lastEventId?: string;
}

export class SseParser {
  #pending = '';
  #data: string[] = [];
  #event = '';
  #lastEventId = '';
  #first = true;

  get lastEventId(): string {
    return this.#lastEventId;
  }

  push(text: string): SseParsed {
    const out: SseParsed = { messages: [], comments: [] };
    let buf = this.#pending + text;
    if (this.#first && buf.length > 0) {
      if (buf.charCodeAt(0) === 0xfeff) buf = buf.slice(1);
      this.#first = false;
    }
    let start = 0;
    for (let i = 0; i < buf.length; i++) {
      const c = buf[i];
      if (c !== '\n' && c !== '\r') continue;
      // A CR at the very end may be the first half of CRLF: wait for the next chunk.
      if (c === '\r' && i === buf.length - 1) break;
      this.#line(buf.slice(start, i), out);
      if (c === '\r' && buf[i + 1] === '\n') i++;
      start = i + 1;
    }
    this.#pending = buf.slice(start);
    return out;
  }

  #line(line: string, out: SseParsed): void {
    if (line === '') {
      out.lastEventId = this.#lastEventId;
      if (this.#data.length > 0)
        out.messages.push({ event: this.#event || 'message', data: this.#data.join('\n'), lastEventId: this.#lastEventId });
      this.#data = [];
      this.#event = '';
      return;
    }
    if (line.startsWith(':')) {
      out.comments.push(line.slice(1).trimStart());
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#event = value;
    else if (field === 'id' && !value.includes('\0')) this.#lastEventId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) out.retry = Number(value);
  }
}
