/**
 * Building, validating and HTTP-encoding CloudEvents with the `cloudevents` SDK.
 *
 * The SDK's `HTTP.toEvent` does not validate, accepts any specversion, and invents an `id` for a
 * structured event that has none: `decodeHttpEvent` checks the required attributes on the wire
 * first, then lets the SDK parse and validate. Every problem is reported in a `MalformedEventError`.
 */
import { CloudEvent, CONSTANTS, HTTP, ValidationError } from 'cloudevents';
import { isSpecVersion, isValidAttributeName, SPEC_VERSIONS } from './types.js';

export type Event = CloudEvent<unknown>;

/** Attributes to build an event from: the standard ones plus extensions (lowercase letters, digits). */
export interface EventInit {
  id?: string;
  type: string;
  source: string;
  specversion?: string;
  subject?: string;
  time?: string;
  datacontenttype?: string;
  dataschema?: string;
  data?: unknown;
  data_base64?: string;
  [extension: string]: unknown;
}

/** An HTTP message: headers as node or fetch give them, and the raw body. */
export interface HttpMessage {
  headers: Record<string, string | string[] | undefined> | Headers;
  body: string | Uint8Array | undefined;
}

/** The event is not a valid CloudEvent; `problems` lists every reason found. */
export class MalformedEventError extends Error {
  override readonly name = 'MalformedEventError';
  constructor(readonly problems: readonly string[]) {
    super(`malformed CloudEvent: ${problems.join('; ')}`);
  }
}

const REQUIRED = ['specversion', 'id', 'source', 'type'] as const;
const STRUCTURED = 'application/cloudevents+json';
const BATCH = 'application/cloudevents-batch+json';
/** Structured-mode members that are not attributes. */
const NOT_ATTRIBUTES = new Set(['data', 'data_base64']);

function describeValidation(err: ValidationError): string[] {
  const errors = err.errors ?? [];
  if (errors.length === 0) return [err.message.split('\n')[0] ?? err.message];
  return errors.map((e) =>
    typeof e === 'string' ? e : `${e.instancePath || '/'} ${e.message ?? e.keyword}`.trim(),
  );
}

function rethrow(err: unknown): never {
  if (err instanceof ValidationError) throw new MalformedEventError(describeValidation(err));
  if (err instanceof Error) throw new MalformedEventError([err.message]);
  throw err;
}

function attributeProblems(attrs: Record<string, unknown>, label: (n: string) => string): string[] {
  const problems: string[] = [];
  for (const name of REQUIRED) {
    const value = attrs[name];
    if (typeof value !== 'string' || value === '') problems.push(`missing required attribute ${label(name)}`);
  }
  const version = attrs.specversion;
  if (typeof version === 'string' && version !== '' && !isSpecVersion(version)) {
    problems.push(`unsupported specversion "${version}" (supported: ${SPEC_VERSIONS.join(', ')})`);
  }
  for (const name of Object.keys(attrs)) {
    if (!NOT_ATTRIBUTES.has(name) && !isValidAttributeName(name)) {
      problems.push(`invalid attribute name "${name}": only lowercase letters and digits`);
    }
  }
  return problems;
}

/** Builds a validated event; `id` defaults to a random UUID, `specversion` to 1.0. */
export function buildEvent(init: EventInit): Event {
  const problems = attributeProblems({ specversion: '1.0', id: 'generated', ...init }, (n) => n);
  if (problems.length > 0) throw new MalformedEventError(problems);
  try {
    return new CloudEvent<unknown>(init, true);
  } catch (err) {
    return rethrow(err);
  }
}

/** A WHATWG Headers object (duck-typed). */
function isHeaders(headers: HttpMessage['headers']): headers is Headers {
  return (
    typeof (headers as Partial<Headers>).entries === 'function' &&
    typeof (headers as Partial<Headers>).get === 'function'
  );
}

/** Header names lowercased, repeated headers joined as HTTP does. */
export function normalizeHeaders(headers: HttpMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  // duck-typed: naming the global Headers would load undici in a process that never fetched
  const entries: Iterable<[string, string | string[] | undefined]> = isHeaders(headers)
    ? headers.entries()
    : Object.entries(headers);
  for (const [key, value] of entries) {
    if (value !== undefined) out[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function bodyText(body: HttpMessage['body']): string {
  if (body === undefined) return '';
  return typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
}

function wireProblems(headers: Record<string, string>, body: string): string[] {
  const contentType = (headers['content-type'] ?? '').toLowerCase();
  if (contentType.startsWith(BATCH))
    return ['batched mode (application/cloudevents-batch+json) is not supported'];
  if (contentType.startsWith(STRUCTURED)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (err) {
      return [`structured-mode body is not JSON: ${(err as Error).message}`];
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return ['structured-mode body is not a JSON object'];
    }
    return attributeProblems(parsed as Record<string, unknown>, (n) => `"${n}"`);
  }
  const attrs: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (key.startsWith('ce-')) attrs[key.slice(3)] = value;
  }
  return attributeProblems(attrs, (n) => `(header ce-${n})`);
}

export interface DecodeOptions {
  /**
   * A binary-mode message's body becomes the event's data as the bytes it came in (a Buffer), not
   * parsed by its content type: what Knative's broker does (sdk-go's `binding.ToEvent` keeps a
   * binary message's body as `DataEncoded`, and the dispatch writes those bytes unchanged), so the
   * subscribers get the body the sender sent, byte for byte, and the broker neither parses nor
   * re-serialises it. Structured mode is parsed either way (its data is a member of the JSON).
   */
  rawData?: boolean;
}

/** Decodes and validates a binary- or structured-mode HTTP message. */
export function decodeHttpEvent(message: HttpMessage, options: DecodeOptions = {}): Event {
  const headers = normalizeHeaders(message.headers);
  const raw = options.rawData === true && isBinaryMode(headers);
  const body = raw ? '' : bodyText(message.body);
  const problems = wireProblems(headers, body);
  if (problems.length > 0) throw new MalformedEventError(problems);
  try {
    const event = raw ? rawBinaryEvent(headers, message.body) : sdkDecode(headers, body);
    event.validate();
    return event;
  } catch (err) {
    return rethrow(err);
  }
}

/** A binary-mode message with its body's bytes as the data: plainly where that is the SDK's parse, else through it. */
function rawBinaryEvent(headers: Record<string, string>, body: HttpMessage['body']): Event {
  const plain = plainBinaryInit(headers);
  return plain !== undefined ? eventWithBytes(plain, body) : withBytes(sdkDecode(headers, undefined), body);
}

/** `ce-` names the SDK's binary parse treats apart from the other attributes. */
const SDK_SPECIAL = new Set(['data', 'data_base64', 'datacontenttype']);

/**
 * A 1.0 binary-mode message's attributes as the SDK's `parseBinary` maps them (`ce-<name>` to
 * `<name>`, `ce-time` through its DateParser, `content-type` to `datacontenttype`), without its
 * header copies and a second event for the raw bytes (≈ 20 → 13–15 µs per ingress event by hand,
 * 2026-11-29; the broker decodes every event it takes in). Undefined, and the SDK
 * decodes, for anything its quirks would treat differently: another specversion, an empty `ce-`
 * header (the SDK makes it an extension), a `datacontenttype` header (the SDK reads it too), a
 * `ce-` header naming the data or its content type.
 */
function plainBinaryInit(headers: Record<string, string>): Record<string, unknown> | undefined {
  if (headers['ce-specversion'] !== '1.0' || 'datacontenttype' in headers) return undefined;
  const init: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (key === 'content-type') {
      if (value !== '') init.datacontenttype = value;
    } else if (key.startsWith('ce-')) {
      const name = key.slice(3);
      if (value === '' || SDK_SPECIAL.has(name)) return undefined;
      init[name] = name === 'time' ? sdkTime(value) : value;
    }
  }
  return init;
}

/** The SDK's DateParser: an ISO string of the parsed time, now when it does not parse. */
function sdkTime(value: string): string {
  const ms = Date.parse(value);
  return (Number.isNaN(ms) ? new Date() : new Date(ms)).toISOString();
}

/** One unvalidated SDK event of the attributes and the body's bytes as its data (none for an empty body). */
function eventWithBytes(init: Record<string, unknown>, body: HttpMessage['body']): Event {
  const bytes = bodyBytes(body);
  return new CloudEvent<unknown>(
    bytes !== undefined && bytes.length > 0 ? { ...init, data: bytes } : init,
    false,
  );
}

function isBinaryMode(headers: Record<string, string>): boolean {
  const contentType = (headers['content-type'] ?? '').toLowerCase();
  return !contentType.startsWith(STRUCTURED) && !contentType.startsWith(BATCH);
}

function sdkDecode(headers: Record<string, string>, body: string | undefined): Event {
  const decoded = HTTP.toEvent<unknown>({ headers, body });
  if (Array.isArray(decoded)) throw new MalformedEventError(['batched mode is not supported']);
  return decoded as Event;
}

/** The event with the body's bytes as its data (none for an empty body). */
function withBytes(event: Event, body: HttpMessage['body']): Event {
  const bytes = bodyBytes(body);
  return bytes !== undefined && bytes.length > 0 ? event.cloneWith({ data: bytes }, false) : event;
}

function bodyBytes(body: HttpMessage['body']): Buffer | undefined {
  if (body === undefined) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** The content types whose data the SDK parses as JSON by default (the keys of its parser table). */
const JSON_DATA_TYPES = new Set<string>([
  CONSTANTS.MIME_JSON,
  CONSTANTS.DEFAULT_CONTENT_TYPE,
  CONSTANTS.MIME_CE_JSON,
  CONSTANTS.DEFAULT_CE_CONTENT_TYPE,
]);

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The event's JSON form for a store (the broker's dead letters), replayed byte for byte: when its
 * data is the bytes of a binary-mode body (`rawData`), JSON data stays readable as parsed JSON
 * when serialising it gives those bytes back, any other UTF-8 body is kept as its text (sent as
 * it is), and bytes that are not UTF-8 stay `data_base64`.
 */
export function storedJSON(event: Event): Record<string, unknown> {
  const json = event.toJSON();
  const data = event.data;
  if (!(data instanceof Uint8Array)) return json;
  let text: string;
  try {
    text = strictUtf8.decode(data);
  } catch {
    return json;
  }
  const { data_base64: _dropped, ...rest } = json;
  return { ...rest, data: jsonIfExact(text, event.datacontenttype) };
}

function jsonIfExact(text: string, contentType: string | undefined): unknown {
  if (contentType === undefined || !JSON_DATA_TYPES.has(contentType)) return text;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && JSON.stringify(parsed) === text ? parsed : text;
  } catch {
    return text;
  }
}

/** Whether a message carries a CloudEvent at all (binary headers or structured content type). */
export function looksLikeCloudEvent(message: HttpMessage): boolean {
  const headers = normalizeHeaders(message.headers);
  const contentType = (headers['content-type'] ?? '').toLowerCase();
  return contentType.startsWith(STRUCTURED) || contentType.startsWith(BATCH) || 'ce-specversion' in headers;
}

/** Binary-mode encoding: attributes in `ce-` headers, data in the body. */
export function encodeBinary(event: Event): { headers: Record<string, string>; body: string | Uint8Array } {
  const message = HTTP.binary(event);
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(message.headers)) {
    if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  const raw: unknown = message.body;
  return { headers, body: bodyOf(raw) };
}

/**
 * The body for the SDK's binary message body: text and bytes as they are; another typed array as
 * the bytes its elements hold (the SDK decodes a structured event's `data_base64` to a
 * `Uint32Array` of byte values, which JSON would turn into an object of indices).
 */
function bodyOf(raw: unknown): string | Uint8Array {
  if (typeof raw === 'string' || raw instanceof Uint8Array) return raw;
  if (raw === undefined) return '';
  if (ArrayBuffer.isView(raw) && !(raw instanceof DataView))
    return Buffer.from(raw as unknown as ArrayLike<number>);
  return JSON.stringify(raw);
}

/** The event's extension attributes (everything that is not a standard attribute or data). */
const STANDARD = new Set([
  'id',
  'type',
  'source',
  'specversion',
  'subject',
  'time',
  'datacontenttype',
  'dataschema',
  'data',
  'data_base64',
  'schemaurl',
  'datacontentencoding',
]);
export function extensionsOf(event: Event): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(event.toJSON())) {
    if (!STANDARD.has(key) && value !== undefined) out[key] = value;
  }
  return out;
}

/** Rebuilds an event from its JSON form (as kept in a dead-letter store). */
export function eventFromJSON(json: Record<string, unknown>): Event {
  const problems = attributeProblems(json, (n) => `"${n}"`);
  if (problems.length > 0) throw new MalformedEventError(problems);
  try {
    return new CloudEvent<unknown>(json, true);
  } catch (err) {
    return rethrow(err);
  }
}
