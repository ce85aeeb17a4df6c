/**
 * Message descriptors: for each Go-protobuf (gogo) message of k8s.io/api, its field numbers with
 * the JSON name and type of each field. Field numbers and types come from the `generated.proto`
 * files of k8s.io/api and k8s.io/apimachinery; `keep` marks fields whose Go type is a pointer or
 * whose JSON tag has no `omitempty`, so a zero value on the wire is kept in the JSON form.
 */

export type ScalarKind = 'string' | 'int32' | 'int64' | 'bool' | 'bytes';
/** Types with a JSON form of their own: metav1.Time, metav1.MicroTime, IntOrString, Quantity, FieldsV1. */
export type SpecialKind = 'time' | 'microtime' | 'intstr' | 'quantity' | 'fieldsV1';
export type FieldKind = ScalarKind | SpecialKind | 'message';
/** The value type of a Go map[string]X field (keys are always strings). */
export type MapValueKind = 'string' | 'bytes' | 'quantity';

export interface FieldDesc {
  /** JSON name; empty for an inlined (embedded) struct. */
  json: string;
  kind: FieldKind;
  message?: MessageDesc;
  repeated?: boolean;
  map?: MapValueKind;
  /** Keep zero values (Go pointer field, or no `omitempty`). */
  keep?: boolean;
  /** A Go embedded struct (`json:",inline"`): its fields appear in the parent's JSON object. */
  inline?: boolean;
}

export interface MessageDesc {
  name: string;
  fields: Readonly<Record<number, FieldDesc>>;
}

export interface FieldOptions {
  keep?: boolean;
}

/** The field keeps zero values: a pointer in Go, or a JSON tag without omitempty. */
export const KEEP: FieldOptions = { keep: true };

export function message(name: string, fields: Record<number, FieldDesc>): MessageDesc {
  return { name, fields };
}

const scalar =
  (kind: ScalarKind | SpecialKind) =>
  (json: string, options?: FieldOptions): FieldDesc => ({ json, kind, ...options });

export const str = scalar('string');
export const i32 = scalar('int32');
export const i64 = scalar('int64');
export const bool = scalar('bool');
export const bytes = scalar('bytes');
export const time = scalar('time');
export const microTime = scalar('microtime');
export const intOrString = scalar('intstr');
export const quantity = scalar('quantity');
export const fieldsV1 = scalar('fieldsV1');

export function obj(json: string, msg: MessageDesc): FieldDesc {
  return { json, kind: 'message', message: msg };
}

export function list(json: string, msg: MessageDesc): FieldDesc {
  return { json, kind: 'message', message: msg, repeated: true };
}

export function inline(msg: MessageDesc): FieldDesc {
  return { json: '', kind: 'message', message: msg, inline: true };
}

export function strs(json: string): FieldDesc {
  return { json, kind: 'string', repeated: true };
}

export function ints(json: string, kind: 'int32' | 'int64' = 'int32'): FieldDesc {
  return { json, kind, repeated: true };
}

export function strMap(json: string): FieldDesc {
  return { json, kind: 'message', map: 'string' };
}

export function bytesMap(json: string): FieldDesc {
  return { json, kind: 'message', map: 'bytes' };
}

export function quantityMap(json: string): FieldDesc {
  return { json, kind: 'message', map: 'quantity' };
}

/** The usual top-level object: metadata = 1, spec = 2, status = 3. */
export function resource(
  name: string,
  meta: MessageDesc,
  spec?: MessageDesc,
  status?: MessageDesc,
): MessageDesc {
  const fields: Record<number, FieldDesc> = { 1: obj('metadata', meta) };
  if (spec) fields[2] = obj('spec', spec);
  if (status) fields[3] = obj('status', status);
  return message(name, fields);
}
