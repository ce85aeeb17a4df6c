/**
 * JSON form → Go-protobuf message, the inverse of decode.ts with the same descriptors. Fields are
 * written in field-number order; absent (undefined/null) fields are not written, map entries are
 * sorted by key as Go writes them. JSON properties the descriptor does not know are dropped.
 */
import type { FieldDesc, FieldKind, MapValueKind, MessageDesc } from './descriptor.js';
import { Writer } from './wire.js';

type Json = Record<string, unknown>;

export function encodeMessage(desc: MessageDesc, value: Json, path = desc.name): Buffer {
  const w = new Writer();
  const numbers = Object.keys(desc.fields)
    .map(Number)
    .sort((a, b) => a - b);
  for (const num of numbers) {
    const f = desc.fields[num];
    if (f.inline) w.bytes(num, encodeMessage(f.message!, value, path));
    else writeField(w, num, f, value[f.json], `${path}.${f.json}`);
  }
  return w.finish();
}

function writeField(w: Writer, num: number, f: FieldDesc, value: unknown, path: string): void {
  if (value === undefined || value === null) return;
  if (f.map) {
    const entries = Object.entries(asObject(value, path)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [key, v] of entries) {
      w.bytes(
        num,
        new Writer()
          .string(1, key)
          .bytes(2, MAP_VALUES[f.map](v, `${path}[${key}]`))
          .finish(),
      );
    }
  } else if (f.repeated) {
    if (!Array.isArray(value)) throw new TypeError(`${path}: expected an array`);
    value.forEach((item, i) => WRITERS[f.kind](w, num, item, f, `${path}[${i}]`));
  } else {
    WRITERS[f.kind](w, num, value, f, path);
  }
}

function asObject(value: unknown, path: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${path}: expected an object`);
  }
  return value as Json;
}

function asString(value: unknown, path: string): string {
  if (typeof value !== 'string') throw new TypeError(`${path}: expected a string`);
  return value;
}

function asInteger(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw new TypeError(`${path}: expected an integer`);
  return value;
}

const MAP_VALUES: Record<MapValueKind, (value: unknown, path: string) => Uint8Array> = {
  string: (v, path) => Buffer.from(asString(v, path), 'utf8'),
  bytes: (v, path) => Buffer.from(asString(v, path), 'base64'),
  quantity: (v) => encodeQuantity(v),
};

type FieldWriter = (w: Writer, num: number, value: unknown, f: FieldDesc, path: string) => void;

const WRITERS: Record<FieldKind, FieldWriter> = {
  string: (w, num, v, _f, path) => w.string(num, asString(v, path)),
  int32: (w, num, v, _f, path) => w.number(num, asInteger(v, path)),
  int64: (w, num, v, _f, path) => w.number(num, BigInt(asInteger(v, path))),
  bool: (w, num, v, _f, path) => {
    if (typeof v !== 'boolean') throw new TypeError(`${path}: expected a boolean`);
    w.bool(num, v);
  },
  bytes: (w, num, v, _f, path) => w.bytes(num, Buffer.from(asString(v, path), 'base64')),
  time: (w, num, v, _f, path) => w.bytes(num, encodeTime(asString(v, path), path)),
  microtime: (w, num, v, _f, path) => w.bytes(num, encodeTime(asString(v, path), path)),
  intstr: (w, num, v, _f, path) => w.bytes(num, encodeIntOrString(v, path)),
  quantity: (w, num, v) => w.bytes(num, encodeQuantity(v)),
  fieldsV1: (w, num, v) =>
    w.bytes(num, new Writer().bytes(1, Buffer.from(JSON.stringify(v), 'utf8')).finish()),
  message: (w, num, v, f, path) => w.bytes(num, encodeMessage(f.message!, asObject(v, path), path)),
};

/** RFC 3339 → Timestamp {seconds = 1, nanos = 2}, fractional digits kept to the nanosecond. */
function encodeTime(value: string, path: string): Buffer {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new TypeError(`${path}: not an RFC 3339 time: ${value}`);
  const fraction = /\.(\d+)/.exec(value)?.[1] ?? '';
  const nanos = Number(fraction.slice(0, 9).padEnd(9, '0'));
  return new Writer()
    .number(1, Math.floor(ms / 1000))
    .number(2, nanos)
    .finish();
}

/** IntOrString {type = 1 (0 int, 1 string), intVal = 2, strVal = 3}. */
function encodeIntOrString(value: unknown, path: string): Buffer {
  const isString = typeof value === 'string';
  return new Writer()
    .number(1, isString ? 1 : 0)
    .number(2, isString ? 0 : asInteger(value, path))
    .string(3, isString ? value : '')
    .finish();
}

function encodeQuantity(value: unknown): Buffer {
  return new Writer().string(1, String(value)).finish();
}
