/**
 * Go-protobuf message → JSON form, driven by a MessageDesc. The result is what encoding/json makes
 * of the Go struct the bytes decode into: zero scalars of `omitempty` fields are left out, message
 * fields on the wire are kept (a Go struct field is never "empty"), maps and lists are left out
 * when empty, bytes are base64, Time/MicroTime are RFC 3339 strings (a zero time, Go's `null`, is
 * left out), IntOrString is a number or a string, Quantity a string, FieldsV1 its JSON.
 * Field numbers a descriptor does not know are skipped.
 */
import type { FieldDesc, FieldKind, MapValueKind, MessageDesc } from './descriptor.js';
import { ProtobufFormatError, Reader, WIRE_BYTES, WIRE_VARINT } from './wire.js';

type Json = Record<string, unknown>;

const VARINT_KINDS: ReadonlySet<FieldKind> = new Set(['int32', 'int64', 'bool']);
/** Go's zero time.Time as Unix seconds (0001-01-01T00:00:00Z). */
const GO_ZERO_TIME_SECONDS = -62135596800;

export function decodeMessage(desc: MessageDesc, data: Uint8Array, path = desc.name): Json {
  const out: Json = {};
  const reader = new Reader(data);
  while (!reader.done) {
    const { field, wire } = reader.tag();
    const f = desc.fields[field];
    if (!f) reader.skip(wire);
    else readField(out, f, reader, wire, f.inline ? path : `${path}.${f.json}`);
  }
  return out;
}

function readField(out: Json, f: FieldDesc, reader: Reader, wire: number, path: string): void {
  if (f.map) return readMapEntry(out, f, reader.bytes(), path, wire);
  if (f.repeated && wire === WIRE_BYTES && VARINT_KINDS.has(f.kind))
    return readPacked(out, f, reader.bytes(), path);
  const expected = VARINT_KINDS.has(f.kind) ? WIRE_VARINT : WIRE_BYTES;
  if (wire !== expected) throw new ProtobufFormatError(`${path}: wire type ${wire}, expected ${expected}`);
  store(out, f, READERS[f.kind](reader, f, path));
}

function store(out: Json, f: FieldDesc, value: unknown): void {
  if (value === undefined) return;
  if (f.repeated) pushTo(out, f.json, value);
  else if (f.inline) Object.assign(out, value);
  else if (f.keep || !isZero(f.kind, value)) out[f.json] = value;
  else delete out[f.json];
}

function isZero(kind: FieldKind, value: unknown): boolean {
  if (kind === 'message' || kind === 'intstr' || kind === 'quantity' || kind === 'fieldsV1') return false;
  return value === '' || value === 0 || value === false;
}

function pushTo(out: Json, key: string, value: unknown): void {
  const existing = out[key];
  if (Array.isArray(existing)) existing.push(value);
  else out[key] = [value];
}

function readPacked(out: Json, f: FieldDesc, data: Uint8Array, path: string): void {
  const reader = new Reader(data);
  while (!reader.done) pushTo(out, f.json, READERS[f.kind](reader, f, path));
}

const READERS: Record<FieldKind, (reader: Reader, f: FieldDesc, path: string) => unknown> = {
  string: (r) => r.string(),
  int32: (r) => r.int32(),
  int64: (r) => r.int64(),
  bool: (r) => r.bool(),
  bytes: (r) => Buffer.from(r.bytes()).toString('base64'),
  time: (r, _f, path) => formatTime(r.bytes(), false, path),
  microtime: (r, _f, path) => formatTime(r.bytes(), true, path),
  intstr: (r, _f, path) => intOrString(r.bytes(), path),
  quantity: (r, _f, path) => quantity(r.bytes(), path),
  fieldsV1: (r, _f, path) => fieldsV1(r.bytes(), path),
  message: (r, f, path) => decodeMessage(f.message!, r.bytes(), path),
};

/** Map entries are messages {key = 1, value = 2}; a repeated key overwrites, as in Go. */
function readMapEntry(out: Json, f: FieldDesc, data: Uint8Array, path: string, wire: number): void {
  if (wire !== WIRE_BYTES) throw new ProtobufFormatError(`${path}: map entry with wire type ${wire}`);
  const reader = new Reader(data);
  let key = '';
  let value: unknown = MAP_ZERO[f.map!];
  while (!reader.done) {
    const tag = reader.tag();
    if (tag.field === 1 && tag.wire === WIRE_BYTES) key = reader.string();
    else if (tag.field === 2 && tag.wire === WIRE_BYTES)
      value = MAP_VALUES[f.map!](reader.bytes(), `${path}[${key}]`);
    else reader.skip(tag.wire);
  }
  const map = (out[f.json] ??= {}) as Json;
  map[key] = value;
}

const MAP_ZERO: Record<MapValueKind, unknown> = { string: '', bytes: '', quantity: '0' };

const MAP_VALUES: Record<MapValueKind, (data: Uint8Array, path: string) => unknown> = {
  string: (data) => Buffer.from(data).toString('utf8'),
  bytes: (data) => Buffer.from(data).toString('base64'),
  quantity,
};

const TIMESTAMP: MessageDesc = {
  name: 'Timestamp',
  fields: {
    1: { json: 'seconds', kind: 'int64', keep: true },
    2: { json: 'nanos', kind: 'int32', keep: true },
  },
};

/** metav1.Time → `2006-01-02T15:04:05Z` (seconds); metav1.MicroTime → `2006-01-02T15:04:05.000000Z`. */
export function formatTime(data: Uint8Array, micro: boolean, path: string): string | undefined {
  if (data.length === 0) return undefined;
  const { seconds = 0, nanos = 0 } = decodeMessage(TIMESTAMP, data, path) as {
    seconds?: number;
    nanos?: number;
  };
  if (seconds === GO_ZERO_TIME_SECONDS && nanos === 0) return undefined;
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime()) || nanos < 0 || nanos > 999_999_999) {
    throw new ProtobufFormatError(`${path}: time out of range (seconds ${seconds}, nanos ${nanos})`);
  }
  const base = date.toISOString().slice(0, 19);
  return micro ? `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${base}Z`;
}

const INT_OR_STRING: MessageDesc = {
  name: 'IntOrString',
  fields: {
    1: { json: 'type', kind: 'int64', keep: true },
    2: { json: 'intVal', kind: 'int32', keep: true },
    3: { json: 'strVal', kind: 'string', keep: true },
  },
};

function intOrString(data: Uint8Array, path: string): number | string {
  const v = decodeMessage(INT_OR_STRING, data, path) as { type?: number; intVal?: number; strVal?: string };
  return v.type === 1 ? (v.strVal ?? '') : (v.intVal ?? 0);
}

const QUANTITY: MessageDesc = { name: 'Quantity', fields: { 1: { json: 'string', kind: 'string' } } };

function quantity(data: Uint8Array, path: string): string {
  const v = decodeMessage(QUANTITY, data, path) as { string?: string };
  return v.string || '0';
}

const FIELDS_V1: MessageDesc = { name: 'FieldsV1', fields: { 1: { json: 'raw', kind: 'bytes' } } };

function fieldsV1(data: Uint8Array, path: string): unknown {
  const { raw } = decodeMessage(FIELDS_V1, data, path) as { raw?: string };
  if (!raw) return undefined;
  try {
    return JSON.parse(Buffer.from(raw, 'base64').toString('utf8')) as unknown;
  } catch {
    throw new ProtobufFormatError(`${path}: fieldsV1 does not hold JSON`);
  }
}
