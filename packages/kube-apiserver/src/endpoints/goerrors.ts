/**
 * The messages of Go's encoding/json and of the API server's decoder, so a client sees the
 * same 400 texts a real kube-apiserver sends (built-in kinds decode into Go structs).
 */
import { badRequest, type FieldError, type StatusError } from '../api/errors.js';
import type { JSONSchemaProps, ResourceDef } from '../api/types.js';

/** Go type names of nested structs where `<Kind><Field>` is not the name. */
const STRUCT_NAMES: Record<string, string> = {
  metadata: 'ObjectMeta',
  template: 'PodTemplateSpec',
  'template.spec': 'PodSpec',
  containers: 'Container',
  initContainers: 'Container',
  ports: 'ContainerPort',
  env: 'EnvVar',
  selector: 'LabelSelector',
  strategy: 'DeploymentStrategy',
  resources: 'ResourceRequirements',
  volumes: 'Volume',
  volumeMounts: 'VolumeMount',
};

const capitalize = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

const INTEGER_TYPES: Record<string, string> = { int32: 'int32', int64: 'int64' };

const GO_TYPES: Record<string, (s: JSONSchemaProps) => string> = {
  integer: (s) => INTEGER_TYPES[s.format ?? ''] ?? 'int',
  number: () => 'float64',
  boolean: () => 'bool',
  array: (s) => `[]${goType(s.items)}`,
  object: (s) =>
    typeof s.additionalProperties === 'object' ? `map[string]${goType(s.additionalProperties)}` : 'struct',
};

function goType(schema: JSONSchemaProps | undefined): string {
  if (!schema) return 'interface {}';
  if (schema['x-kubernetes-int-or-string']) return 'intstr.IntOrString';
  const render = GO_TYPES[schema.type ?? ''];
  return render ? render(schema) : 'string';
}

const JSON_KINDS: Record<string, string> = {
  integer: 'number',
  number: 'number',
  boolean: 'bool',
  string: 'string',
  array: 'array',
  object: 'object',
  null: 'null',
};

/** The Go struct that holds the field after `goPath` (a guess from the JSON names). */
function structName(def: ResourceDef, goPath: string[], segment: string): string {
  if (!goPath.length) return def.kind;
  const parent = goPath[goPath.length - 1];
  const known = STRUCT_NAMES[`${parent}.${segment}`] ?? STRUCT_NAMES[parent];
  if (known) return known;
  return goPath.length === 1 ? `${def.kind}${capitalize(parent)}` : capitalize(parent);
}

function mapValues(schema: JSONSchemaProps | undefined): JSONSchemaProps | undefined {
  return typeof schema?.additionalProperties === 'object' ? schema.additionalProperties : undefined;
}

/** Walks the schema along a field path (`spec.template.spec.containers[0].image`). */
function locate(
  def: ResourceDef,
  field: string,
): { struct: string; goPath: string[]; schema?: JSONSchemaProps } {
  let schema: JSONSchemaProps | undefined = def.schema;
  let struct = def.kind;
  const goPath: string[] = [];
  for (const segment of field.replace(/\[\d+\]/g, '').split('.')) {
    const prop = schema?.properties?.[segment];
    if (!prop) {
      schema = mapValues(schema); // a map key is not a Go field
      continue;
    }
    struct = structName(def, goPath, segment);
    goPath.push(segment);
    schema = prop.type === 'array' ? prop.items : prop;
  }
  return { struct, goPath, schema };
}

function prefix(def: ResourceDef): string {
  return `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}`;
}

/** 400 for a body the Go conversion of a built-in kind refuses (`detail`: the conversion's error). */
export function conversionError(def: ResourceDef, detail: string): StatusError {
  return badRequest(`${prefix(def)}: ${detail}`);
}

/** 400 for a wrongly typed field of a built-in kind, worded as encoding/json words it. */
export function goDecodeError(def: ResourceDef, e: FieldError): StatusError {
  const { struct, goPath, schema } = locate(def, e.field);
  const kind = JSON_KINDS[String(e.value)] ?? String(e.value);
  return badRequest(
    `${prefix(def)}: json: cannot unmarshal ${kind} into Go struct field ${struct}.${goPath.join('.')} of type ${goType(schema)}`,
  );
}

/** 400 for unknown fields under fieldValidation=Strict. */
export function strictDecodingError(def: ResourceDef, unknown: string[]): StatusError {
  return badRequest(
    `${prefix(def)}: strict decoding error: ${unknown.map((u) => `unknown field "${u}"`).join(', ')}`,
  );
}

/** Go's wording of a JSON syntax error, from a JSON.parse error of Node. */
function goSyntax(text: string, err: Error): string {
  const at = /position (\d+)/.exec(err.message);
  if (!at || Number(at[1]) >= text.trimEnd().length) return 'unexpected end of JSON input';
  const ch = text[Number(at[1])];
  return `invalid character '${ch}' looking for beginning of value`;
}

function summary(text: string): string {
  return text.startsWith('{') && Buffer.byteLength(text) <= 30 ? text : `${text.slice(0, 30)} ...`;
}

/** 400 for a body that is not JSON at all. */
export function malformedBody(text: string, err: Error, def?: ResourceDef): StatusError {
  const what = def ? ` (must be of type ${def.kind})` : '';
  return badRequest(
    `the object provided is unrecognized${what}: couldn't get version/kind; json parse error: ${goSyntax(text, err)} (${summary(text)})`,
  );
}
