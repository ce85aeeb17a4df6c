/**
 * What the dead-letter sink logs about one event (pure): the event's identity (id, type, source,
 * subject, time), why it was dead-lettered (Knative's `knativeerrordest`, `knativeerrorcode`, and
 * `knativeerrordata` decoded from base64 into text, truncated), the product's extensions (DESIGN
 * "Events": kind, apiversion, name, namespace, uid, deployertype, target), and the data's size,
 * content type and format. The data itself may hold secrets (a Resource-mode event carries whole objects):
 * it is logged only when the config asks for it, redacted and truncated.
 */
import {
  EXTENSION_NAMES,
  KNATIVE_ERROR_DATA_MAX_LENGTH,
  type ExtensionName,
} from '../../shared/events/index.js';
import { redactValue } from '../../shared/log/index.js';

export const DEAD_LETTER_MESSAGE = 'dead letter';

/** The event as the Functions Framework hands it over (a plain object, not validated). */
export type DeadLetterEvent = Readonly<Record<string, unknown>>;

export interface DescribeOptions {
  logData: boolean;
  maxDataChars: number;
  maxErrorDataChars: number;
}

export interface DeadLetterRecord {
  msg: string;
  fields: Record<string, unknown>;
}

/** The decoded `knativeerrordata`. */
export interface ErrorData {
  text: string;
  /** `base64` as Knative sends it; `raw` when the value was not base64 (logged as it came). */
  encoding: 'base64' | 'raw';
  /** Cut here, or already by Knative (which keeps at most 1024 base64 characters). */
  truncated: boolean;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
// Control characters other than tab, newline and carriage return make a log line unreadable.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

function truncate(text: string, max: number): { text: string; truncated: boolean } {
  const chars = [...text];
  if (chars.length <= max) return { text, truncated: false };
  return { text: `${chars.slice(0, max).join('')}…`, truncated: true };
}

/**
 * Decodes `knativeerrordata` (the base64 of the subscriber's answer, truncated by Knative) into
 * text of at most `max` characters; undefined when the event has none.
 */
export function decodeErrorData(value: unknown, max: number): ErrorData | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const compact = value.replace(/\s+/g, '');
  if (!BASE64.test(compact)) {
    const cut = truncate(value, max);
    return { text: cut.text, encoding: 'raw', truncated: cut.truncated };
  }
  // Knative cuts the base64 text, maybe inside a quantum: decode only whole quanta.
  const whole = compact.slice(0, compact.length - (compact.length % 4));
  const decoded = Buffer.from(whole, 'base64').toString('utf8').replace(CONTROL, '\uFFFD');
  const cut = truncate(decoded, max);
  const cutByKnative = compact.length >= KNATIVE_ERROR_DATA_MAX_LENGTH || whole.length < compact.length;
  return { text: cut.text, encoding: 'base64', truncated: cut.truncated || cutByKnative };
}

/** Bytes of the event's data as received (JSON data is measured re-serialized). */
export function dataSize(event: DeadLetterEvent): number {
  const data = event['data'];
  const base64 = event['data_base64'];
  if (typeof base64 === 'string' && data === undefined) return Buffer.from(base64, 'base64').length;
  if (data === undefined || data === null) return 0;
  if (Buffer.isBuffer(data) || data instanceof Uint8Array) return data.byteLength;
  if (typeof data === 'string') return Buffer.byteLength(data, 'utf8');
  return Buffer.byteLength(JSON.stringify(data) ?? '', 'utf8');
}

/**
 * How the data came: the Functions Framework parses a JSON body into an object and text into a
 * string, and leaves other bodies as bytes. In binary mode it does not copy Content-Type into
 * `datacontenttype`, so this is often the only hint of the data's type.
 */
export function dataFormat(event: DeadLetterEvent): 'none' | 'json' | 'text' | 'binary' {
  const data = event['data'];
  if (data === undefined || data === null) return event['data_base64'] === undefined ? 'none' : 'binary';
  if (Buffer.isBuffer(data) || data instanceof Uint8Array) return 'binary';
  return typeof data === 'string' ? 'text' : 'json';
}

function printableData(event: DeadLetterEvent, max: number): string | undefined {
  const data = event['data'];
  if (data === undefined || data === null) return undefined;
  if (Buffer.isBuffer(data) || data instanceof Uint8Array) return `<${data.byteLength} bytes of binary data>`;
  const safe = redactValue(data);
  const text = typeof safe === 'string' ? safe : (JSON.stringify(safe) ?? '');
  return truncate(text, max).text;
}

function stringAttribute(event: DeadLetterEvent, name: string): string | undefined {
  const value = event[name];
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** The attributes that are present, as strings, in the order given. */
function attributes(event: DeadLetterEvent, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = stringAttribute(event, name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function errorFields(event: DeadLetterEvent, maxErrorDataChars: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const dest = stringAttribute(event, 'knativeerrordest');
  if (dest !== undefined) out['knativeerrordest'] = dest;
  const code = stringAttribute(event, 'knativeerrorcode');
  if (code !== undefined) out['knativeerrorcode'] = /^\d+$/.test(code) ? Number(code) : code;
  const data = decodeErrorData(event['knativeerrordata'], maxErrorDataChars);
  if (data !== undefined) {
    out['knativeerrordata'] = data.text;
    if (data.encoding === 'raw') out['knativeerrordataEncoding'] = 'raw';
    if (data.truncated) out['knativeerrordataTruncated'] = true;
  }
  return out;
}

const IDENTITY = ['id', 'type', 'source', 'subject', 'time'] as const;
const PRODUCT_EXTENSIONS: readonly ExtensionName[] = EXTENSION_NAMES;

/** The one log line (level warn) for a dead-lettered event. Never throws, whatever the input. */
export function describeDeadLetter(event: DeadLetterEvent, opts: DescribeOptions): DeadLetterRecord {
  const contentType = stringAttribute(event, 'datacontenttype');
  const fields: Record<string, unknown> = {
    ...attributes(event, IDENTITY),
    ...errorFields(event, opts.maxErrorDataChars),
    ...attributes(event, PRODUCT_EXTENSIONS),
    ...(contentType !== undefined ? { datacontenttype: contentType } : {}),
    dataFormat: dataFormat(event),
    dataBytes: dataSize(event),
  };
  if (opts.logData) {
    const data = printableData(event, opts.maxDataChars);
    if (data !== undefined) fields['data'] = data;
  }
  return { msg: DEAD_LETTER_MESSAGE, fields };
}
