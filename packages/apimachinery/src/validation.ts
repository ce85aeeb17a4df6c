/**
 * Label key and value syntax (k8s.io/apimachinery/pkg/util/validation/validation.go:
 * IsQualifiedName, IsValidLabelValue). Where this differs: true/false only, without upstream's
 * list of messages.
 */

const NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** IsQualifiedName: `[prefix/]name`, a DNS-1123 subdomain prefix of at most 253, a name of at most 63. */
export function isQualifiedName(key: string): boolean {
  const slash = key.lastIndexOf('/');
  const name = slash < 0 ? key : key.slice(slash + 1);
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  if (prefix !== undefined && (prefix.length > 253 || !SUBDOMAIN.test(prefix))) return false;
  return name.length <= 63 && NAME.test(name);
}

/** IsValidLabelValue: empty, or at most 63 alphanumerics with `-`, `_`, `.` inside. */
export function isValidLabelValue(value: string): boolean {
  return value === '' || (value.length <= 63 && NAME.test(value));
}
